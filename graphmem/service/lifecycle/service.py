"""``LifecycleService``: reinforcement, forgetting, correction with lineage, review, promotion, metrics.

The use case modules (``forgetting``, ``review``, ``promotion``) receive a :class:`LifecycleContext`
and the shared steps of :mod:`graphmem.service.lifecycle.context`, never this service; recall's
reinforcement is the explicit step :meth:`LifecycleService.after_recall` the facade runs after a read.

Every write goes through the unit of work (one transaction and a change-log entry; the projection
follows after the commit), so recall, in this process and in every other, sees it at once. Nothing is
hard-deleted unless the caller asks for ``mode="delete"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.core.time import to_ms
from graphmem.core.values import Memory
from graphmem.core.wording import counted
from graphmem.errors import ConflictError, InvalidInput
from graphmem.ids import new_id
from graphmem.service.clock import Clock
from graphmem.service.lifecycle import forgetting, promotion, review
from graphmem.service.lifecycle.context import LifecycleContext, items, life_rows, update_memories
from graphmem.service.lifecycle.decay_scores import describe, memory_score
from graphmem.service.lifecycle.results import LifecycleItem, LifecycleReport
from graphmem.service.memories.drafts import build_drafts, validate_observation
from graphmem.service.memories.reads import one_memory, resolve_many
from graphmem.service.memories.session_attach import attach_sessions
from graphmem.service.metrics import MetricsRecorder, measured
from graphmem.service.scrub import scrub_text
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_range, check_text
from graphmem.store import lifecycle_store
from graphmem.store.changes import RELATIONS
from graphmem.store.lifecycle_store import LifeRow

__all__ = ["LifecycleService"]


class LifecycleService:
    """Memory lifecycle use cases (reached as ``service.lifecycle``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock, metrics: MetricsRecorder) -> None:
        self.uow = uow
        self.settings = uow.settings
        self.context = LifecycleContext.build(uow, clock)
        self.params = self.context.params
        self.clock = clock
        self.metrics = metrics

    def now_ms(self) -> int:
        """The lifecycle clock (the service's one :class:`Clock`)."""
        return self.clock.now_ms()

    def life_rows(self, statuses: Sequence[str], project: str | None = None, *,
                  exclude_kinds: Sequence[str] = (), used_before_ms: int | None = None) -> list[LifeRow]:
        """The decay columns of the memories in ``statuses`` (see :func:`lifecycle_store.life_rows`)."""
        return life_rows(self.uow, statuses, project, exclude_kinds=exclude_kinds, used_before_ms=used_before_ms)

    # -- reinforcement --------------------------------------------------------------------------
    @measured("lifecycle.touch")
    def touch(self, ids: Sequence[str], *, boost: bool = False) -> LifecycleReport:
        """Reinforce: use_count + 1, last_used = now; ``boost`` adds strength_boost (capped)."""
        wanted = self._resolve_many(ids)
        now = self.now_ms()
        before = {m.id: round(memory_score(m, self.params, now), 6)
                  for m in self.uow.repository.memories_by_id(wanted).values()}
        decay = self.settings.decay
        with self.uow.write() as write:
            memories = lifecycle_store.touch(write.session, wanted, now, decay.strength_boost if boost else 0.0,
                                             decay.max_strength)
            write.updated(memories)
        items = tuple(describe(m, self.params, now, reasons=(f"score before: {before[m.id]}",))
                      for m in memories)
        return LifecycleReport("touch", items, count=len(items), message=f"reinforced {counted(len(items), 'memory')}")

    @measured("lifecycle.set_strength")
    def set_strength(self, memory_id: str, strength: float) -> LifecycleReport:
        """Set a memory's base strength (cortexgraph's ``save_memory(strength=...)``): a starting weight, not
        a use, so use_count and last_used stay. Looked up in the write itself, so a memory stored earlier in
        the same unit of work (``UnitOfWork.atomic``) is found."""
        value = check_range("strength", strength, 1.0, self.settings.decay.max_strength)
        wanted = check_text("memory id", memory_id, 300, required=True) or ""
        updated = self._update({wanted: {"strength": value}})
        return LifecycleReport("set_strength", self._items(updated, self.now_ms()), count=len(updated),
                               message=f"strength of {wanted} set to {value}")

    # -- forgetting -----------------------------------------------------------------------------
    @measured("lifecycle.forget")
    def forget(self, memory_id: str, *, superseded_by: str | None = None,
               reason: str | None = None) -> LifecycleReport:
        """Soft forget: status ``forgotten`` and valid_to = now, so ``as_of`` before now still shows it."""
        memory = self._one(memory_id)
        successor = self._one(superseded_by).id if superseded_by else None
        if successor == memory.id:
            raise InvalidInput("a memory cannot be superseded by itself")
        reason = scrub_text("reason", reason, 1_000)
        now = self.now_ms()
        meta = {**memory.meta, "forgotten_at": now, **({"forget_reason": reason} if reason else {})}
        valid_to = now if memory.valid_to is None else min(to_ms(memory.valid_to), now)
        fields: dict[str, Any] = {"status": "forgotten", "valid_to": valid_to, "meta": meta}
        if successor:
            fields["superseded_by"] = successor
        updated = self._update({memory.id: fields})
        message = f"forgot {memory.id}" + (f", superseded by {successor}" if successor else "")
        return LifecycleReport("forget", self._items(updated, now), count=1, message=message)

    @measured("lifecycle.restore")
    def restore(self, memory_id: str) -> LifecycleReport:
        """Undo a forget or an archive: status ``active`` (and the validity a forget closed is reopened)."""
        memory = self._one(memory_id)
        if memory.status not in {"forgotten", "archived"}:
            raise ConflictError(f"{memory.id} is {memory.status}; only forgotten or archived memories "
                                "are restored")
        meta = dict(memory.meta)
        fields: dict[str, Any] = {"status": "active"}
        forgotten_at = meta.pop("forgotten_at", None)
        if memory.valid_to is not None and to_ms(memory.valid_to) == forgotten_at:
            fields["valid_to"] = None
        meta.pop("forget_reason", None)
        fields["meta"] = meta
        updated = self._update({memory.id: fields})
        return LifecycleReport("restore", self._items(updated, self.now_ms()), count=1,
                               message=f"restored {memory.id}")

    @measured("lifecycle.gc")
    def gc(self, *, dry_run: bool = True, mode: str = "archive", limit: int = 1000,
           project: str | None = None, threshold: float | None = None) -> LifecycleReport:
        """Archive (or delete) memories whose decay score fell below the forget threshold."""
        return forgetting.gc(self.context, dry_run=dry_run, mode=mode, limit=limit, project=project,
                             threshold=threshold)

    @measured("lifecycle.prune")
    def prune(self, older_than: str = "90d", *, dry_run: bool = True, mode: str = "archive",
              protect: Sequence[str] | None = None, project: str | None = None,
              limit: int = 10_000) -> LifecycleReport:
        """Archive (or delete) memories neither created nor used within ``older_than``."""
        return forgetting.prune(self.context, older_than, dry_run=dry_run, mode=mode, protect=protect,
                                project=project, limit=limit)

    # -- correction -----------------------------------------------------------------------------
    @measured("lifecycle.correct")
    def correct(self, memory_id: str, content: str, *, kind: str | None = None,
                tags: Sequence[str] | None = None, reason: str | None = None) -> LifecycleReport:
        """A new version linked to the original by a judged ``supersedes``; the original is closed,
        not lost."""
        original = self._one(memory_id)
        reason = scrub_text("reason", reason, 1_000)
        observation = validate_observation(
            self.settings.limits, content=content, kind=kind or original.kind, project=original.project,
            topic_key=original.topic_key, tags=original.tags if tags is None else tags,
            entities=original.entities, source=original.source, context=original.context, meta=original.meta,
            parent_id=original.id, outcome=original.outcome, task_type=original.task_type,
            tools_used=original.tools_used)
        draft = build_drafts(self.uow.extractor, [observation])[0]
        now = self.now_ms()
        relation = {"id": new_id("rel"), "type": "supersedes", "confidence": 1.0, "status": "judged",
                    "reason": reason or "correction", "meta": {"via": "correct"}, "created_at": now,
                    "judged_at": now}
        with self.uow.write() as write:
            attach_sessions(write.session, [draft], self.settings.lifecycle, now)
            batch, edge, closed = lifecycle_store.insert_correction(write.session, draft, original.id, relation, now)
            write.inserted(batch)
            write.changed(RELATIONS, [edge.id])
            write.then(lambda projection: projection.apply_relation(edge))
            write.updated([closed])
        created = batch.memories[0][1]
        return LifecycleReport("correct", self._items([closed, created], now), count=1, created_id=created.id,
                               relation_id=edge.id, message=f"{created.id} supersedes {original.id}")

    # -- review and promotion -------------------------------------------------------------------
    @measured("lifecycle.review_queue")
    def review_queue(self, project: str | None = None, limit: int = 20) -> LifecycleReport:
        """Memories past their review_after date, most overdue first, with days overdue."""
        return review.review_queue(self.context, project=project, limit=limit)

    @measured("lifecycle.mark_reviewed")
    def mark_reviewed(self, memory_id: str, *, reschedule: bool = False,
                      review_after: Any = None) -> LifecycleReport:
        """Clear the review date, or reschedule it with a growing interval (or to ``review_after``)."""
        return review.mark_reviewed(self.context, memory_id, reschedule=reschedule, review_after=review_after)

    @measured("lifecycle.promote")
    def promote(self, ids: Sequence[str] = (), *, dry_run: bool = True, force: bool = False,
                export: bool = False, folder: str | None = None, project: str | None = None,
                limit: int = 100) -> LifecycleReport:
        """Promote by id, or auto-detect candidates; optionally write them to the Markdown vault."""
        return promotion.promote(self.context, ids, dry_run=dry_run, force=force, export=export, folder=folder,
                                 project=project, limit=limit)

    # -- metrics --------------------------------------------------------------------------------
    def metrics_report(self, *, reset: bool = False) -> LifecycleReport:
        """Per-operation counters and latency (p50/p95/max), or clear them with ``reset``."""
        if reset:
            self.metrics.reset()
            return LifecycleReport("reset_metrics", message="metrics reset")
        summaries = self.metrics.snapshot()
        calls = sum(s.calls for s in summaries)
        return LifecycleReport("metrics", count=len(summaries), metrics=summaries,
                               message=f"{counted(calls, 'call')} in {counted(len(summaries), 'operation')}")

    # -- the step the facade runs after a read --------------------------------------------------
    def after_recall(self, ids: Sequence[str]) -> None:
        """Reinforce what recall returned, when ``decay.reinforce_on_recall`` is on."""
        if self.settings.decay.reinforce_on_recall and ids:
            self.touch(ids)

    # -- helpers --------------------------------------------------------------------------------
    def _one(self, ref: str | None) -> Memory:
        return one_memory(self.uow.repository, ref)

    def _resolve_many(self, ids: Sequence[str]) -> list[str]:
        return resolve_many(self.uow.repository, ids, self.settings.limits.max_open_ids)

    def _update(self, changes: dict[str, dict[str, Any]]) -> list[Memory]:
        return update_memories(self.uow, changes)

    def _items(self, memories: Sequence[Memory], now: int) -> tuple[LifecycleItem, ...]:
        return items(memories, self.params, now)

"""Edits of one memory: touch (reinforce), set its strength, forget, restore and correct with lineage.

They are ``memories`` tools (``server/memories.py``), so memories serve them; the lifecycle's bulk
actions (gc, prune, review, promotion) sit above and reuse :func:`update_memories` and :func:`items`.
Every write goes through the unit of work; nothing is hard-deleted here (a forget closes the memory's
validity, a correction supersedes it), so ``as_of`` before the edit still shows the memory as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from graphmem.core.decay import DecayParams
from graphmem.core.time import to_ms
from graphmem.core.values import Memory, Observation
from graphmem.core.wording import counted
from graphmem.errors import ConflictError, InvalidInput
from graphmem.ids import new_id
from graphmem.service.clock import Clock
from graphmem.service.memories.drafts import build_drafts, validate_observation
from graphmem.service.memories.reads import one_memory, resolve_many
from graphmem.service.memories.reports import LifecycleItem, LifecycleReport, describe, memory_score
from graphmem.service.memories.session_attach import attach_sessions
from graphmem.service.metrics import MetricsRecorder, measured
from graphmem.service.scrub import scrub_text
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_range, check_text
from graphmem.store import lifecycle_store
from graphmem.store.changes import RELATIONS

__all__ = ["MemoryEdits", "items", "update_memories"]


class MemoryEdits:
    """Edit use cases of one memory (reached as ``service.edits``; ``service.lifecycle`` forwards to them).

    Their metrics keep the ``lifecycle.*`` names they were recorded under, so counts add up across
    versions and restarts.
    """

    def __init__(self, uow: UnitOfWork, clock: Clock, params: DecayParams, metrics: MetricsRecorder) -> None:
        self.uow = uow
        self.settings = uow.settings
        self.clock = clock
        self.params = params
        self.metrics = metrics

    # -- reinforcement --------------------------------------------------------------------------
    @measured("lifecycle.touch")
    def touch(self, ids: Sequence[str], *, boost: bool = False) -> LifecycleReport:
        """Reinforce: use_count + 1, last_used = now; ``boost`` adds strength_boost (capped)."""
        wanted = resolve_many(self.uow.repository, ids, self.settings.limits.max_open_ids)
        now = self.clock.now_ms()
        before = {m.id: round(memory_score(m, self.params, now), 6)
                  for m in self.uow.repository.memories_by_id(wanted).values()}
        decay = self.settings.decay
        with self.uow.write() as write:
            memories = lifecycle_store.touch(write.session, wanted, now, decay.strength_boost if boost else 0.0,
                                             decay.max_strength)
            write.updated(memories)
        touched = items(memories, self.params, now)
        touched = tuple(replace(item, reasons=(f"score before: {before[item.id]}",)) for item in touched)
        return LifecycleReport("touch", touched, count=len(touched),
                               message=f"reinforced {counted(len(touched), 'memory')}")

    @measured("lifecycle.set_strength")
    def set_strength(self, memory_id: str, strength: float) -> LifecycleReport:
        """Set a memory's base strength (cortexgraph's ``save_memory(strength=...)``): a starting weight, not
        a use, so use_count and last_used stay. Looked up in the write itself, so a memory stored earlier in
        the same unit of work (``UnitOfWork.atomic``) is found."""
        value = check_range("strength", strength, 1.0, self.settings.decay.max_strength)
        wanted = check_text("memory id", memory_id, 300, required=True) or ""
        updated = update_memories(self.uow, {wanted: {"strength": value}})
        return LifecycleReport("set_strength", items(updated, self.params, self.clock.now_ms()), count=len(updated),
                               message=f"strength of {wanted} set to {value}")

    # -- forgetting -----------------------------------------------------------------------------
    @measured("lifecycle.forget")
    def forget(self, memory_id: str, *, superseded_by: str | None = None,
               reason: str | None = None) -> LifecycleReport:
        """Soft forget: status ``forgotten`` and valid_to = now, so ``as_of`` before now still shows it."""
        memory = one_memory(self.uow.repository, memory_id)
        successor = one_memory(self.uow.repository, superseded_by).id if superseded_by else None
        if successor == memory.id:
            raise InvalidInput("a memory cannot be superseded by itself")
        reason = scrub_text("reason", reason, 1_000)
        now = self.clock.now_ms()
        meta = {**memory.meta, "forgotten_at": now, **({"forget_reason": reason} if reason else {})}
        valid_to = now if memory.valid_to is None else min(to_ms(memory.valid_to), now)
        fields: dict[str, Any] = {"status": "forgotten", "valid_to": valid_to, "meta": meta}
        if successor:
            fields["superseded_by"] = successor
        updated = update_memories(self.uow, {memory.id: fields})
        message = f"forgot {memory.id}" + (f", superseded by {successor}" if successor else "")
        return LifecycleReport("forget", items(updated, self.params, now), count=1, message=message)

    @measured("lifecycle.restore")
    def restore(self, memory_id: str) -> LifecycleReport:
        """Undo a forget or an archive: status ``active`` (and the validity a forget closed is reopened)."""
        memory = one_memory(self.uow.repository, memory_id)
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
        updated = update_memories(self.uow, {memory.id: fields})
        return LifecycleReport("restore", items(updated, self.params, self.clock.now_ms()), count=1,
                               message=f"restored {memory.id}")

    # -- correction -----------------------------------------------------------------------------
    @measured("lifecycle.correct")
    def correct(self, memory_id: str, content: str, *, kind: str | None = None,
                tags: Sequence[str] | None = None, reason: str | None = None) -> LifecycleReport:
        """A new version linked to the original by a judged ``supersedes``; the original is closed,
        not lost."""
        original = one_memory(self.uow.repository, memory_id)
        reason = scrub_text("reason", reason, 1_000)
        # Only the new content, kind and tags need checking: the rest was checked when the original was stored.
        change = validate_observation(self.settings.limits, content=content, kind=kind or original.kind,
                                      tags=original.tags if tags is None else tags)
        observation = replace(Observation.revising(original), content=change.content, kind=change.kind,
                              tags=change.tags, redacted=change.redacted)
        draft = build_drafts(self.uow.extractor, [observation])[0]
        now = self.clock.now_ms()
        relation = {"id": new_id("rel"), "type": "supersedes", "confidence": 1.0, "status": "judged",
                    "reason": reason or "correction", "meta": {"via": "correct"}, "created_at": now,
                    "judged_at": now}
        with self.uow.write() as write:
            (draft,) = attach_sessions(write.session, [draft], self.settings.lifecycle, now)
            batch, edge, closed = lifecycle_store.insert_correction(write.session, draft, original.id, relation, now)
            write.inserted(batch)
            write.changed(RELATIONS, [edge.id])
            write.then(lambda projection: projection.apply_relation(edge))
            write.updated([closed])
        created = batch.memories[0][1]
        return LifecycleReport("correct", items([closed, created], self.params, now), count=1, created_id=created.id,
                               relation_id=edge.id, message=f"{created.id} supersedes {original.id}")


def update_memories(uow: UnitOfWork, changes: dict[str, dict[str, Any]],
                    before_commit: Callable[[list[Memory]], None] | None = None) -> list[Memory]:
    """Set columns of memories in one write (``before_commit`` runs inside it, e.g. writing vault notes)."""
    with uow.write() as write:
        updated = lifecycle_store.update_memories(write.session, changes, before_commit)
        write.updated(updated)
    return updated


def items(memories: Sequence[Memory], params: DecayParams, now: int, **extra: Any) -> tuple[LifecycleItem, ...]:
    """Each memory as a :class:`LifecycleItem` with its score now."""
    return tuple(describe(m, params, now, **extra) for m in memories)

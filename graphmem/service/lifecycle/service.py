"""``LifecycleService``: decay over many memories — gc, prune, review, promotion — and metrics.

The edits of one memory (touch, forget, restore, correct) are memories' own
(:class:`~graphmem.service.memories.edits.MemoryEdits`, ``service.edits``). The use case modules (``forgetting``,
``review``, ``promotion``) receive a :class:`LifecycleContext` and shared functions, never this
service. Recall's reinforcement is the explicit step :meth:`LifecycleService.after_recall` the facade
runs after a read. Nothing is hard-deleted unless the caller asks for ``mode="delete"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.core.wording import counted
from graphmem.service.clock import Clock
from graphmem.service.lifecycle import forgetting, promotion, review
from graphmem.service.lifecycle.context import LifecycleContext, life_rows
from graphmem.service.memories.edits import MemoryEdits
from graphmem.service.memories.reports import LifecycleReport
from graphmem.service.metrics import MetricsRecorder, measured
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.store.lifecycle_store import LifeRow

__all__ = ["LifecycleService"]


class LifecycleService:
    """Memory lifecycle use cases (reached as ``service.lifecycle``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock, metrics: MetricsRecorder, edits: MemoryEdits) -> None:
        self.uow = uow
        self.settings = uow.settings
        self.context = LifecycleContext.build(uow, clock)
        self.params = self.context.params
        self.clock = clock
        self.metrics = metrics
        self.edits = edits  # memories' own edits: after_recall reinforces through touch

    def now_ms(self) -> int:
        """The lifecycle clock (the service's one :class:`Clock`)."""
        return self.clock.now_ms()

    def life_rows(self, statuses: Sequence[str], project: str | None = None, *,
                  exclude_kinds: Sequence[str] = (), used_before_ms: int | None = None) -> list[LifeRow]:
        """The decay columns of the memories in ``statuses`` (see :func:`lifecycle_store.life_rows`)."""
        return life_rows(self.uow, statuses, project, exclude_kinds=exclude_kinds, used_before_ms=used_before_ms)

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
            self.edits.touch(ids)

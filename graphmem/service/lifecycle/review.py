"""The review queue and mark_reviewed: spaced re-evaluation of facts that may have gone stale.

``review_after`` is stored as epoch milliseconds whatever the caller sent (ISO 8601 or epoch ms, both
validated by ``parse_instant``), so an ISO date becomes due exactly like a number does (KiroGraph
compared ISO strings with numbers and they never became due).
"""

from __future__ import annotations

from typing import Any

from graphmem.core.time import MS_PER_DAY, to_ms
from graphmem.core.wording import counted
from graphmem.service.lifecycle.context import LifecycleContext, items, update_memories
from graphmem.service.lifecycle.decay_scores import describe
from graphmem.service.lifecycle.results import LifecycleReport
from graphmem.service.memories.reads import one_memory
from graphmem.service.validation import check_count, parse_instant
from graphmem.store import lifecycle_store

__all__ = ["mark_reviewed", "next_interval_days", "review_queue"]


def review_queue(life: LifecycleContext, *, project: str | None, limit: int) -> LifecycleReport:
    """Current memories whose review date has passed, most overdue first, with days overdue and ids."""
    limit = check_count("limit", limit, 1, 1_000)
    now = life.now_ms()
    with life.uow.read() as session:
        memories, total = lifecycle_store.review_due(session, now, project, limit)
    items = tuple(describe(m, life.params, now,
                           days_overdue=round((now - to_ms(m.review_after)) / MS_PER_DAY, 2))  # type: ignore[arg-type]
                  for m in memories)
    shown = f", showing {len(items)}" if total > len(items) else ""
    return LifecycleReport("review", items, count=len(items), total=total,
                           message=f"{counted(total, 'memory')} due for review{shown}")


def mark_reviewed(life: LifecycleContext, memory_id: str, *, reschedule: bool,
                  review_after: Any) -> LifecycleReport:
    """Clear the review date, reschedule it with a growing interval, or set it to ``review_after``.

    A review is a use: it reinforces the memory (use_count + 1, last_used = now).
    """
    memory = one_memory(life.uow.repository, memory_id)
    instant = parse_instant("review_after", review_after)
    now = life.now_ms()
    meta = {**memory.meta, "reviewed_at": now, "review_count": int(memory.meta.get("review_count", 0)) + 1}
    next_ms: int | None = None
    if instant is not None:
        next_ms = to_ms(instant)
    elif reschedule:
        interval = next_interval_days(life, memory.meta.get("review_interval_days"))
        meta["review_interval_days"] = interval
        next_ms = now + int(interval * MS_PER_DAY)
    fields = {"review_after": next_ms, "meta": meta, "use_count": memory.use_count + 1, "last_used_at": now}
    updated = update_memories(life.uow, {memory.id: fields})
    what = "cleared" if next_ms is None else f"next review {updated[0].review_after.isoformat()}"  # type: ignore[union-attr]
    return LifecycleReport("mark_reviewed", items(updated, life.params, now), count=1,
                           message=f"reviewed {memory.id}: {what}")


def next_interval_days(life: LifecycleContext, previous: Any) -> float:
    """The first interval, then each reschedule multiplies it by ``review_growth`` (capped):
    7, 14, 28 … days by default."""
    settings = life.settings.lifecycle
    if not isinstance(previous, int | float) or isinstance(previous, bool) or previous <= 0:
        return settings.review_interval_days
    return min(settings.review_max_interval_days, float(previous) * settings.review_growth)

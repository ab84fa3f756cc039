"""What an action on memories reports: each memory with its decay score now, in one report shape.

The edits of one memory (touch, forget, restore, correct: :mod:`graphmem.service.memories.edits`) and
the lifecycle's actions over many (gc, prune, review, promotion, metrics) report alike, so the types
live here, below both; the MCP layer mirrors them in ``server/models/lifecycle.py``. Sessions and
metrics keep their own in ``sessions/results.py`` and ``metrics.py``.

Every item carries the memory id, so an agent can act on what it sees (KiroGraph's review and search
output hid the ids that mark_reviewed and judge need).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.core.decay import DecayParams, retention_score
from graphmem.core.time import MS_PER_HOUR, to_ms
from graphmem.core.values import Memory
from graphmem.service.metrics import MetricSummary

__all__ = ["LifecycleItem", "LifecycleReport", "describe", "memory_score"]


@dataclass(frozen=True, slots=True)
class LifecycleItem:
    """One memory as a lifecycle operation sees it; fields that do not apply stay None."""

    id: str
    kind: str | None = None
    project: str | None = None
    status: str | None = None
    content: str | None = None
    score: float | None = None  # decay score (use_count+1)^β · D(Δt) · strength, now
    use_count: int | None = None
    strength: float | None = None
    created_at: str | None = None
    last_used_at: str | None = None
    review_after: str | None = None
    days_overdue: float | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    superseded_by: str | None = None
    parent_id: str | None = None
    current: bool | None = None  # history: the version default recall shows
    eligible: bool | None = None  # promotion: meets the criteria
    reasons: tuple[str, ...] = ()  # why not eligible, or why skipped
    vault_path: str | None = None


@dataclass(frozen=True, slots=True)
class LifecycleReport:
    """What a lifecycle action did, or with ``dry_run`` would do."""

    action: str
    items: tuple[LifecycleItem, ...] = ()
    dry_run: bool = False
    count: int = 0  # memories changed (or, in a dry run, that would change)
    total: int = 0  # candidates before the limit
    created_id: str | None = None
    relation_id: str | None = None
    message: str = ""
    metrics: tuple[MetricSummary, ...] = ()

    def __post_init__(self) -> None:
        # Candidates before the limit are never fewer than those acted on: an action on named memories
        # (touch, forget, correct...) has as many candidates as it changed.
        if self.total < self.count:
            object.__setattr__(self, "total", self.count)


def memory_score(memory: Memory, params: DecayParams, now_ms: int) -> float:
    """The decay score of one memory now."""
    age_hours = (now_ms - to_ms(memory.last_used_at)) / MS_PER_HOUR
    return float(retention_score(memory.use_count, age_hours, memory.strength, params))


def describe(memory: Memory, params: DecayParams, now_ms: int, *, content_chars: int | None = 200,
             **extra: object) -> LifecycleItem:
    """A :class:`LifecycleItem` of ``memory`` with its score now; ``extra`` fills the other fields."""
    content = memory.content if content_chars is None else _clip(memory.content, content_chars)
    fields: dict[str, object] = {
        "id": memory.id, "kind": memory.kind, "project": memory.project, "status": memory.status,
        "content": content, "score": round(memory_score(memory, params, now_ms), 6),
        "use_count": memory.use_count, "strength": round(memory.strength, 6),
        "created_at": memory.created_at.isoformat(), "last_used_at": memory.last_used_at.isoformat(),
        "review_after": _iso(memory.review_after), "valid_from": memory.valid_from.isoformat(),
        "valid_to": _iso(memory.valid_to), "superseded_by": memory.superseded_by,
        "parent_id": memory.parent_id,
    }
    fields.update(extra)
    return LifecycleItem(**fields)  # type: ignore[arg-type]


def _iso(value: object) -> str | None:
    return None if value is None else value.isoformat()  # type: ignore[attr-defined]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"

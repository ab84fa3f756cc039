"""Decay scores per memory, and the lifecycle item that shows one.

The vectorized scores over the projection's columns (``node_scores``, ``ranking_weights``,
``review_priority``) belong to recall, which ranks with them: :mod:`graphmem.service.recall.decay_weights`.
``decay_params`` is re-exported from there so the lifecycle's modules read their parameters in one place.
"""

from __future__ import annotations

from graphmem.core.decay import DecayParams, retention_score
from graphmem.core.time import MS_PER_HOUR, to_ms
from graphmem.core.values import Memory
from graphmem.service.lifecycle.results import LifecycleItem
from graphmem.service.recall.decay_weights import decay_params

__all__ = ["decay_params", "describe", "memory_score"]

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

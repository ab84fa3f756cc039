"""Decay scores over the graph projection's columns (vectorized, no database reads) and per memory.

Ranking: ``final = relevance · (1 − w + w·min(score, 1))`` with ``w = Settings.decay.ranking_weight``.
Promoted memories are long-term memory: they do not fade, so their factor is 1. That one rule is what
puts active and promoted memories on one comparable score scale in ``memory_search``.
"""

from __future__ import annotations

import numpy as np

from graphmem.core.decay import DecayParams, danger_priority, in_danger_zone, ranking_factor, retention_score
from graphmem.core.spreading_graph import FloatArray, IntArray
from graphmem.core.values import STATUSES, Memory
from graphmem.service.lifecycle.results import LifecycleItem
from graphmem.settings import DecaySettings
from graphmem.store.convert import to_ms
from graphmem.store.projection import GraphProjection

__all__ = [
    "MS_PER_DAY",
    "MS_PER_HOUR",
    "decay_params",
    "describe",
    "memory_score",
    "node_scores",
    "ranking_weights",
    "review_priority",
]

MS_PER_HOUR = 3_600_000
MS_PER_DAY = 24 * MS_PER_HOUR
_ACTIVE, _PROMOTED = STATUSES.index("active"), STATUSES.index("promoted")


def decay_params(settings: DecaySettings) -> DecayParams:
    """The pure core parameters of the configured decay."""
    return DecayParams(**settings.model_dump(include=set(DecayParams.__dataclass_fields__)))


def node_scores(projection: GraphProjection, params: DecayParams, nodes: IntArray, now_ms: int) -> FloatArray:
    """Decay scores of memory ``nodes`` from the projection's use_count, last_used and strength columns."""
    age_hours = (now_ms - projection.col("last_used")[nodes]) / MS_PER_HOUR
    uses, strength = projection.col("use_count")[nodes], projection.col("strength")[nodes]
    scores: FloatArray = retention_score(uses, age_hours, strength, params)
    return scores


def ranking_weights(projection: GraphProjection, settings: DecaySettings, nodes: IntArray,
                    now_ms: int) -> FloatArray:
    """The factor decay puts on the relevance of each node (1 for promoted memories)."""
    scores = node_scores(projection, decay_params(settings), nodes, now_ms)
    factor = ranking_factor(scores, settings.ranking_weight)
    return np.where(projection.col("status")[nodes] == _PROMOTED, 1.0, factor)


def review_priority(projection: GraphProjection, settings: DecaySettings, nodes: IntArray,
                    now_ms: int) -> tuple[np.ndarray, FloatArray]:
    """Which active memory nodes sit in the danger zone, and their review priority."""
    scores = node_scores(projection, decay_params(settings), nodes, now_ms)
    active = projection.col("status")[nodes] == _ACTIVE
    flags = active & in_danger_zone(scores, settings.danger_low, settings.danger_high)
    return flags, np.where(flags, danger_priority(scores, settings.danger_low, settings.danger_high), 0.0)


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

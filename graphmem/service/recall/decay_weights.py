"""The decay factor recall puts on relevance, over the graph projection's columns (vectorized, no reads).

Ranking: ``final = relevance · (1 − w + w·min(score, 1))`` with ``w = Settings.decay.ranking_weight``.
Promoted memories are long-term memory: they do not fade, so their factor is 1. That one rule is what
puts active and promoted memories on one comparable score scale in ``memory_search``.

Recall owns these because it ranks and annotates with them; the lifecycle (above recall in the feature
stack) reuses them for its own per-memory scores (:mod:`graphmem.service.lifecycle.decay_scores`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from graphmem.core.decay import DecayParams, danger_priority, in_danger_zone, ranking_factor, retention_score
from graphmem.core.time import MS_PER_HOUR
from graphmem.core.values import STATUSES
from graphmem.settings import DecaySettings

if TYPE_CHECKING:  # decay_params is the lifecycle's too, in commands that never load the projection (scipy)
    from graphmem.core.spreading_graph import FloatArray, IntArray
    from graphmem.store.projection import GraphProjection

__all__ = ["decay_params", "node_scores", "ranking_weights", "review_priority"]

_ACTIVE, _PROMOTED = STATUSES.index("active"), STATUSES.index("promoted")


@functools.lru_cache(maxsize=8)  # frozen settings: a search asks for them four times (model_dump: ~15 µs each)
def decay_params(settings: DecaySettings) -> DecayParams:
    """The pure core parameters of the configured decay (frozen: one shared value per settings)."""
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


def review_priority(projection: GraphProjection, settings: DecaySettings, nodes: IntArray, now_ms: int,
                    scores: FloatArray | None = None) -> tuple[np.ndarray, FloatArray]:
    """Which active memory nodes sit in the danger zone, and their review priority (``scores``: the nodes'
    :func:`node_scores`, when the caller holds them)."""
    if scores is None:
        scores = node_scores(projection, decay_params(settings), nodes, now_ms)
    active = projection.col("status")[nodes] == _ACTIVE
    flags = active & in_danger_zone(scores, settings.danger_low, settings.danger_high)
    return flags, np.where(flags, danger_priority(scores, settings.danger_low, settings.danger_high), 0.0)

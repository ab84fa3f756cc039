"""Seed specificity, memory scoring and rank fusion.

Nested phrases: a query phrase inside a longer phrase the query also matched ("english cricketer" in
"english cricketer born") is the same evidence at a finer grain; at full weight a memory that repeats the long
phrase counted its words two or three times over one that says the same things in other words.

Specificity: a seed concept's weight is its inverse document frequency, ``ln(1 + N/df)``. A concept
in every memory says nothing about which memory is meant; TAM's own ablation found its graph tier
*lowered* R@10 until seeds were weighted by specificity and hubs were capped.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np

from graphmem.core.spreading_graph import FloatArray

Key = TypeVar("Key", bound=Hashable)  # what a ranking lists: memory nodes, or ids

__all__ = ["idf", "length_normalized", "min_max", "nested_phrases", "reciprocal_rank_fusion", "weighted_score_fusion"]


def idf(document_frequency: int, total_documents: int) -> float:
    """Smoothed inverse document frequency, ``ln(1 + N/df)``; always positive.

    >>> round(idf(1, 100), 3), round(idf(100, 100), 3)
    (4.615, 0.693)
    """
    return math.log1p(max(total_documents, 1) / max(document_frequency, 1))


def length_normalized(activation: FloatArray, lengths: FloatArray, exponent: float) -> FloatArray:
    """Divide activation by ``lengthᵉ`` so memories with many concepts do not win by size alone."""
    if exponent == 0.0:
        return activation
    return activation / np.power(np.maximum(lengths, 1.0), exponent)


def min_max(scores: Mapping[Key, float]) -> dict[Key, float]:
    """Scale scores to [0, 1]; a single or constant list maps to 1.0."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - low) / (high - low) for key, value in scores.items()}


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Key]], weights: Sequence[float],
                           k: float = 60.0) -> dict[Key, float]:
    """Weighted reciprocal-rank fusion (Cormack et al., 2009): ``Σ wᵢ / (k + rankᵢ)``.

    >>> fused = reciprocal_rank_fusion([["a", "b"], ["b", "c"]], [1.0, 1.0], k=1)
    >>> max(fused, key=fused.get)
    'b'
    """
    fused: dict[Key, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        get = fused.get
        for key, share in zip(ranking, [weight / (k + rank) for rank in range(1, len(ranking) + 1)], strict=True):
            fused[key] = get(key, 0.0) + share
    return fused


def weighted_score_fusion(score_lists: Sequence[Mapping[Key, float]], weights: Sequence[float]) -> dict[Key, float]:
    """Min-max normalize each score list, then take the weighted sum (missing = 0)."""
    fused: dict[Key, float] = {}
    for scores, weight in zip(score_lists, weights, strict=True):
        for key, value in min_max(scores).items():
            fused[key] = fused.get(key, 0.0) + weight * value
    return fused


def nested_phrases(names: Iterable[str]) -> set[str]:
    """The multi-word names that are a run of words inside a longer one of ``names``.

    >>> sorted(nested_phrases(["english cricketer born", "english cricketer", "cricketer born", "english"]))
    ['cricketer born', 'english cricketer']
    """
    given = set(names)
    inside: set[str] = set()
    for name in given:
        words = name.split()
        for size in range(2, len(words)):
            inside.update(" ".join(words[start:start + size]) for start in range(len(words) - size + 1))
    return inside & given

"""A hit's relevance: the probability that it is a hit an agent wants, the same scale for every query.

A ranking's own scores say only which memory comes first: a reciprocal-rank fusion gives the first hit
about 0.03 whether it answers the question or not. Relevance reads the evidence behind a hit that means
the same across queries, and maps it through a logistic fitted on the four dev sets
(``scripts/fit_relevance.py``), so that among hits shown at relevance 0.3 about three in ten are gold:

* ``coverage``: the share of the query's specific weight (IDF within the filter) the memory mentions;
* ``cosine``: the memory's cosine with the query's vector (0 without the semantic index);
* ``rank``: its position in the ranking (log), and ``share``: its ranking key over the first hit's.

Down one ranking relevance never rises (a running minimum): a hit ranked below another is shown as no more
likely than it, so the order is the one the score shows and a threshold cuts a prefix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.service.recall.semantic import SemanticLeg, mentioned_share, query_weights
from graphmem.service.recall.thresholds import DEFAULT_MIN_RELEVANCE  # the default cut, measured there
from graphmem.store.projection import GraphProjection

__all__ = ["COEFFICIENTS", "DEFAULT_MIN_RELEVANCE", "Evidence", "calibrated", "evidence"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a hit's relevance is computed from (kept on the hit so the fit can be reproduced)."""

    rank: int  # 1-based position in the ranking
    share: float  # the hit's ranking key over the first hit's, in [0, 1]
    coverage: float  # share of the query's specific weight the memory mentions, in [0, 1]
    cosine: float  # cosine of the memory with the query (0 without the semantic index)

    def row(self) -> tuple[float, float, float, float, float]:
        """The logistic's inputs: intercept, coverage, cosine, log rank, share."""
        return 1.0, self.coverage, self.cosine, math.log(self.rank), self.share


# Logistic coefficients (intercept, coverage, cosine, log rank, share) per tool, fitted by
# `python scripts/fit_relevance.py` on the four dev sets (MADial, LoCoMo, MuSiQue, HotpotQA: every hit of every
# question's list at the set's protocol depth, 5, 10, 15 and 15, labelled gold or not) and on 100 questions of
# another set asked of each store (every hit filler), the five weighted equally. Measured on 2026-12-01: in
# every relevance bin from 0.2 to 0.7 the share of gold hits is within 0.04 of the mean relevance (the table in
# docs/retrieval.md). The cosine carries most of the evidence; the rank says how far down the ranking's own
# confidence goes.
COEFFICIENTS: dict[str, tuple[float, float, float, float, float]] = {
    "search": (-2.034, 0.335, 4.127, -1.309, 0.096),
    "associate": (-1.231, 0.272, 4.604, -1.539, -0.906),
}


def evidence(projection: GraphProjection, leg: SemanticLeg, query: str, query_concepts: Sequence[str],
             seed_weights: dict[str, float], scope_size: int,
             ranked: Sequence[tuple[int, int, float]], top: float) -> list[Evidence]:
    """The evidence of each ``(node, rank, key)``; ``top`` is the ranking's first key. Hold the projection's lock."""
    nodes = np.array([node for node, _, _ in ranked], dtype=np.int64)
    coverage = mentioned_share(projection, query_weights(query_concepts, seed_weights, scope_size), nodes).tolist()
    cosines = [0.0] * len(ranked)
    if nodes.size and leg.enabled(projection):
        cosines = projection.semantic.memory_similarity(leg.query_vector(projection, query), nodes).tolist()
    return [Evidence(rank=rank, share=round(_share(key, top), 4), coverage=round(covered, 4),
                     cosine=round(max(float(cosine), 0.0), 4))
            for (_, rank, key), covered, cosine in zip(ranked, coverage, cosines, strict=True)]


def calibrated(tool: str, found: Sequence[Evidence]) -> list[float]:
    """Each hit's relevance in [0, 1], never rising down the ranking (rounded to 4 places)."""
    coefficients = COEFFICIENTS[tool]
    shown: list[float] = []
    for item in found:
        logit = sum(c * x for c, x in zip(coefficients, item.row(), strict=True))
        value = 1.0 / (1.0 + math.exp(-logit))
        shown.append(round(min(value, shown[-1]) if shown else value, 4))
    return shown


def _share(key: float, top: float) -> float:
    return min(max(key / top, 0.0), 1.0) if top > 0 else 0.0

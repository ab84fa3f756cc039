"""What the decay adds to ``memory_search``'s page: review blending and per-hit lifecycle fields.

Review blending (cortexgraph's "natural spaced repetition"): up to ``decay.review_blend`` of a first
page's slots go to *relevant* memories in the decay danger zone — candidates already in the fused
ranking, just below the cut — highest review priority first. They are marked ``review_candidate``
so an agent knows a touch would keep them. Later pages (offset > 0) are not blended, so paging
never shows a blended memory twice.

Both only read the projection's columns: reinforcing what was recalled is a separate write the
facade runs after the answer (``LifecycleService.after_recall``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphmem.core.decay import DecayParams
from graphmem.core.values import STATUSES
from graphmem.service.recall.decay_weights import node_scores, review_priority
from graphmem.settings import DecaySettings
from graphmem.store.projection import GraphProjection

__all__ = ["annotate", "review_page"]


def review_page(projection: GraphProjection, decay: DecaySettings, fused: list[Any], offset: int, limit: int,
                now_ms: int) -> list[Any]:
    """``fused[offset:offset+limit]`` with up to ``floor(review_blend · limit)`` review candidates."""
    page = list(fused[offset : offset + limit])
    slots = int(decay.review_blend * limit)
    if slots == 0 or offset > 0 or len(fused) <= len(page):
        return page
    nodes = np.array([entry[0] for entry in fused], dtype=np.int64)
    with projection.lock:
        flags, priority = review_priority(projection, decay, nodes, now_ms)
    wanted = slots - int(flags[: len(page)].sum())
    flagged = (np.flatnonzero(flags[len(page):]) + len(page)).tolist()  # the deeper candidates in the zone
    deeper = sorted(flagged, key=lambda i: (-priority[i], i))
    # Chosen by review priority, shown in ranking order: a page is ordered by the score it shows.
    extra = [fused[i] for i in sorted(deeper[: max(wanted, 0)])]
    return page[: limit - len(extra)] + extra if extra else page


def annotate(projection: GraphProjection, decay: DecaySettings, params: DecayParams, nodes: list[int],
             now_ms: int) -> list[tuple[str, float, bool]]:
    """Each memory node's status, decay score and review-candidate flag (from projection columns), for the hits
    the page builds with them (one pass: the decay score is computed once and flags the danger zone too)."""
    if not nodes:
        return []
    with projection.lock:
        at = np.asarray(nodes, dtype=np.int64)
        scores = node_scores(projection, params, at, now_ms)
        flags, _ = review_priority(projection, decay, at, now_ms, scores)
        statuses = [STATUSES[code] for code in projection.col("status")[at].tolist()]
    return [(status, round(score, 6), flag)
            for status, score, flag in zip(statuses, scores.tolist(), flags.tolist(), strict=True)]

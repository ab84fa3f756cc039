"""What the lifecycle adds to ``memory_search``: review blending and per-hit lifecycle fields.

Review blending (cortexgraph's "natural spaced repetition"): up to ``decay.review_blend`` of a first
page's slots go to *relevant* memories in the decay danger zone — candidates already in the fused
ranking, just below the cut — highest review priority first. They are marked ``review_candidate``
so an agent knows a touch would keep them. Later pages (offset > 0) are not blended, so paging
never shows a blended memory twice.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.core.values import STATUSES
from graphmem.service.lifecycle.decay_scores import node_scores, review_priority
from graphmem.service.recall.results import SearchResult

if TYPE_CHECKING:
    from graphmem.service.lifecycle.service import LifecycleService

__all__ = ["annotate", "review_page"]


def review_page(lifecycle: LifecycleService, fused: list[Any], offset: int, limit: int,
                now_ms: int) -> list[Any]:
    """``fused[offset:offset+limit]`` with up to ``floor(review_blend · limit)`` review candidates."""
    page = list(fused[offset : offset + limit])
    slots = int(lifecycle.settings.decay.review_blend * limit)
    if slots == 0 or offset > 0 or len(fused) <= len(page):
        return page
    nodes = np.array([entry[0] for entry in fused], dtype=np.int64)
    with lifecycle.projection.lock:
        flags, priority = review_priority(lifecycle.projection, lifecycle.settings.decay, nodes, now_ms)
    wanted = slots - int(flags[: len(page)].sum())
    deeper = sorted((i for i in range(len(page), len(fused)) if flags[i]), key=lambda i: (-priority[i], i))
    extra = [fused[i] for i in deeper[: max(wanted, 0)]]
    return page[: limit - len(extra)] + extra if extra else page


def annotate(lifecycle: LifecycleService, result: SearchResult, now_ms: int) -> SearchResult:
    """Each hit's status, decay score and review-candidate flag (from projection columns)."""
    if not result.hits:
        return result
    projection = lifecycle.projection
    with projection.lock:
        nodes = np.array([projection.memory_nodes[hit.id] for hit in result.hits], dtype=np.int64)
        scores = node_scores(projection, lifecycle.params, nodes, now_ms)
        flags, _ = review_priority(projection, lifecycle.settings.decay, nodes, now_ms)
        statuses = [STATUSES[int(code)] for code in projection.col("status")[nodes]]
    hits = tuple(replace(hit, status=status, decay_score=round(float(score), 6), review_candidate=bool(flag))
                 for hit, status, score, flag in zip(result.hits, statuses, scores, flags, strict=True))
    lifecycle.after_recall([hit.id for hit in hits])
    return replace(result, hits=hits)

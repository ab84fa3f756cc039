"""Near-duplicate pairs (cortexgraph's ``find_duplicates``): the same statement saved twice in other words.

A pair is a duplicate when its specific-concept similarity reaches the threshold **and** both
memories are of one kind: an error and the solution that fixed it share every specific concept, but
merging them would lose the fix (measured on data/: these were 4 of the 6 strongest false pairs).
"""

from __future__ import annotations

import numpy as np

from graphmem.service.clock import Clock
from graphmem.service.learning.clusters import DUPLICATE_THRESHOLD, similarity_of
from graphmem.service.learning.results import DuplicatePair, DuplicateReport
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, check_range

__all__ = ["DuplicateFinder"]

_PREVIEW_CHARS = 160


class DuplicateFinder:
    """The duplicate use case (reached as ``service.learning.duplicates``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock) -> None:
        self.uow = uow
        self.clock = clock

    def find(self, project: str | None = None, threshold: float | None = None, limit: int = 100) -> DuplicateReport:
        """Pairs of visible same-kind memories in one project scoring at least ``threshold``, strongest first."""
        floor = DUPLICATE_THRESHOLD if threshold is None else check_range("threshold", threshold, 0.05, 1.0)
        limit = check_count("limit", limit, 1, 10_000)
        similarity = similarity_of(self.uow, project, self.clock.now_ms(), floor)
        matrix, pairs = similarity.matrix, similarity.pairs
        same_kind = matrix.kinds[pairs.left] == matrix.kinds[pairs.right]
        chosen = [(int(a), int(b), float(s)) for a, b, s, keep in zip(
            pairs.left, pairs.right, pairs.similarity, same_kind, strict=True) if keep][:limit]
        ids = matrix.memory_ids
        memories = self.uow.repository.memories_by_id(ids[i] for a, b, _ in chosen for i in (a, b))
        found = []
        for a, b, score in chosen:
            left, right = memories[ids[a]], memories[ids[b]]
            found.append(DuplicatePair(
                left_id=left.id, right_id=right.id, score=round(score, 4),
                shared_concepts=similarity.concepts(np.array([a, b])), project=left.project, kind=left.kind,
                left_preview=left.content[:_PREVIEW_CHARS], right_preview=right.content[:_PREVIEW_CHARS]))
        return DuplicateReport(pairs=tuple(found), memories_considered=len(ids),
                               candidate_pairs=len(pairs), threshold=floor)

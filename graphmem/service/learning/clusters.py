"""Clusters of memories that share specific concepts (cortexgraph's ``cluster_memories``, done in sparse
algebra over the projection's mention matrix; see :mod:`graphmem.core.clustering`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphmem.core import clustering
from graphmem.service.clock import Clock
from graphmem.service.learning.results import ClusterItem, ClusterReport
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, check_range
from graphmem.store.learning_store import ConceptMatrix, concept_matrix, neighbourhood_matrix
from graphmem.store.projection import VisibilityFilter

__all__ = ["DUPLICATE_THRESHOLD", "LINK_THRESHOLD", "ClusterService", "Similarity", "neighbours_of", "similarity_of"]

# Measured on data/ (341 memories, blank pipeline): the six labelled near-duplicates score 0.52–0.81;
# the strongest same-kind pairs that are not repeats are two steps of one worker deploy (0.57, 0.50),
# so 0.5 finds all six with 2 false pairs (scripts/bench_learning.py prints the figures).
DUPLICATE_THRESHOLD = 0.5
# Related but not repeated (an error and its fix, a decision and its session summary) score 0.5–0.7:
# linking at 0.45 groups those; a cluster is never larger than cortexgraph's 12.
LINK_THRESHOLD = 0.45
MAX_CLUSTER_SIZE = 12
_CANDIDATE_FLOOR = 0.3  # pairs below this are never kept: cohesion counts them as 0
_PREVIEW_CHARS = 160


@dataclass(frozen=True, slots=True)
class Similarity:
    """The matrix of visible memories and the candidate pairs among them."""

    matrix: ConceptMatrix
    pairs: clustering.SimilarPairs
    max_df: int

    def concepts(self, rows: np.ndarray, limit: int = 8) -> tuple[str, ...]:
        columns = clustering.shared_concepts(self.matrix.matrix, rows, self.matrix.df, self.max_df, limit)
        return tuple(self.matrix.concept_keys[int(c)] for c in columns)


def similarity_of(uow: UnitOfWork, project: str | None, now_ms: int, floor: float) -> Similarity:
    """Candidate pairs (same project, cosine over specific concepts ≥ ``floor``) of the visible memories."""
    matrix = concept_matrix(uow.fresh(), VisibilityFilter(project=project), now_ms)
    max_df = clustering.specificity_cap(matrix.n_docs)
    pairs = clustering.similar_pairs(matrix.matrix, matrix.df, matrix.n_docs, matrix.projects,
                                     max_df=max_df, min_similarity=floor)
    return Similarity(matrix, pairs, max_df)


def neighbours_of(uow: UnitOfWork, memory_id: str, project: str | None, now_ms: int,
                  floor: float) -> Similarity | None:
    """:func:`similarity_of` for one memory: its candidate pairs only (row 0 is ``memory_id``), from the
    memories sharing one of its specific concepts, never the whole project. The scores equal the
    project-wide ones: the weights use the same document frequencies and memory count."""
    projection = uow.fresh()
    max_df = clustering.specificity_cap(projection.memory_count)
    matrix = neighbourhood_matrix(projection, memory_id, VisibilityFilter(project=project), now_ms, max_df)
    if matrix is None:
        return None
    pairs = clustering.similar_pairs(matrix.matrix, matrix.df, matrix.n_docs, matrix.projects,
                                     max_df=max_df, min_similarity=floor)
    return Similarity(matrix, pairs, max_df)


class ClusterService:
    """Cluster use cases (reached as ``service.learning.clusters``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock) -> None:
        self.uow = uow
        self.clock = clock

    def clusters(self, project: str | None = None, threshold: float | None = None,
                 max_cluster_size: int = MAX_CLUSTER_SIZE, limit: int = 50) -> ClusterReport:
        """Clusters of visible memories, strongest first, each with a stable id and a suggested action."""
        link = LINK_THRESHOLD if threshold is None else check_range("threshold", threshold, 0.05, 1.0)
        max_size = check_count("max_cluster_size", max_cluster_size, 2, 100)
        limit = check_count("limit", limit, 1, 1000)
        similarity = similarity_of(self.uow, project, self.clock.now_ms(), min(link, _CANDIDATE_FLOOR))
        found = clustering.clusters_from_pairs(len(similarity.matrix.memory_ids), similarity.pairs,
                                               link_threshold=link, max_size=max_size)
        items = self._items(similarity, found[:limit])
        return ClusterReport(clusters=items, memories_considered=len(similarity.matrix.memory_ids),
                             candidate_pairs=len(similarity.pairs), link_threshold=link,
                             max_cluster_size=max_size, specificity_cap=similarity.max_df)

    def _items(self, similarity: Similarity, found: list[clustering.Cluster]) -> tuple[ClusterItem, ...]:
        ids = similarity.matrix.memory_ids
        memories = self.uow.repository.memories_by_id(ids[int(r)] for c in found for r in c.members)
        items = []
        for cluster in found:
            member_ids = tuple(ids[int(r)] for r in cluster.members)
            members = [memories[m] for m in member_ids if m in memories]
            kinds = tuple(sorted({m.kind for m in members}))
            items.append(ClusterItem(
                id=clustering.cluster_id(member_ids), memory_ids=member_ids, cohesion=cluster.cohesion,
                shared_concepts=similarity.concepts(cluster.members),
                action=clustering.suggest_action(cluster.cohesion, len(kinds) == 1,
                                                 merge_threshold=DUPLICATE_THRESHOLD),
                project=members[0].project if members else None, kinds=kinds,
                previews=tuple(m.content[:_PREVIEW_CHARS] for m in members)))
        return tuple(items)

    def find(self, cluster_id: str) -> ClusterItem | None:
        """The cluster with this id as clustering finds it now (ids are stable while membership is)."""
        for threshold in (LINK_THRESHOLD, DUPLICATE_THRESHOLD, 0.3):
            report = self.clusters(threshold=threshold, limit=1000)
            for item in report.clusters:
                if item.id == cluster_id:
                    return item
        return None

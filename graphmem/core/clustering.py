"""Clusters and near-duplicates from the sparse memory × concept matrix.

Similarity is the cosine of IDF-weighted mention vectors, **restricted to specific concepts**: those
that at least two memories share (a concept one memory mentions can never be shared, and leaving it in
the norm punished long memories) and no more than ``max_df`` (hubs: a project-wide word such as
``run`` or ``worker`` would otherwise connect everything to everything). Candidate pairs come from
one sparse product ``R Rᵀ`` per group (project) over those columns, so the cost is the sum of
``df²`` over specific concepts, never all ``n²`` pairs.

Clusters are built Kruskal-style: candidate edges above the link threshold, strongest first, joined
by union-find unless the union would exceed ``max_size`` (single linkage without unbounded chains).
A cluster's id is a hash of its sorted member ids, so the same memories give the same id on every
run and in every process (cortexgraph's random ids made ``consolidate(cluster_id)`` unusable).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = [
    "Cluster",
    "SimilarPairs",
    "cluster_id",
    "clusters_from_pairs",
    "cohesion",
    "shared_concepts",
    "similar_pairs",
    "specific_columns",
    "specificity_cap",
    "suggest_action",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class SimilarPairs:
    """Candidate pairs ``(left[k], right[k])`` with ``left < right`` and their similarity, strongest first."""

    left: IntArray
    right: IntArray
    similarity: FloatArray

    def __len__(self) -> int:
        return int(self.left.size)


@dataclass(frozen=True, slots=True)
class Cluster:
    """Row indices of one cluster's members (ascending) and its cohesion."""

    members: IntArray
    cohesion: float


def specificity_cap(n_docs: int) -> int:
    """The largest document frequency a concept may have and still count as specific.

    ``2·√n`` bounded to [8, 200]: on the 341-memory sample that is 37 (about 11 %, above which words
    like ``run`` and ``worker`` sit); at 100k memories 200, which bounds the product's work by
    ``200²`` pairs per concept.

    >>> specificity_cap(341), specificity_cap(10), specificity_cap(100_000)
    (37, 8, 200)
    """
    return int(min(200, max(8, round(2 * np.sqrt(max(n_docs, 1))))))


def specific_columns(df: npt.ArrayLike, max_df: int) -> IntArray:
    """Columns of concepts shared by at least two memories and by at most ``max_df``.

    >>> specific_columns([1, 2, 5, 40], 37).tolist()
    [1, 2]
    """
    counts = np.asarray(df)
    return np.flatnonzero((counts >= 2) & (counts <= max_df)).astype(np.int64)


def similar_pairs(matrix: sp.csr_array, df: npt.ArrayLike, n_docs: int, groups: npt.ArrayLike, *,
                  max_df: int, min_similarity: float) -> SimilarPairs:
    """Pairs of rows in the same group whose specific-concept cosine is at least ``min_similarity``.

    ``matrix`` holds mention salience (rows: memories, columns: concepts), ``df`` each concept's
    document frequency over ``n_docs`` memories, ``groups`` a group code per row (pairs never cross
    groups).

    >>> m = sp.csr_array(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))
    >>> pairs = similar_pairs(m, [2, 3, 1], 10, [0, 0, 0], max_df=8, min_similarity=0.5)
    >>> pairs.left.tolist(), pairs.right.tolist(), [round(float(s), 3) for s in pairs.similarity]
    ([0, 0, 1], [1, 2, 2], [1.0, 0.633, 0.633])
    """
    weighted = _specific_tfidf(sp.csr_array(matrix), np.asarray(df, dtype=np.float64), n_docs, max_df)
    group_codes = np.asarray(groups)
    parts = [_group_pairs(weighted, np.flatnonzero(group_codes == code), min_similarity)
             for code in np.unique(group_codes)]
    left = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    right = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    similarity = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0)
    order = np.lexsort((right, left, -similarity))  # strongest first; ties in row order (deterministic)
    return SimilarPairs(left[order].astype(np.int64), right[order].astype(np.int64), similarity[order])


def _specific_tfidf(matrix: sp.csr_array, df: FloatArray, n_docs: int, max_df: int) -> sp.csr_array:
    """Rows L2-normalized over the specific columns, weighted salience · ln(1 + n/df); other columns zero."""
    keep = np.zeros(matrix.shape[1])
    columns = specific_columns(df, max_df)
    keep[columns] = np.log1p(n_docs / df[columns])  # smoothed: a concept shared by all of 2 memories still counts
    weighted = sp.csr_array(matrix @ sp.diags_array(keep))
    weighted.eliminate_zeros()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return sp.csr_array(sp.diags_array(scale) @ weighted)


def _group_pairs(weighted: sp.csr_array, rows: IntArray,
                 min_similarity: float) -> tuple[IntArray, IntArray, FloatArray]:
    if rows.size < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    block = weighted[rows]
    product = sp.coo_array(block @ block.T)
    upper = (product.row < product.col) & (product.data >= min_similarity - 1e-12)
    return rows[product.row[upper]], rows[product.col[upper]], np.minimum(product.data[upper], 1.0)


def clusters_from_pairs(n_rows: int, pairs: SimilarPairs, *, link_threshold: float,
                        max_size: int) -> list[Cluster]:
    """Kruskal-style single linkage over pairs ≥ ``link_threshold``, no cluster above ``max_size``.

    Clusters of two or more members, ordered by cohesion (then by first member).

    >>> pairs = SimilarPairs(np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([0.9, 0.8, 0.7]))
    >>> [c.members.tolist() for c in clusters_from_pairs(4, pairs, link_threshold=0.75, max_size=12)]
    [[0, 1, 2]]
    >>> [c.members.tolist() for c in clusters_from_pairs(4, pairs, link_threshold=0.75, max_size=2)]
    [[0, 1]]
    """
    parent = np.arange(n_rows)
    size = np.ones(n_rows, dtype=np.int64)
    strong = pairs.similarity >= link_threshold
    for a, b in zip(pairs.left[strong].tolist(), pairs.right[strong].tolist(), strict=True):
        root_a, root_b = _root(parent, a), _root(parent, b)
        if root_a != root_b and size[root_a] + size[root_b] <= max_size:
            parent[root_b] = root_a
            size[root_a] += size[root_b]
    roots = np.array([_root(parent, row) for row in range(n_rows)], dtype=np.int64)
    grouped = [np.flatnonzero(roots == root) for root in np.flatnonzero(size >= 2) if roots[root] == root]
    lookup = _pair_lookup(pairs)
    clusters = [Cluster(members.astype(np.int64), cohesion(members, lookup)) for members in grouped]
    return sorted(clusters, key=lambda c: (-c.cohesion, int(c.members[0])))


def _root(parent: IntArray, node: int) -> int:
    while parent[node] != node:
        parent[node] = parent[parent[node]]  # path halving
        node = int(parent[node])
    return node


def _pair_lookup(pairs: SimilarPairs) -> dict[tuple[int, int], float]:
    return dict(zip(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True), pairs.similarity.tolist(),
                    strict=True))


def cohesion(members: Sequence[int] | IntArray, similarity: dict[tuple[int, int], float]) -> float:
    """Mean pairwise similarity of ``members`` (a pair below the candidate floor counts as 0).

    >>> cohesion([0, 1, 2], {(0, 1): 0.9, (1, 2): 0.6})
    0.5
    """
    rows = sorted(int(m) for m in members)
    pairs = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1 :]]
    if not pairs:
        return 1.0
    return round(sum(similarity.get(pair, 0.0) for pair in pairs) / len(pairs), 6)


def cluster_id(member_ids: Sequence[str]) -> str:
    """A stable id for the set of ``member_ids`` (order does not matter).

    >>> cluster_id(["mem_b", "mem_a"]) == cluster_id(["mem_a", "mem_b"])
    True
    >>> cluster_id(["mem_a", "mem_b"])
    'clu_e1d2467a3fe154cf'
    """
    digest = hashlib.sha256("\n".join(sorted(member_ids)).encode()).hexdigest()
    return "clu_" + digest[:16]


def shared_concepts(matrix: sp.csr_array, members: IntArray, df: npt.ArrayLike, max_df: int,
                    limit: int = 8) -> IntArray:
    """Specific concept columns at least two members mention, the most widely shared and rarest first.

    >>> m = sp.csr_array(np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]]))
    >>> shared_concepts(m, np.array([0, 1]), [2, 3, 1], 8).tolist()
    [0, 1]
    """
    counts = np.asarray((sp.csr_array(matrix)[members] > 0).sum(axis=0)).ravel()
    frequency = np.asarray(df)
    candidates = np.flatnonzero((counts >= 2) & (frequency >= 2) & (frequency <= max_df))
    order = np.lexsort((candidates, frequency[candidates], -counts[candidates]))
    return candidates[order][:limit].astype(np.int64)


def suggest_action(cohesion_score: float, same_kind: bool, *, merge_threshold: float) -> str:
    """``merge`` (one statement said again), ``link`` (related, keep both) or ``keep``.

    Only memories of one kind merge: an error and the solution that fixed it, or a decision and the
    session summary that recaps it, are related, not repeats.

    >>> suggest_action(0.8, True, merge_threshold=0.6), suggest_action(0.8, False, merge_threshold=0.6)
    ('merge', 'link')
    >>> suggest_action(0.2, True, merge_threshold=0.6)
    'keep'
    """
    if same_kind and cohesion_score >= merge_threshold:
        return "merge"
    if cohesion_score >= merge_threshold / 2:
        return "link"
    return "keep"

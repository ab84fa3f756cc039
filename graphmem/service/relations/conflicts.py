"""The conflict scan: newest memories → graph neighbours sharing specific concepts → scored pairs.

Candidates come from the concept graph, not from full-text search: two memories are compared when
they mention at least one *specific* concept in common (a concept in few memories; a hub such as
"project" or "code" says nothing about whether two claims are about the same thing). The pair
decision is :func:`graphmem.core.conflicts.detect_conflict`; pairs already linked by any relation
(pending, judged or ignored) are left out, so a judged pair is never proposed again.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from graphmem.core.conflicts import ConflictCandidate, detect_conflict, pair_key, rank_conflicts
from graphmem.core.ranking import idf
from graphmem.core.values import Memory
from graphmem.service.cancellation import checkpoint
from graphmem.service.memories.results import brief
from graphmem.service.relations.claims import cached_claims
from graphmem.service.relations.results import ConflictPair, ScanResult
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, check_range, check_text
from graphmem.store import relation_store
from graphmem.store.projection import MEMORY, GraphProjection, VisibilityFilter

__all__ = ["ConflictScanner", "specificity_of"]

# A concept in at most 2 % of the memories, and never fewer than 25, is specific enough to make two
# memories "about the same thing" (with 10 000 memories that is df ≤ 200, the default hub cap).
_SPECIFIC_DF_FLOOR = 25
_SPECIFIC_FRACTION = 0.02
# The scan measures specificity among the memories it compares (one project by default), where
# a concept in at most 5 % of them, and never fewer than 8, is specific. Measured on the sample corpus
# (341 memories, 6 projects, full scan): store-wide df ≤ 25 over all projects gave 110 candidates with
# cross-project pairs such as a circuit breaker against a React upgrade (via "checkout", "route");
# per project with df ≤ 8 gives 47, and the three labelled contradictions rank 2, 3 and 6 (a floor of
# 6 loses the HTTP 500 one).
_SCOPED_DF_FLOOR = 8
_SCOPED_FRACTION = 0.05
# Neighbours compared per scanned memory, best shared specificity first: bounds the work at
# limit × 30 pair checks however dense the graph is.
_NEIGHBOURS_PER_MEMORY = 30
# Concepts followed per scanned memory, most salient first. A typical memory mentions 10 to 40; a maximal
# one (50,000 characters) about 20,000 with parts, and following each took 3.3 s per memory on a store of
# 9 (issue 25): 30 s for one scan. 128 keeps every concept of a normal memory.
_CONCEPTS_PER_MEMORY = 128


class ConflictScanner:
    """Finds contradiction candidates among recent memories (``service.conflicts``)."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def scan(self, limit: int = 50, project: str | None = None, max_candidates: int = 20,
             min_score: float = 0.0, *, across_projects: bool = False) -> ScanResult:
        """Compare each of the newest ``limit`` visible memories with its concept neighbours.

        At most ``max_candidates`` are returned, best first; the result says how many were ``found``
        and whether the cap ``truncated`` them. Neighbours come from the memory's own project unless
        ``across_projects``: two projects may use one word for different things ("port", "checkout").
        """
        limit = check_count("limit", limit, 1, 5_000)
        max_candidates = check_count("max_candidates", max_candidates, 1, 500)
        min_score = check_range("min_score", min_score, 0.0, 1.0)
        project = check_text("project", project, 200)
        pairs, specificity, scanned = self._candidate_pairs(limit, project, bool(across_projects))
        ids = sorted({memory_id for pair in pairs for memory_id in pair})
        memories = self.uow.repository.memories_by_id(ids)
        with self.uow.read() as session:
            relations = relation_store.pairs_among(session, ids)
        settled = {pair_key(r.source_id, r.target_id) for r in relations}
        claims = cached_claims(self.uow.extractor, [memories[i] for i in ids if i in memories])
        open_pairs = [(a, b) for a, b in pairs
                      if pair_key(a, b) not in settled and a in claims and b in claims]
        found = [c for c in (_checked(detect_conflict, claims[a], claims[b], specificity.get(pair_key(a, b), {}))
                             for a, b in open_pairs) if c is not None and c.score >= min_score]
        ranked = rank_conflicts(found)
        skipped = sum(pair_key(*p) in settled for p in pairs)
        return ScanResult(candidates=tuple(_pair(c, memories) for c in ranked[:max_candidates]),
                          scanned=scanned, pairs_compared=len(pairs), settled_pairs_skipped=skipped,
                          found=len(ranked), max_candidates=max_candidates,
                          truncated=len(ranked) > max_candidates, across_projects=bool(across_projects))

    def _candidate_pairs(self, limit: int, project: str | None, across_projects: bool) -> tuple[
            list[tuple[str, str]], dict[tuple[str, str], dict[str, float]], int]:
        """Pairs (newest memory, neighbour) sharing specific concepts, those concepts' weights, and how
        many memories were scanned."""
        projection = self.uow.fresh()
        pairs: list[tuple[str, str]] = []
        shared_by_pair: dict[tuple[str, str], dict[str, float]] = {}
        with projection.lock:
            visible = projection.visible(VisibilityFilter(project=project), _now_ms())
            newest = _newest(projection.col("created"), visible, limit)
            projects = projection.col("project")
            seen: set[tuple[str, str]] = set()
            for node in newest:
                checkpoint()  # a cancelled call stops here (service/cancellation.py)
                peers = visible if across_projects else visible & (projects == projects[node])
                shared = self._neighbours(int(node), peers)
                for other, weights in shared[:_NEIGHBOURS_PER_MEMORY]:
                    key = pair_key(projection.names[int(node)], projection.names[other])
                    if key not in seen:
                        seen.add(key)
                        pairs.append((projection.names[int(node)], projection.names[other]))
                        shared_by_pair[key] = weights
        return pairs, shared_by_pair, len(newest)

    def _neighbours(self, node: int, peers: np.ndarray) -> list[tuple[int, dict[str, float]]]:
        """Memories among ``peers`` sharing a specific concept with ``node``, most shared specificity first.

        Specific is measured among the peers (the memory's project, unless the scan crosses projects):
        "http" in a fifth of one service's memories is a hub there, however rare it is store-wide.
        """
        projection = self.uow.projection
        types = projection.col("node_type")
        scope = max(int(peers.sum()), 1)
        ceiling = max(_SCOPED_DF_FLOOR, _SCOPED_FRACTION * scope)
        shared: dict[int, dict[str, float]] = {}
        mentioned = [(concept, weight) for concept, weight in projection.concepts_of(node)
                     if projection.concept_kind.get(concept) != "part"]
        for concept, _ in heapq.nlargest(_CONCEPTS_PER_MEMORY, mentioned, key=lambda item: item[1]):
            targets, _ = projection.graph.neighbors(concept)
            others = targets[(types[targets] == MEMORY) & peers[targets]]
            if not 0 < len(others) <= ceiling:
                continue
            weight = idf(len(others), scope)
            for other in others.tolist():
                if other != node:
                    shared.setdefault(other, {})[projection.names[concept]] = weight
        return sorted(shared.items(), key=lambda item: (-sum(item[1].values()), item[0]))


def specificity_of(projection: GraphProjection, keys: Iterable[str]) -> dict[str, float]:
    """IDF weights of the ``keys`` that are specific concepts (not parts, not hubs)."""
    total = max(projection.memory_count, 1)
    ceiling = _specific_ceiling(total)
    # One pass over the columns (read once): composition asks this for every concept the activated memories
    # mention, 190,000 keys on a store of maximal memories, which took 4.3 s one lookup at a time.
    found = [(key, node) for key in keys if (node := projection.concept_nodes.get(key)) is not None]
    if not found:
        return {}
    nodes = np.fromiter((node for _, node in found), dtype=np.int64, count=len(found))
    df = projection.col("df")[nodes]
    names = projection.kind_names()
    codes = projection.col("concept_kind")[nodes]
    part = names.index("part") if "part" in names else -2
    keep = (df > 0) & (df <= ceiling) & (codes != part)
    return {found[index][0]: idf(int(df[index]), total) for index in np.flatnonzero(keep).tolist()}


def _specific_ceiling(total: int) -> float:
    return max(_SPECIFIC_DF_FLOOR, _SPECIFIC_FRACTION * total)


def _newest(created: np.ndarray, visible: np.ndarray, limit: int) -> np.ndarray:
    nodes = np.flatnonzero(visible)
    return nodes[np.argsort(-created[nodes], kind="stable")][:limit]


def _pair(candidate: ConflictCandidate, memories: dict[str, Memory]) -> ConflictPair:
    a, b = memories[candidate.a_id], memories[candidate.b_id]
    return ConflictPair(a=brief(a), b=brief(b), score=candidate.score, kind=candidate.kind,
                        reason=candidate.reason, shared_concepts=candidate.shared,
                        newer_id=candidate.newer_id,
                        suggested_relation="supersedes" if candidate.kind == "topic_key"
                        else "conflicts_with",
                        signals=candidate.signals)


def _checked(detect: Callable[..., ConflictCandidate | None], *args: Any) -> ConflictCandidate | None:
    """One pair's detection, after a cancellation checkpoint."""
    checkpoint()
    return detect(*args)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000

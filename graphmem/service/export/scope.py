"""Which part of the memory graph an export holds: the whole graph, one project, a time slice, or the
subgraph a query activates. :func:`select_nodes` picks the projection nodes; ``graph_build`` turns
them into one networkx graph with attributes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.core.time import to_ms
from graphmem.core.values import STATUSES
from graphmem.service.memories.learn_filter import LearnFilter
from graphmem.service.recall.engine import RecallEngine
from graphmem.service.validation import check_count, check_text, parse_instant
from graphmem.store.projection import CONCEPT, GraphProjection, VisibilityFilter

__all__ = ["ExportScope", "NodeSelection", "select_nodes"]


@dataclass(frozen=True, slots=True)
class ExportScope:
    """What to export.

    Without ``query`` and ``as_of`` every memory in every status is exported (status, validity and
    supersession are attributes), so an analysis tool sees the whole history; ``project`` narrows it
    to one project. ``as_of`` exports the time slice: exactly the memories recall shows at that
    instant. ``query`` exports what graphmem thinks is related to it: the memories
    ``memory_associate`` returns for the query (``max_results`` of them, same filters) and the query's
    seed concepts, plus the activated nodes within ``hops`` hops of those memories, walking memory →
    concept → memory and along relations (hops=1: their concepts; hops=2: also the activated memories
    sharing them), up to ``max_nodes`` nodes. ``outcome``, ``task_type`` and ``tools_used`` narrow
    any scope to the memories with that outcome, that task type, and every one of those tools.
    """

    project: str | None = None
    as_of: Any = None
    query: str | None = None
    hops: int = 1
    max_results: int = 10
    max_nodes: int = 2000
    outcome: str | None = None
    task_type: str | None = None
    tools_used: tuple[str, ...] = ()

    def narrow(self, view: VisibilityFilter) -> VisibilityFilter:
        """``view`` restricted by the scope's outcome, task type and tools."""
        return LearnFilter(self.outcome, self.task_type, self.tools_used).narrow(view)

    def describe(self) -> dict[str, Any]:
        """The scope as graph attributes (``None`` fields left out: GraphML and GEXF have no null)."""
        name = "query" if self.query else "time slice" if self.as_of is not None else (
            "project" if self.project else "whole graph")
        fields: dict[str, Any] = {"scope": name, "project": self.project, "query": self.query,
                                  "as_of": None if self.as_of is None else str(self.as_of), "outcome": self.outcome,
                                  "task_type": self.task_type, "tools_used": "; ".join(self.tools_used) or None}
        if self.query:
            fields.update(hops=self.hops, max_results=self.max_results)
        return {key: value for key, value in fields.items() if value is not None}


@dataclass(frozen=True, slots=True)
class NodeSelection:
    """Projection nodes of an export, with the activation that chose them (query scope only)."""

    nodes: np.ndarray  # sorted projection node indices
    activation: dict[int, float]
    ranked: tuple[int, ...]  # the memories associate returns, best first
    seeds: frozenset[int]
    truncated: bool


def select_nodes(recall: RecallEngine, scope: ExportScope) -> NodeSelection:
    """Pick the scope's nodes from the projection (call with ``projection.lock`` held)."""
    projection = recall.projection
    now_ms = time.time_ns() // 1_000_000
    instant = parse_instant("as_of", scope.as_of)
    as_of_ms = None if instant is None else to_ms(instant)
    if scope.query is None:
        if as_of_ms is None:  # everything: all statuses, superseded and expired memories included
            view = VisibilityFilter(project=scope.project, include_superseded=True, statuses=STATUSES)
        else:
            view = VisibilityFilter(project=scope.project, as_of_ms=as_of_ms)
        memories = np.flatnonzero(projection.visible(scope.narrow(view), now_ms))
        nodes = np.union1d(memories, _concepts_of(projection, memories))
        return NodeSelection(nodes, {}, (), frozenset(), truncated=False)
    return _activated(recall, scope, scope.narrow(VisibilityFilter(project=scope.project, as_of_ms=as_of_ms)),
                      now_ms)


def check_scope(recall: RecallEngine, scope: ExportScope) -> ExportScope:
    """Validate a scope at the boundary (raises InvalidInput naming the bad field)."""
    limits = recall.settings.limits
    query = scope.query
    if query is not None:
        query = (check_text("query", query, limits.max_query_chars, required=True) or "").strip()
    parse_instant("as_of", scope.as_of)
    narrowed = scope.narrow(VisibilityFilter())  # validates the learn fields
    return ExportScope(project=check_text("project", scope.project, 200) or None, as_of=scope.as_of,
                       outcome=scope.outcome, task_type=narrowed.task_types[0] if narrowed.task_types else None,
                       tools_used=narrowed.tools,
                       query=query, hops=check_count("hops", scope.hops, 0, 4),
                       max_results=check_count("max_results", scope.max_results, 1, limits.max_results),
                       max_nodes=check_count("max_nodes", scope.max_nodes, 1, 100_000))


def _concepts_of(projection: GraphProjection, memories: np.ndarray) -> np.ndarray:
    if memories.size == 0:
        return memories
    rows = projection.graph.adjacency()[memories]
    neighbours: np.ndarray = np.unique(rows.indices)
    concepts: np.ndarray = neighbours[projection.col("node_type")[neighbours] == CONCEPT]
    return concepts


def _activated(recall: RecallEngine, scope: ExportScope, view: VisibilityFilter,
               now_ms: int) -> NodeSelection:
    projection = recall.projection
    # The same call memory_associate makes (recall mode: depth = max_results), so the export holds
    # exactly the memories the tool returns for this query.
    activation = recall.activate(scope.query or "", view, now_ms, scope.max_results)
    ranked = tuple(node for node, _ in activation.ranked[: scope.max_results])
    seeds = frozenset(projection.concept_nodes[seed.name] for seed in activation.seeds)
    visible = projection.visible(view, now_ms)
    types = projection.col("node_type")
    chosen = dict.fromkeys([*ranked, *sorted(seeds)])
    vector = activation.vector
    frontier, truncated = list(ranked), False
    for _ in range(scope.hops):
        following: list[int] = []
        for node in frontier:
            targets, _weights = projection.graph.neighbors(node)
            for target in targets.tolist():
                if target in chosen or not _step(types, visible, vector, node, target):
                    continue
                if len(chosen) >= scope.max_nodes:
                    truncated = True
                    break
                chosen[target] = None
                following.append(target)
        frontier = following
    nodes = np.array(sorted(chosen), dtype=np.int64)
    values = {int(node): float(vector[node]) for node in nodes}
    return NodeSelection(nodes, values, ranked, seeds, truncated)


def _step(types: np.ndarray, visible: np.ndarray, activation: np.ndarray, node: int, target: int) -> bool:
    """Whether the expansion walks from ``node`` to ``target``: only onto nodes the query activated,
    memory → concept → memory (and along relations), never concept → concept, because a
    co-occurrence hop from every concept would pull in most of the vocabulary."""
    if activation[target] <= 0:
        return False
    if types[target] == CONCEPT:
        return bool(types[node] != CONCEPT)
    return bool(visible[target])

"""One page of the export graph for MCP clients, built from the projection's arrays: only the page's nodes
and edges become Python values.

``memory_export`` used to build the whole networkx graph of the scope for every page: 233,000 concept nodes
and 255,000 edges on a store of 12 maximal memories, 14-24 s for a 39 KB page (issue 25). The page here
holds the same nodes and edges with the same attributes as :func:`graph_build.build_export_graph` (the CLI's
file exports and ``tests/service/test_exporters.py`` compare them) in the same order: activated memories by
rank, the other memories by id, concepts by key; an edge on the page of its later endpoint. Selecting the
scope, ordering it and counting its edges are array operations; a page's edges stop at ``MAX_PAGE_EDGES``:
the page ends before the node that would pass it (``next_offset`` continues there), and a single node with
more edges than that shows the first ones and says ``edges_truncated``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.core.semantic import compact_form
from graphmem.core.values import Relation
from graphmem.service.cancellation import checkpoint
from graphmem.service.export.graph_build import CONCEPT_PREFIX, memory_attributes, relation_attributes
from graphmem.service.export.scope import ExportScope, check_scope, select_nodes
from graphmem.service.recall.engine import RecallEngine
from graphmem.service.validation import parse_instant
from graphmem.store.projection import CONCEPT, GraphProjection, VisibilityFilter

__all__ = ["MAX_PAGE_EDGES", "GraphPage", "export_page"]

MAX_PAGE_EDGES = 5_000  # about 600 KB of edges at most; the nodes are capped by limit and max_content_chars


@dataclass(frozen=True, slots=True)
class GraphPage:
    """One page of an export graph. Nodes come in a fixed order (activated memories by rank, other
    memories by id, concepts by key); an edge is on the page of its later endpoint, so paging
    through shows every edge exactly once and only after both of its ends."""

    scope: dict[str, Any]
    nodes: tuple[dict[str, Any], ...]
    edges: tuple[dict[str, Any], ...]
    activated: tuple[str, ...]
    total_nodes: int
    total_edges: int
    offset: int
    limit: int
    has_more: bool
    next_offset: int | None
    truncated: bool
    edges_truncated: bool = False  # one node had more than MAX_PAGE_EDGES edges: only the first are shown


@dataclass(frozen=True, slots=True)
class _Arranged:
    """The scope's nodes in page order and its projection edges as positions in that order."""

    order: np.ndarray  # the projection node at each position
    is_concept: np.ndarray  # by position
    names: list[str]  # memory id or concept key, by position
    memories: int  # positions [0, memories) are memories, the rest concepts
    source: np.ndarray  # kept projection edges (mention, concept-concept once): the source's position
    target: np.ndarray
    weight: np.ndarray


def export_page(recall: RecallEngine, scope: ExportScope, offset: int, limit: int, max_chars: int) -> GraphPage:
    """The page ``[offset, offset + limit)`` of ``scope``'s export graph (``scope`` validated here)."""
    scope = check_scope(recall, scope)
    projection = recall.projection
    with projection.lock:
        selection = select_nodes(recall, scope)
        checkpoint()
        arranged = _arrange(projection, selection.nodes, selection.ranked)
        window = arranged.order[offset : offset + limit].tolist()
        visible = projection.visible(VisibilityFilter(), _now_ms())
        seqs = {node: int(projection.col("seq")[node]) for node in window}
        kinds = {node: (projection.concept_kind.get(node, "term"), int(projection.col("df")[node])) for node in window}
        visible_now = {node for node in window if visible[node]}
        cooccurrence = projection.settings.cooccurrence
    checkpoint()
    position = {arranged.names[at]: at for at in range(arranged.memories)}
    relations = [r for r in _existing_at(recall.repository.relations_touching(position), scope)
                 if r.source_id in position and r.target_id in position]
    relation_ends = [(position[r.source_id], position[r.target_id]) for r in relations]
    end, cut = _page_end(arranged, relation_ends, offset, limit)
    memories = recall.repository.memories_by_seq(
        seqs[int(arranged.order[at])] for at in range(offset, end) if not arranged.is_concept[at])
    degree = _degrees(arranged, relation_ends)
    rank = {node: at for at, node in enumerate(selection.ranked, start=1)}
    nodes = []
    for at in range(offset, end):
        node = int(arranged.order[at])
        if arranged.is_concept[at]:
            kind, df = kinds[node]
            attributes: dict[str, Any] = {"node_type": "concept", "kind": kind, "label": arranged.names[at], "df": df}
            if selection.seeds:
                attributes["seed"] = node in selection.seeds
        elif (memory := memories.get(seqs[node])) is not None:
            attributes = memory_attributes(memory, node in visible_now)
            if node in rank:
                attributes["rank"] = rank[node]
        else:  # deleted since the projection was read: left out, as the graph build leaves it out
            continue
        if selection.activation:
            attributes["activation"] = round(selection.activation.get(node, 0.0), 8)
        attributes["degree"] = degree(at)
        nodes.append(_node_out(_node_id(arranged, at), attributes, max_chars))
    edges = _page_edges(arranged, relations, relation_ends, (offset, end), recall.settings.activation.relation_weight,
                        cooccurrence)
    has_more = end < len(arranged.order)
    return GraphPage(scope={**scope.describe(), "generator": "graphmem"}, nodes=tuple(nodes), edges=tuple(edges),
                     activated=tuple(arranged.names[:len(selection.ranked)]), total_nodes=len(arranged.order),
                     total_edges=len(arranged.source) + len(relations), offset=offset, limit=limit,
                     has_more=has_more, next_offset=end if has_more else None, truncated=selection.truncated,
                     edges_truncated=cut)


def _arrange(projection: GraphProjection, nodes: np.ndarray, ranked: tuple[int, ...]) -> _Arranged:
    """Page order (activated memories by rank, the other memories by id, concepts by key) and the kept edges:
    mentions (memory → concept) and concept–concept edges once (the lower node first), as in graph_build."""
    concept = projection.col("node_type")[nodes] == CONCEPT
    names = [projection.names[node] for node in nodes.tolist()]
    first = np.searchsorted(nodes, np.asarray(ranked, dtype=np.int64)).tolist()
    chosen = set(first)
    others = sorted((at for at in np.flatnonzero(~concept).tolist() if at not in chosen), key=names.__getitem__)
    concepts = sorted(np.flatnonzero(concept).tolist(), key=names.__getitem__)
    local = np.asarray([*first, *others, *concepts], dtype=np.int64)  # the local index at each position
    where = np.empty(len(nodes), dtype=np.int64)
    where[local] = np.arange(len(local))
    block = projection.graph.adjacency()[nodes][:, nodes].tocoo()
    row, column, weight = block.row, block.col, block.data
    keep = (weight > 0) & concept[column] & (~concept[row] | (row <= column))
    return _Arranged(order=nodes[local], is_concept=concept[local], names=[names[at] for at in local.tolist()],
                     memories=len(first) + len(others), source=where[row[keep]], target=where[column[keep]],
                     weight=weight[keep])


def _existing_at(relations: list[Relation], scope: ExportScope) -> list[Relation]:
    """The relations of a time slice: those created by ``as_of`` (all of them without one)."""
    instant = parse_instant("as_of", scope.as_of)
    if instant is None:
        return relations
    return [r for r in relations if r.created_at <= instant and r.status != "ignored"]


def _page_end(arranged: _Arranged, relation_ends: list[tuple[int, int]], offset: int,
              limit: int) -> tuple[int, bool]:
    """Where the page ends: ``offset + limit``, or before the node whose edges would pass ``MAX_PAGE_EDGES``
    (at least one node); and whether that one node alone has more."""
    total = len(arranged.order)
    stop = min(offset + limit, total)
    if stop <= offset:
        return offset, False
    later = np.maximum(arranged.source, arranged.target)
    later = later[(later >= offset) & (later < stop)]
    count = np.bincount(later - offset, minlength=stop - offset)
    for a, b in relation_ends:
        if offset <= max(a, b) < stop:
            count[max(a, b) - offset] += 1
    running = np.cumsum(count)
    fits = int(np.searchsorted(running, MAX_PAGE_EDGES, side="right"))
    return (offset + fits, False) if fits else (offset + 1, bool(count[0] > MAX_PAGE_EDGES))


def _degrees(arranged: _Arranged, relation_ends: list[tuple[int, int]]) -> Callable[[int], int]:
    """Distinct neighbours of a position, whatever the direction or number of edges."""
    counts = np.bincount(arranged.source, minlength=len(arranged.order)) + np.bincount(
        arranged.target, minlength=len(arranged.order))
    linked: dict[int, set[int]] = {}
    for a, b in relation_ends:
        linked.setdefault(a, set()).add(b)
        linked.setdefault(b, set()).add(a)
    return lambda at: int(counts[at]) + len(linked.get(at, ()))


def _page_edges(arranged: _Arranged, relations: list[Relation], relation_ends: list[tuple[int, int]],
                page: tuple[int, int], relation_weight: float, cooccurrence: bool) -> list[dict[str, Any]]:
    """The edges whose later end is on the page, sorted like the graph build's rows, ``MAX_PAGE_EDGES`` at most."""
    start, end = page
    later = np.maximum(arranged.source, arranged.target)
    rows: list[dict[str, Any]] = []
    for at in np.flatnonzero((later >= start) & (later < end)).tolist()[:MAX_PAGE_EDGES]:
        source, target = int(arranged.source[at]), int(arranged.target[at])
        family = "mention" if not arranged.is_concept[source] else _concept_family(arranged, source, target,
                                                                                  cooccurrence)
        rows.append({"source": _node_id(arranged, source), "target": _node_id(arranged, target),
                     "edge_type": family, "family": family, "weight": round(float(arranged.weight[at]), 8)})
    for relation, (a, b) in zip(relations, relation_ends, strict=True):
        if start <= max(a, b) < end and len(rows) < MAX_PAGE_EDGES:
            rows.append({"source": relation.source_id, "target": relation.target_id,
                         **relation_attributes(relation, relation_weight)})
    rows.sort(key=lambda row: (row["source"], row["target"], row["edge_type"], row.get("relation_id", "")))
    return rows


def _concept_family(arranged: _Arranged, a: int, b: int, cooccurrence: bool) -> str:
    if compact_form(arranged.names[a]) == compact_form(arranged.names[b]):
        return "same_form"
    return "cooccurrence" if cooccurrence else "related_concept"


def _node_id(arranged: _Arranged, at: int) -> str:
    return CONCEPT_PREFIX + arranged.names[at] if arranged.is_concept[at] else arranged.names[at]


def _node_out(node_id: str, attributes: dict[str, Any], max_chars: int) -> dict[str, Any]:
    out = {"id": node_id, **attributes}
    content = attributes.get("content")
    if isinstance(content, str) and len(content) > max_chars:
        out["content"] = content[:max_chars] + "…"
        out["content_truncated"] = True
    return out


def _now_ms() -> int:
    return time.time_ns() // 1_000_000

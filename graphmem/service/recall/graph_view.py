"""Paginated reads of the graph: a neighbourhood around a node, or a page of memories with their edges."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from graphmem.core.time import to_ms
from graphmem.core.values import Memory
from graphmem.errors import NotFound
from graphmem.service.recall.results import GraphView
from graphmem.store.projection import CONCEPT, GraphProjection, VisibilityFilter
from graphmem.store.repository import Repository

if TYPE_CHECKING:  # imported where a graph is built: networkx is 11 MiB of every server's fixed cost
    import networkx as nx

__all__ = ["graph_page"]

_CONCEPT_PREFIX = "concept:"


def graph_page(projection: GraphProjection, repository: Repository, *, center: str | None, depth: int,
               view: VisibilityFilter, now_ms: int, offset: int, limit: int) -> GraphView:
    """Nodes and edges of the neighbourhood of ``center`` (memory id or ``concept:<key>``) or of a page
    of visible memories, with node kinds, weights and relation types."""
    with projection.lock:
        visible = projection.visible(view, now_ms)
        if center is not None:
            start = _node_of(projection, center)
            around = projection.neighbourhood([start], depth, limit=offset + limit + 1_000)
            ordered = [start] + [n for n in sorted(around.nodes) if n != start and _shown(projection, visible, n)]
            page = ordered[offset : offset + limit]
            sub = around.subgraph(page)
        else:
            # Without a centre, page through visible memories and show each with its concepts.
            ordered = np.flatnonzero(visible).tolist()
            page = ordered[offset : offset + limit]
            around = projection.neighbourhood(page, 1, limit=len(page) * 50)
            # A relation edge reaches memories the filter hides (superseded, another project): keep
            # only concepts and visible memories, as the centred view does.
            sub = around.subgraph([n for n in around.nodes if _shown(projection, visible, n)])
    return _render(projection, repository, sub, page, total=len(ordered), offset=offset, limit=limit,
                   as_of_ms=view.as_of_ms)


def _node_of(projection: GraphProjection, ref: str) -> int:
    if ref.startswith(_CONCEPT_PREFIX) and ref[len(_CONCEPT_PREFIX):] in projection.concept_nodes:
        return projection.concept_nodes[ref[len(_CONCEPT_PREFIX):]]
    if ref in projection.memory_nodes:
        return projection.memory_nodes[ref]
    if ref in projection.concept_nodes:
        return projection.concept_nodes[ref]
    raise NotFound("node (memory id or concept:<name>)", ref)


def _shown(projection: GraphProjection, visible: np.ndarray, node: int) -> bool:
    return bool(projection.col("node_type")[node] == CONCEPT or visible[node])


def _render(projection: GraphProjection, repository: Repository, graph: nx.Graph[int], page: list[int], *,
            total: int, offset: int, limit: int, as_of_ms: int | None) -> GraphView:
    memory_seqs = [int(projection.col("seq")[n]) for n in graph.nodes if projection.col("node_type")[n] != CONCEPT]
    memories = {m.id: m for m in repository.memories_by_seq(memory_seqs).values()}
    relations = [r for r in repository.relations_touching(memories)
                 if as_of_ms is None or (to_ms(r.created_at) <= as_of_ms and r.status != "ignored")]
    relation_types = {(r.source_id, r.target_id): r.type for r in relations}
    nodes = [_node_dict(projection, n, memories) for n in graph.nodes]
    edges = [_edge_dict(projection, a, b, data.get("weight", 0.0), relation_types)
             for a, b, data in graph.edges(data=True)]
    if as_of_ms is not None:  # the projection holds today's relations; then, only those created by as_of
        edges = [e for e in edges if e["type"] != "relation"]
    return GraphView(nodes=tuple(nodes), edges=tuple(edges), total_nodes=total, offset=offset, limit=limit,
                     has_more=offset + len(page) < total)


def _node_dict(projection: GraphProjection, node: int, memories: dict[str, Memory]) -> dict[str, object]:
    name = projection.names[node]
    if projection.col("node_type")[node] == CONCEPT:
        return {"id": _CONCEPT_PREFIX + name, "type": "concept", "label": name,
                "kind": projection.concept_kind.get(node), "df": int(projection.col("df")[node])}
    memory = memories[name]
    return {"id": name, "type": "memory", "label": memory.content[:160], "kind": memory.kind,
            "project": memory.project, "status": memory.status, "created_at": memory.created_at.isoformat(),
            "valid_to": memory.valid_to.isoformat() if memory.valid_to else None}


def _edge_dict(projection: GraphProjection, a: int, b: int, weight: float,
               relation_types: dict[tuple[str, str], str]) -> dict[str, object]:
    types = projection.col("node_type")
    ids = [(_CONCEPT_PREFIX if types[n] == CONCEPT else "") + projection.names[n] for n in (a, b)]
    if types[a] == CONCEPT and types[b] == CONCEPT:
        kind = "cooccurrence"
    elif CONCEPT in (types[a], types[b]):
        kind = "mention"
    else:
        kind = relation_types.get((ids[0], ids[1])) or relation_types.get((ids[1], ids[0])) or "relation"
    return {"source": ids[0], "target": ids[1], "type": kind, "weight": round(float(weight), 6)}

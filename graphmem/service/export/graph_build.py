"""The export graph: one networkx ``MultiDiGraph`` of a scope, with every attribute analysis tools need.

Nodes are memories (id ``mem_…``) and concepts (id ``concept:<key>``). Attribute values are scalars
only (strings, numbers, booleans; lists joined with ``"; "``, ``meta`` as JSON) and ``None`` is left
out, because GraphML and GEXF have neither lists nor null. Nodes and edges are sorted by id, so the
same store always exports the same bytes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.core.relations import RELATION_TYPES
from graphmem.core.semantic import compact_form
from graphmem.core.values import Memory, Relation
from graphmem.service.export.scope import ExportScope, NodeSelection, check_scope, select_nodes
from graphmem.service.recall.engine import RecallEngine
from graphmem.service.validation import parse_instant
from graphmem.store.projection import CONCEPT, GraphProjection, VisibilityFilter

if TYPE_CHECKING:  # imported where a graph is built: networkx is 11 MiB of every server's fixed cost
    import networkx as nx

__all__ = ["CONCEPT_PREFIX", "ExportGraph", "build_export_graph"]

CONCEPT_PREFIX = "concept:"


@dataclass(frozen=True, slots=True)
class ExportGraph:
    """A scope's graph, the memories a query activated (best first) and whether a cap cut it."""

    graph: nx.MultiDiGraph[str]
    scope: ExportScope
    activated: tuple[str, ...] = ()
    truncated: bool = False
    order: tuple[str, ...] = field(default=())  # node ids: activated memories, other memories, concepts


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What the export needs from the projection, copied under its lock."""

    selection: NodeSelection
    names: dict[int, str]
    concepts: dict[int, tuple[str, int]]  # node → (concept kind, df)
    memory_seqs: dict[int, int]
    visible_now: frozenset[int]
    edges: list[tuple[int, int, float]]
    cooccurrence: bool = False  # whether the projection holds co-occurrence edges (activation.cooccurrence)


def build_export_graph(recall: RecallEngine, scope: ExportScope) -> ExportGraph:
    """Build the export graph of ``scope`` (validated here; raises InvalidInput)."""
    scope = check_scope(recall, scope)
    with recall.projection.lock:
        snapshot = _snapshot(recall.projection, select_nodes(recall, scope))
    memories = recall.repository.memories_by_seq(snapshot.memory_seqs.values())
    by_node = {node: memories[seq] for node, seq in snapshot.memory_seqs.items() if seq in memories}
    relations = _existing_at(recall.repository.relations_touching(m.id for m in by_node.values()), scope)
    import networkx as nx  # here: graph_page uses this module's attributes and builds no networkx graph

    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph(**scope.describe(), generator="graphmem")
    _add_nodes(graph, snapshot, by_node)
    ids = {node: _node_id(snapshot, node, by_node) for node in snapshot.selection.nodes.tolist()}
    _add_edges(graph, snapshot, ids, relations, recall.settings.activation.relation_weight)
    for node_id in graph.nodes:  # distinct neighbours, whatever the direction or number of edges
        neighbours = set(graph.successors(node_id)) | set(graph.predecessors(node_id))
        graph.nodes[node_id]["degree"] = len(neighbours)
    activated = tuple(by_node[node].id for node in snapshot.selection.ranked if node in by_node)
    return ExportGraph(graph, scope, activated, snapshot.selection.truncated, _order(graph, activated))


def _existing_at(relations: list[Relation], scope: ExportScope) -> list[Relation]:
    """The relations of a time slice: those created by ``as_of`` (all of them without one)."""
    instant = parse_instant("as_of", scope.as_of)
    if instant is None:
        return relations
    return [r for r in relations if r.created_at <= instant and r.status != "ignored"]


def _order(graph: nx.MultiDiGraph[str], activated: tuple[str, ...]) -> tuple[str, ...]:
    """Page order: activated memories by rank, then the other memories, then concepts (each by id)."""
    first = set(activated)
    rest = sorted(node for node in graph.nodes if node not in first)
    return (*activated, *(n for n in rest if not n.startswith(CONCEPT_PREFIX)),
            *(n for n in rest if n.startswith(CONCEPT_PREFIX)))


def _snapshot(projection: GraphProjection, selection: NodeSelection) -> _Snapshot:
    nodes = selection.nodes
    types = projection.col("node_type")
    now_ms = time.time_ns() // 1_000_000
    visible = projection.visible(VisibilityFilter(), now_ms)
    concepts = {n: (projection.concept_kind.get(n, "term"), int(projection.col("df")[n]))
                for n in nodes.tolist() if types[n] == CONCEPT}
    seqs = {n: int(projection.col("seq")[n]) for n in nodes.tolist() if types[n] != CONCEPT}
    return _Snapshot(selection, {n: projection.names[n] for n in nodes.tolist()}, concepts, seqs,
                     frozenset(n for n in seqs if visible[n]), _weighted_edges(projection, nodes),
                     projection.settings.cooccurrence)


def _weighted_edges(projection: GraphProjection, nodes: np.ndarray) -> list[tuple[int, int, float]]:
    """Mention (memory → concept) and co-occurrence (concept ↔ concept, once) edges among ``nodes``.

    Memory–memory entries are left to the relation table: the projection sums parallel relations.
    """
    if nodes.size == 0:
        return []
    block = projection.graph.adjacency()[nodes][:, nodes].tocoo()
    is_concept = projection.col("node_type")[nodes] == CONCEPT
    edges = []
    for i, j, weight in zip(block.row.tolist(), block.col.tolist(), block.data.tolist(), strict=True):
        if weight <= 0 or not is_concept[j] or (is_concept[i] and i > j):
            continue
        edges.append((int(nodes[i]), int(nodes[j]), float(weight)))
    return edges


def _node_id(snapshot: _Snapshot, node: int, memories: dict[int, Memory]) -> str:
    if node in snapshot.concepts:
        return CONCEPT_PREFIX + snapshot.names[node]
    return memories[node].id if node in memories else snapshot.names[node]


def _add_nodes(graph: nx.MultiDiGraph[str], snapshot: _Snapshot, memories: dict[int, Memory]) -> None:
    selection = snapshot.selection
    rank = {node: position for position, node in enumerate(selection.ranked, start=1)}
    rows = []
    for node in selection.nodes.tolist():
        if node in snapshot.concepts:
            kind, df = snapshot.concepts[node]
            name = snapshot.names[node]
            attributes: dict[str, Any] = {"node_type": "concept", "kind": kind, "label": name, "df": df}
            if selection.seeds:
                attributes["seed"] = node in selection.seeds
        elif node in memories:
            attributes = memory_attributes(memories[node], node in snapshot.visible_now)
            if node in rank:
                attributes["rank"] = rank[node]
        else:  # written after the snapshot was taken and not yet readable: leave it out
            continue
        if selection.activation:
            attributes["activation"] = round(selection.activation.get(node, 0.0), 8)
        rows.append((_node_id(snapshot, node, memories), attributes))
    graph.add_nodes_from(sorted(rows, key=lambda row: row[0]))


def memory_attributes(memory: Memory, visible: bool) -> dict[str, Any]:
    """A memory's fields as scalar node attributes (``visible``: shown by default recall now)."""
    attributes: dict[str, Any] = {
        "node_type": "memory", "kind": memory.kind, "label": _short(memory.content),
        "content": memory.content,
        "status": memory.status, "visible": visible, "strength": float(memory.strength),
        "use_count": int(memory.use_count), "created_at": memory.created_at.isoformat(),
        "last_used_at": memory.last_used_at.isoformat(), "valid_from": memory.valid_from.isoformat(),
    }
    optional = {
        "project": memory.project, "topic_key": memory.topic_key, "source": memory.source,
        "context": memory.context, "session_id": memory.session_id, "superseded_by": memory.superseded_by,
        "parent_id": memory.parent_id, "tags": "; ".join(memory.tags) or None,
        "entities": "; ".join(memory.entities) or None, "outcome": memory.outcome,
        "task_type": memory.task_type, "tools_used": "; ".join(memory.tools_used) or None,
        "valid_to": memory.valid_to.isoformat() if memory.valid_to else None,
        "review_after": memory.review_after.isoformat() if memory.review_after else None,
        "meta": _json(memory.meta),
    }
    attributes.update((key, value) for key, value in optional.items() if value is not None)
    return attributes


def _json(meta: Any) -> str | None:
    return json.dumps(dict(meta), sort_keys=True, ensure_ascii=False) if meta else None


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _add_edges(graph: nx.MultiDiGraph[str], snapshot: _Snapshot, ids: dict[int, str], relations: list[Relation],
               relation_weight: float) -> None:
    rows: list[tuple[str, str, dict[str, Any]]] = []
    for a, b, weight in snapshot.edges:
        if ids[a] in graph and ids[b] in graph:
            family = "mention" if a not in snapshot.concepts else _concept_family(snapshot, a, b)
            rows.append((ids[a], ids[b], {"edge_type": family, "family": family, "weight": round(weight, 8)}))
    for relation in relations:
        if relation.source_id in graph and relation.target_id in graph:
            attributes = relation_attributes(relation, relation_weight)
            rows.append((relation.source_id, relation.target_id, attributes))
    rows.sort(key=lambda row: (row[0], row[1], row[2]["edge_type"], row[2].get("relation_id", "")))
    # types-networkx gives MultiDiGraph Graph's add_edges_from, without the (u, v, key, data) form
    graph.add_edges_from((source, target, key, data)  # type: ignore[misc]
                         for key, (source, target, data) in enumerate(rows))


def _concept_family(snapshot: _Snapshot, a: int, b: int) -> str:
    """A concept–concept edge: two spellings of one concept (the semantic index's join), a relatedness edge
    (when co-occurrence is not projected, the only other source), or a co-occurrence."""
    if compact_form(snapshot.names[a]) == compact_form(snapshot.names[b]):
        return "same_form"
    return "cooccurrence" if snapshot.cooccurrence else "related_concept"


def relation_attributes(relation: Relation, relation_weight: float) -> dict[str, Any]:
    """A typed relation as edge attributes; ``weight`` is the weight activation flows with."""
    semantics = RELATION_TYPES.get(relation.type)
    spread = semantics.spread if semantics else 0.0
    attributes: dict[str, Any] = {
        "edge_type": relation.type, "family": "relation", "label": relation.type, "relation_id": relation.id,
        "weight": round(relation_weight * spread * relation.confidence, 8), "confidence": relation.confidence,
        "status": relation.status, "created_at": relation.created_at.isoformat(),
        "symmetric": bool(semantics and semantics.symmetric),
        "recall_effect": semantics.recall if semantics else "none",
    }
    optional = {"reason": relation.reason, "evidence": relation.evidence,
                "judged_at": relation.judged_at.isoformat() if relation.judged_at else None,
                "meta": _json(relation.meta)}
    attributes.update((key, value) for key, value in optional.items() if value is not None)
    return attributes

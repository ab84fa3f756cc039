"""Statistics of the memory graph: counts by kind, degree distribution, top concepts, connected
components, orphans and communities.

Everything is computed from the graph projection (the CSR every recall uses), never by reloading
rows, so ``memory_status`` stays cheap. Communities use networkx Louvain with a fixed seed, so the
same graph always reports the same communities; above ``community_limit`` nodes they are skipped
(Louvain is roughly O(m log n) but still seconds on a million edges) and the reason is reported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from graphmem.store.projection import CONCEPT, GraphProjection

if TYPE_CHECKING:  # imported where a graph is built: networkx is 11 MiB of every server's fixed cost
    import networkx as nx

__all__ = ["COMMUNITY_SEED", "GraphStats", "graph_stats", "render_stats"]

COMMUNITY_SEED = 42
_TOP = 10


@dataclass(frozen=True, slots=True)
class GraphStats:
    """A summary of the graph's shape (plain values; the MCP layer mirrors it in ``GraphStatsOut``)."""

    nodes: int
    edges: int
    memories: int
    concepts: int
    concept_kinds: dict[str, int]
    edge_families: dict[str, int]
    degree: dict[str, Any]
    top_concepts: list[dict[str, Any]]
    components: dict[str, Any]
    orphans: dict[str, Any]
    communities: dict[str, Any] = field(default_factory=dict)


def graph_stats(projection: GraphProjection, community_limit: int = 20_000) -> GraphStats:
    """Statistics of the whole projection (every memory, whatever its status)."""
    with projection.lock:
        adjacency = projection.graph.adjacency()
        types = projection.col("node_type").copy()
        df = projection.col("df").copy()
        names = list(projection.names)
        concept_kinds = Counter(projection.concept_kind.values())
    # Undirected, one entry per neighbour pair: mention edges are stored in both directions with
    # different weights (salience vs salienceᵉ), so average them.
    undirected = sp.csr_array((adjacency + adjacency.T) / 2.0)
    undirected.eliminate_zeros()
    degree = np.diff(undirected.indptr)
    is_concept = types == CONCEPT
    graph = None
    if 0 < len(types) <= community_limit:
        import networkx as nx  # here, not at import: 11 MiB of every server's fixed cost

        graph = nx.from_scipy_sparse_array(undirected)
    return GraphStats(
        nodes=len(types), edges=int(undirected.nnz // 2), memories=int((~is_concept).sum()),
        concepts=int(is_concept.sum()), concept_kinds=dict(sorted(concept_kinds.items())),
        edge_families=_edge_families(undirected, is_concept, dict(projection.semantic.edge_counts)),
        degree=_degree_summary(degree),
        top_concepts=_top_concepts(names, df, degree, is_concept),
        components=_components(undirected, graph), orphans=_orphans(names, degree, is_concept),
        communities=_communities(graph, len(types), names, df, is_concept, community_limit))


def _edge_families(undirected: sp.csr_array, is_concept: np.ndarray, semantic: dict[str, int]) -> dict[str, int]:
    """Edges by the kinds of their ends; concept–concept edges split into co-occurrence and the semantic
    index's form joins and relatedness edges (it counts what it adds; a pair of both kinds counts once)."""
    upper = sp.triu(undirected, k=1).tocoo()
    a, b = is_concept[upper.row], is_concept[upper.col]
    between_concepts = int((a & b).sum())
    form = min(semantic.get("form", 0), between_concepts)
    related = min(semantic.get("related", 0), between_concepts - form)
    families = {"mention": int((a != b).sum()), "cooccurrence": between_concepts - form - related}
    if form or related:
        families |= {"same_form": form, "related_concept": related}
    return families | {"relation": int((~a & ~b).sum())}


def _degree_summary(degree: np.ndarray) -> dict[str, Any]:
    """Min/mean/median/max and a log₂-bucketed histogram (``"0"``, ``"1"``, ``"2-3"``, ``"4-7"``, …)."""
    if degree.size == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "median": 0.0, "histogram": {}}
    buckets: Counter[str] = Counter()
    for value in degree.tolist():
        low = 0 if value == 0 else 1 << (int(value).bit_length() - 1)
        buckets["0" if value == 0 else str(low) if low == 1 else f"{low}-{2 * low - 1}"] += 1
    ordered = dict(sorted(buckets.items(), key=lambda item: int(item[0].split("-")[0])))
    return {"min": int(degree.min()), "max": int(degree.max()), "mean": round(float(degree.mean()), 3),
            "median": float(np.median(degree)), "histogram": ordered}


def _top_concepts(names: list[str], df: np.ndarray, degree: np.ndarray, is_concept: np.ndarray) -> list[dict[str, Any]]:
    concepts = np.flatnonzero(is_concept)
    order = concepts[np.lexsort((concepts, -degree[concepts], -df[concepts]))][:_TOP]
    return [{"concept": names[n], "memories": int(df[n]), "degree": int(degree[n])} for n in order.tolist()]


def _components(undirected: sp.csr_array, graph: nx.Graph[int] | None) -> dict[str, Any]:
    """Connected components: a walk of the communities' networkx graph when there is one (up to
    ``community_limit`` nodes, milliseconds); scipy's C routine above it."""
    if undirected.shape[0] == 0:
        return {"count": 0, "largest": 0, "sizes": []}
    if graph is not None:
        import networkx as nx  # loaded already: the communities' graph is one

        # scipy.sparse.csgraph imports scipy.sparse.linalg and scipy.linalg: 50 ms on a quiet machine, 0.2-0.4 s
        # of CPU under load, most of what `graphmem stats` on a small store spent past the service's own imports.
        sizes = sorted((len(component) for component in nx.connected_components(graph)), reverse=True)
    else:
        from scipy.sparse.csgraph import connected_components

        _, labels = connected_components(undirected, directed=False)
        sizes = sorted(np.bincount(labels).tolist(), reverse=True)
    return {"count": len(sizes), "largest": sizes[0], "sizes": sizes[:_TOP]}


def _orphans(names: list[str], degree: np.ndarray, is_concept: np.ndarray) -> dict[str, Any]:
    """Memories with no concept and no relation (unreachable by activation), and unused concepts."""
    memories = np.flatnonzero(~is_concept & (degree == 0))
    return {"memories": int(memories.size), "memory_ids": [names[n] for n in memories[:20].tolist()],
            "concepts": int((is_concept & (degree == 0)).sum())}


def _communities(graph: nx.Graph[int] | None, n: int, names: list[str], df: np.ndarray, is_concept: np.ndarray,
                 limit: int) -> dict[str, Any]:
    if n == 0:
        return {"method": "louvain", "count": 0, "largest": []}
    if graph is None:
        return {"method": "louvain", "skipped": f"graph has {n:,} nodes (limit {limit:,}); "
                                                "export it and use a dedicated tool"}
    import networkx as nx  # here, not at import: 11 MiB of every server's fixed cost

    communities = nx.community.louvain_communities(graph, weight="weight", seed=COMMUNITY_SEED)
    found = sorted((sorted(c) for c in communities), key=lambda c: (-len(c), c[0]))
    largest = []
    for members in found[:5]:
        concepts = [m for m in members if is_concept[m]]
        top = sorted(concepts, key=lambda m: (-df[m], names[m]))[:3]
        largest.append({"size": len(members), "memories": len(members) - len(concepts),
                        "top_concepts": [names[m] for m in top]})
    modularity = (nx.community.modularity(graph, [set(c) for c in found], weight="weight")
                  if graph.number_of_edges() else 0.0)
    return {"method": "louvain", "seed": COMMUNITY_SEED, "count": len(found),
            "modularity": round(float(modularity), 4), "largest": largest}


# Three edge counts that differ on purpose: the stored co-occurrence rows (projected only with
# activation.cooccurrence), the recall matrix's entries (each edge both ways), and the graph statistics' edges.
_LABELS = {"concept_edges": "co-occurrence rows", "graph_edges": "graph matrix entries (each edge both ways)"}


def render_stats(status: dict[str, Any]) -> str:
    """Readable text of ``MemoryService.status()`` with its ``graph`` statistics."""
    lines = [f"{_LABELS.get(key, key.replace('_', ' '))}: {_readable(value)}" for key, value in status.items()
             if key != "graph"]
    graph = status.get("graph")
    if graph:
        stats = graph if isinstance(graph, dict) else {f: getattr(graph, f) for f in GraphStats.__slots__}
        degree, components = stats["degree"], stats["components"]
        lines += [f"graph: {stats['nodes']} nodes ({stats['memories']} memories, "
                  f"{stats['concepts']} concepts), {stats['edges']} edges ({_readable(stats['edge_families'])})",
                  f"degree: min {degree['min']}, median {degree['median']}, mean {degree['mean']}, "
                  f"max {degree['max']}; histogram {', '.join(f'{k}: {v}' for k, v in degree['histogram'].items())}",
                  "top concepts: " + ", ".join(f"{c['concept']} ({c['memories']})"
                                               for c in stats["top_concepts"]),
                  f"components: {components['count']} (largest {components['largest']})",
                  f"orphans: {stats['orphans']['memories']} memories, "
                  f"{stats['orphans']['concepts']} concepts"]
        communities = stats["communities"]
        lines.append(f"communities: {communities.get('skipped') or communities.get('count')}"
                     + (f" (modularity {communities['modularity']})" if "modularity" in communities else ""))
        lines += [f"  {c['size']} nodes, {c['memories']} memories: {', '.join(c['top_concepts'])}"
                  for c in communities.get("largest", [])]
    return "\n".join(lines)


def _readable(value: Any) -> str:
    """A mapping as ``key value, key value``; a list as ``a, b``; anything else as itself."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_readable(item)}" for key, item in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(_readable(item) for item in value) or "-"
    return str(value)

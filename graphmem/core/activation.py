"""Spreading activation as sparse algebra: personalized PageRank and hop-limited spreading.

Both kernels start from a seed vector ``s`` (the query's concepts, weighted by specificity) and
propagate with the row-normalized transition ``P = D⁻¹A`` of a :class:`SpreadingGraph`, so a hub
spreads thinly over its many neighbours (the ACT-R fan effect).

* :func:`personalized_pagerank` iterates ``a ← (1-α)·s + α·Pᵀa`` (random walk with restart) until
  the L1 change drops below ``tol``. HippoRAG uses a restart probability of about 0.5, which is
  our default ``α = 0.5``: activation halves per hop, so two hops keep a quarter of the mass and
  nothing needs a firing threshold (the threshold is what silently killed hop 2 in TAM).
* :func:`hop_spread` computes ``a_k = s + Σ_{h≤k} βʰ (Pᵀ)ʰ s`` by frontier products and keeps
  every hop's vector so a result can say on which hop a node lit up.

**Dangling nodes** (no out-edge: a memory without concepts, a concept whose only edges were
retracted). PageRank gives their mass back to the seeds, as networkx's ``pagerank`` does with its
default ``dangling`` weights (the personalization vector), so the walk's mass stays 1 and the fixed
point matches networkx. The hop sum deliberately does not: it is a truncated series, not a
stationary distribution, so a dangling node keeps its own activation in the total and passes none
on; restarting it at the seeds would re-add seed mass on every hop and rank the query's own concepts
above what they reach. (On the projection every mention, relation and fact edge is added both ways,
so activation never reaches a dangling node from a seed; measured on MuSiQue and HotpotQA, see
``docs/retrieval.md``.)

Both have pure-Python reference implementations used by the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from graphmem.core.spreading_graph import FloatArray, IntArray, RestrictedGraph, SpreadingGraph, sum_sparse

__all__ = [
    "ActivationDidNotConverge",
    "HopActivation",
    "hop_spread",
    "hop_spread_sparse",
    "personalized_pagerank",
    "reference_hop_spread",
    "reference_pagerank",
]


class ActivationDidNotConverge(RuntimeError):
    """Personalized PageRank did not reach ``tol`` within ``max_iter`` iterations."""

    def __init__(self, max_iter: int, residual: float) -> None:
        self.max_iter = max_iter
        self.residual = residual
        super().__init__(f"activation did not converge in {max_iter} iterations (L1 residual {residual:.3g})")


@dataclass(frozen=True, slots=True)
class HopActivation:
    """Total activation plus the per-hop frontier vectors (``per_hop[0]`` is the seed vector)."""

    total: FloatArray
    per_hop: tuple[FloatArray, ...]

    def first_hop(self) -> IntArray:
        """For each node, the first hop at which it was activated, or -1 if never."""
        first = np.full(self.total.shape, -1, dtype=np.int64)
        for hop, frontier in enumerate(self.per_hop):
            first[(first < 0) & (frontier > 0)] = hop
        return first


def personalized_pagerank(
    graph: SpreadingGraph,
    seeds: FloatArray,
    *,
    alpha: float = 0.5,
    max_iter: int = 50,
    tol: float = 1e-6,
    prune: float = 0.0,
) -> FloatArray:
    """Random walk with restart from ``seeds`` (normalized to sum 1).

    Parameters
    ----------
    graph : SpreadingGraph
    seeds : ndarray
        Non-negative seed weights, one per node.
    alpha : float
        Probability of continuing the walk (1 - restart probability), in [0, 1).
    max_iter, tol : int, float
        Stop when the L1 change of an iteration is below ``tol``.
    prune : float
        Drop activations below ``prune`` after each step, so the frontier stays sparse on large
        graphs. 0 gives the exact fixed point.

    Raises
    ------
    ActivationDidNotConverge
        If ``max_iter`` iterations do not reach ``tol``.

    Examples
    --------
    >>> g = SpreadingGraph(); _ = g.add_nodes(2)
    >>> g.add_edges([0, 1], [1, 0], [1.0, 1.0])
    >>> a = personalized_pagerank(g, np.array([1.0, 0.0]), alpha=0.5)
    >>> [round(float(x), 4) for x in a]
    [0.6667, 0.3333]
    """
    if not 0.0 <= alpha < 1.0:
        raise ValueError("alpha must be in [0, 1)")
    restart = _normalized(seeds)
    activation = restart.copy()
    dangling = np.flatnonzero(graph.out_strength == 0)  # usually none: the projection links both ways
    residual = float("inf")
    for _ in range(max_iter):
        stranded = float(activation[dangling].sum())  # goes back to the seeds, as in networkx
        updated = (1.0 - alpha) * restart + alpha * (graph.spread(activation, min_share=prune) + stranded * restart)
        pruned_mass = 0.0
        if prune > 0.0:
            small = updated < prune
            pruned_mass = float(updated[small].sum())
            updated[small] = 0.0
        previous, residual = residual, float(np.abs(updated - activation).sum())
        activation = updated
        # Pruning perturbs every step by the mass it drops (and the push threshold holds back small
        # shares), so the approximate iteration settles at a floor instead of at zero: converged
        # means the change is within tol of the dropped mass, or has stopped shrinking.
        if residual < tol + pruned_mass or (prune > 0.0 and residual > 0.9 * previous):
            return activation
    raise ActivationDidNotConverge(max_iter, residual)


def hop_spread(graph: SpreadingGraph, seeds: FloatArray, *, hops: int = 2, decay: float = 0.5,
               prune: float = 0.0) -> HopActivation:
    """Hop-limited spreading ``s + Σ_{h≤hops} decayʰ (Pᵀ)ʰ s`` with per-hop vectors.

    Examples
    --------
    >>> g = SpreadingGraph(); _ = g.add_nodes(3)
    >>> g.add_edges([0, 1], [1, 2], [1.0, 1.0])
    >>> hop_spread(g, np.array([1.0, 0.0, 0.0]), hops=2, decay=0.5).total.tolist()
    [1.0, 0.5, 0.25]
    """
    if hops < 0:
        raise ValueError("hops must be >= 0")
    frontier = _normalized(seeds)
    per_hop = [frontier]
    total = frontier.copy()
    for hop in range(1, hops + 1):
        # With prune > 0 a node passes nothing on when its per-neighbour share would fall below
        # prune (the push threshold), which bounds each hop's work by 1/prune edges.
        frontier = graph.spread(frontier, min_share=prune)
        per_hop.append(decay**hop * frontier)
        total += per_hop[-1]
    return HopActivation(total=total, per_hop=tuple(per_hop))


def hop_spread_sparse(graph: SpreadingGraph | RestrictedGraph, seed_nodes: IntArray, seed_values: FloatArray, *,
                      hops: int = 2, decay: float = 0.5, prune: float = 0.0,
                      admit: Callable[[IntArray], np.ndarray] | None = None) -> tuple[IntArray, FloatArray]:
    """:func:`hop_spread` over sparse vectors: the same total as (node indices, values).

    ``admit(nodes) -> bool mask`` keeps a reached node in the walk; the others neither collect nor pass
    on activation. Recall admits the filter's memories and the concepts that are not hubs of the filter,
    so the walk stays inside one project and a concept in most of its memories does not carry it.
    A :class:`RestrictedGraph` that keeps at least the admitted nodes gives the same result, reading
    only the edges into them.

    Examples
    --------
    >>> g = SpreadingGraph(); _ = g.add_nodes(3)
    >>> g.add_edges([0, 1], [1, 2], [1.0, 1.0])
    >>> nodes, values = hop_spread_sparse(g, np.array([0]), np.array([2.0]), hops=2, decay=0.5)
    >>> nodes.tolist(), values.tolist()
    ([0, 1, 2], [1.0, 0.5, 0.25])
    """
    if hops < 0:
        raise ValueError("hops must be >= 0")
    total = float(np.sum(seed_values))
    frontier_nodes = np.asarray(seed_nodes, dtype=np.int64)
    frontier = np.asarray(seed_values, dtype=np.float64) / total if total > 0 else np.asarray(seed_values, float)
    collected_nodes, collected_values = [frontier_nodes], [frontier]
    for hop in range(1, hops + 1):
        frontier_nodes, frontier = graph.spread_sparse(frontier_nodes, frontier, min_share=prune)
        if admit is not None and frontier_nodes.size:
            kept = admit(frontier_nodes)
            frontier_nodes, frontier = frontier_nodes[kept], frontier[kept]
        if frontier_nodes.size == 0:
            break
        collected_nodes.append(frontier_nodes)
        collected_values.append(decay**hop * frontier)
    return sum_sparse(np.concatenate(collected_nodes), np.concatenate(collected_values), graph.n_nodes)


def _normalized(seeds: FloatArray) -> FloatArray:
    seeds = np.asarray(seeds, dtype=np.float64)
    if np.any(seeds < 0) or not np.all(np.isfinite(seeds)):
        raise ValueError("seed weights must be finite and non-negative")
    total = seeds.sum()
    return seeds / total if total > 0 else seeds.copy()


# ---------------------------------------------------------------------------------------------
# Pure-Python references: the same mathematics written as plain loops over dicts, used by tests to
# check the sparse kernels.
Adjacency = Mapping[int, Mapping[int, float]]


def _reference_spread(adjacency: Adjacency, activation: Mapping[int, float],
                      scale: Mapping[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for node, value in activation.items():
        edges = adjacency.get(node, {})
        strength = sum(edges.values())
        if value == 0 or strength == 0:
            continue
        for target, weight in edges.items():
            out[target] = out.get(target, 0.0) + value * scale.get(node, 1.0) * weight / strength
    return out


def _reference_normalized(seeds: Mapping[int, float]) -> dict[int, float]:
    total = sum(seeds.values())
    return {node: weight / total for node, weight in seeds.items()} if total else dict(seeds)


def reference_pagerank(adjacency: Adjacency, seeds: Mapping[int, float], *, alpha: float = 0.5,
                       iterations: int = 200, scale: Mapping[int, float] | None = None) -> dict[int, float]:
    """Plain-loop personalized PageRank run for a fixed number of iterations."""
    restart = _reference_normalized(seeds)
    activation = dict(restart)
    for _ in range(iterations):
        spread = _reference_spread(adjacency, activation, scale or {})
        stranded = sum(value for node, value in activation.items() if not sum(adjacency.get(node, {}).values()))
        nodes = set(restart) | set(spread)
        activation = {n: (1 - alpha) * restart.get(n, 0.0) + alpha * (spread.get(n, 0.0) + stranded * restart.get(
            n, 0.0)) for n in nodes}
    return activation


def reference_hop_spread(adjacency: Adjacency, seeds: Mapping[int, float], *, hops: int = 2,
                         decay: float = 0.5, scale: Mapping[int, float] | None = None) -> dict[int, float]:
    """Plain-loop hop-limited spreading."""
    frontier = _reference_normalized(seeds)
    total = dict(frontier)
    for hop in range(1, hops + 1):
        frontier = _reference_spread(adjacency, frontier, scale or {})
        for node, value in frontier.items():
            total[node] = total.get(node, 0.0) + decay**hop * value
    return total

"""The recall kernels agree with their pure-Python references and keep their invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.core.activation import (
    ActivationDidNotConverge,
    hop_spread,
    hop_spread_sparse,
    personalized_pagerank,
    reference_hop_spread,
    reference_pagerank,
)
from graphmem.core.spreading_graph import SpreadingGraph
from tests.strategies import small_graphs


def _build(n: int, edges: list[tuple[int, int, float]]) -> tuple[SpreadingGraph, dict[int, dict[int, float]]]:
    graph = SpreadingGraph()
    graph.add_nodes(n)
    adjacency: dict[int, dict[int, float]] = {}
    for a, b, w in edges:
        graph.add_edges([a], [b], [w])
        adjacency.setdefault(a, {})[b] = adjacency.setdefault(a, {}).get(b, 0.0) + w
    return graph, adjacency


def _dense(n: int, values: dict[int, float]) -> np.ndarray:
    vector = np.zeros(n)
    for node, value in values.items():
        vector[node] = value
    return vector


@settings(max_examples=60, deadline=None)
@given(small_graphs(), st.floats(min_value=0.1, max_value=0.9))
def test_pagerank_matches_the_pure_python_reference(case, alpha):
    n, edges, seeds = case
    graph, adjacency = _build(n, edges)
    sparse = personalized_pagerank(graph, _dense(n, seeds), alpha=alpha, tol=1e-12, max_iter=500)
    reference = reference_pagerank(adjacency, seeds, alpha=alpha, iterations=500)
    np.testing.assert_allclose(sparse, _dense(n, reference), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(small_graphs(), st.integers(min_value=0, max_value=4), st.floats(min_value=0.1, max_value=1.0))
def test_hop_spread_matches_the_pure_python_reference(case, hops, decay):
    n, edges, seeds = case
    graph, adjacency = _build(n, edges)
    sparse = hop_spread(graph, _dense(n, seeds), hops=hops, decay=decay).total
    np.testing.assert_allclose(sparse, _dense(n, reference_hop_spread(adjacency, seeds, hops=hops, decay=decay)),
                               atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(small_graphs())
def test_activation_is_bounded_by_the_seed_mass(case):
    n, edges, seeds = case
    graph, _ = _build(n, edges)
    activation = personalized_pagerank(graph, _dense(n, seeds), alpha=0.5)
    assert activation.min() >= 0.0
    assert activation.sum() <= 1.0 + 1e-9


@settings(max_examples=40, deadline=None)
@given(small_graphs(), st.floats(min_value=1.1, max_value=10.0))
def test_raising_a_seed_weight_never_lowers_that_seed_relative_share(case, factor):
    n, edges, seeds = case
    graph, _ = _build(n, edges)
    seed = next(iter(seeds))
    before = personalized_pagerank(graph, _dense(n, seeds), alpha=0.5, tol=1e-12, max_iter=500)
    boosted = dict(seeds, **{}) | {seed: seeds[seed] * factor}
    after = personalized_pagerank(graph, _dense(n, boosted), alpha=0.5, tol=1e-12, max_iter=500)
    assert after[seed] >= before[seed] - 1e-9


def test_two_hop_nodes_are_reached_with_default_parameters():
    # concept 0 -> memory 1 -> concept 2 -> memory 3: memory 3 shares nothing with the seed.
    graph, _ = _build(4, [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0), (2, 3, 1.0), (3, 2, 1.0)])
    seeds = _dense(4, {0: 1.0})
    assert personalized_pagerank(graph, seeds)[3] > 0
    hops = hop_spread(graph, seeds)
    assert hops.total[2] > 0
    assert hop_spread(graph, seeds, hops=3).first_hop().tolist() == [0, 1, 2, 3]


def test_a_hub_spreads_thinly_over_its_neighbours():
    # node 0 has 1 neighbour, node 1 has 10: each of node 1's neighbours gets a tenth (the fan effect).
    edges = [(0, 2, 1.0)] + [(1, k, 1.0) for k in range(3, 13)]
    graph, _ = _build(13, edges)
    spread = graph.spread(_dense(13, {0: 1.0, 1: 1.0}))
    assert spread[2] == pytest.approx(1.0)
    assert spread[3] == pytest.approx(0.1)


def test_spread_scale_caps_what_a_hub_passes_on():
    graph, _ = _build(3, [(0, 1, 1.0), (0, 2, 1.0)])
    graph.set_spread_scale([0], [0.5])
    assert graph.spread(_dense(3, {0: 1.0})).sum() == pytest.approx(0.5)


def test_pagerank_raises_a_typed_error_when_it_cannot_converge():
    graph, _ = _build(2, [(0, 1, 1.0), (1, 0, 1.0)])
    with pytest.raises(ActivationDidNotConverge) as caught:
        personalized_pagerank(graph, _dense(2, {0: 1.0}), alpha=0.99, max_iter=3, tol=1e-12)
    assert caught.value.max_iter == 3


def test_pruning_keeps_the_result_close_to_the_exact_fixed_point():
    rng = np.random.default_rng(7)
    edges = [(int(a), int(b), float(w)) for a, b, w in zip(rng.integers(0, 200, 2000), rng.integers(0, 200, 2000),
                                                            rng.uniform(0.1, 1.0, 2000), strict=True)]
    graph, _ = _build(200, edges)
    seeds = _dense(200, {0: 1.0, 5: 0.5})
    exact = personalized_pagerank(graph, seeds, prune=0.0, tol=1e-12, max_iter=200)
    pruned = personalized_pagerank(graph, seeds, prune=1e-5, tol=1e-9, max_iter=200)
    assert np.abs(exact - pruned).sum() < 0.01
    assert np.argsort(-exact)[:5].tolist() == np.argsort(-pruned)[:5].tolist()


@settings(max_examples=60, deadline=None)
@given(small_graphs(), st.integers(min_value=0, max_value=4), st.sampled_from([0.0, 1e-3, 0.05]),
       st.booleans())
def test_sparse_hop_spread_equals_the_dense_kernel(case, hops, prune, compact_first):
    n, edges, seeds = case
    graph, _ = _build(n, edges[: len(edges) // 2])
    if compact_first:
        graph.compact()
    for a, b, w in edges[len(edges) // 2 :]:  # the rest stays in the delta
        graph.add_edges([a], [b], [w])
    dense = hop_spread(graph, _dense(n, seeds), hops=hops, decay=0.5, prune=prune).total
    nodes, values = hop_spread_sparse(graph, np.array(list(seeds)), np.array(list(seeds.values())), hops=hops,
                                      decay=0.5, prune=prune)
    sparse = np.zeros(n)
    sparse[nodes] = values
    np.testing.assert_allclose(sparse, dense, atol=1e-12)


def test_pagerank_gives_the_mass_of_a_dangling_node_back_to_the_seeds_as_networkx_does():
    import networkx as nx

    edges = [(0, 1, 1.0), (1, 0, 1.0), (0, 2, 3.0), (2, 3, 1.0)]  # node 3 has no out-edge
    graph, adjacency = _build(4, edges)
    seeds = {0: 1.0, 1: 0.5}
    ours = personalized_pagerank(graph, _dense(4, seeds), alpha=0.5, tol=1e-12, max_iter=200)
    digraph = nx.DiGraph()
    digraph.add_weighted_edges_from(edges)
    theirs = nx.pagerank(digraph, alpha=0.5, personalization=seeds, tol=1e-13, max_iter=500)
    assert ours.sum() == pytest.approx(1.0)
    assert ours.tolist() == pytest.approx([theirs[n] for n in range(4)], abs=1e-9)
    reference = reference_pagerank(adjacency, seeds, alpha=0.5)
    assert [reference.get(n, 0.0) for n in range(4)] == pytest.approx(ours.tolist(), abs=1e-9)


def test_hop_spread_keeps_a_dangling_nodes_activation_but_passes_none_of_it_on():
    graph, _ = _build(3, [(0, 1, 1.0), (0, 2, 1.0), (2, 0, 1.0)])  # node 1 has no out-edge
    per_hop = hop_spread(graph, _dense(3, {0: 1.0}), hops=2, decay=0.5).per_hop
    assert per_hop[1].tolist() == [0.0, 0.25, 0.25]
    assert per_hop[2].tolist() == [0.125, 0.0, 0.0]  # node 1's share stops there: a hop sum has no restart

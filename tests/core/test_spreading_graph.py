"""The growable CSR graph: deltas, compaction and growth keep propagation exact."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.core.spreading_graph import SpreadingGraph


def test_edges_added_after_compaction_propagate_like_a_fresh_build():
    grown = SpreadingGraph()
    grown.add_nodes(3)
    grown.add_edges([0], [1], [1.0])
    grown.compact()
    grown.add_nodes(2)
    grown.add_edges([0, 3], [4, 0], [3.0, 2.0])
    fresh = SpreadingGraph()
    fresh.add_nodes(5)
    fresh.add_edges([0, 0, 3], [1, 4, 0], [1.0, 3.0, 2.0])
    activation = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(grown.spread(activation), fresh.spread(activation))
    assert grown.adjacency().toarray().tolist() == fresh.adjacency().toarray().tolist()


def test_parallel_edges_add_up():
    graph = SpreadingGraph()
    graph.add_nodes(2)
    graph.add_edges([0, 0], [1, 1], [0.25, 0.5])
    targets, weights = graph.neighbors(0)
    assert targets.tolist() == [1]
    assert weights.tolist() == [0.75]


def test_bad_edges_are_refused_without_changing_the_graph():
    graph = SpreadingGraph()
    graph.add_nodes(2)
    with pytest.raises(IndexError):
        graph.add_edges([0], [5], [1.0])
    with pytest.raises(ValueError):
        graph.add_edges([0], [1], [-1.0])
    assert graph.adjacency().nnz == 0
    assert graph.out_strength.tolist() == [0.0, 0.0]


def test_removed_edges_leave_no_trace_in_neighbours_strength_or_spread():
    graph = SpreadingGraph()
    graph.add_nodes(3)
    graph.add_edges([0, 0], [1, 2], [1.0, 3.0])
    graph.compact()
    graph.add_edges([0], [2], [0.5])  # one part of the 0→2 weight still in the delta
    graph.remove_edges([0], [2], [3.0])
    assert graph.neighbors(0)[1].tolist() == [1.0, 0.5] and graph.out_strength[0] == 1.5
    graph.remove_edges([0], [2], [0.5])
    assert graph.neighbors(0)[0].tolist() == [1]
    assert graph.spread(np.array([1.0, 0.0, 0.0])).tolist() == [0.0, 1.0, 0.0]


def _random_graph(seed: int) -> SpreadingGraph:
    rng = np.random.default_rng(seed)
    graph = SpreadingGraph()
    graph.add_nodes(60)
    src, dst = rng.integers(0, 60, 400), rng.integers(0, 60, 400)
    graph.add_edges(src, dst, rng.random(400))
    graph.compact()
    graph.add_nodes(10)
    graph.add_edges(rng.integers(0, 70, 50), rng.integers(0, 70, 50), rng.random(50))  # a delta on top
    return graph


@pytest.mark.parametrize(("seed", "share"), [(0, 0.5), (1, 0.5), (2, 0.5), (3, 1.0)])
def test_a_restricted_graph_spreads_exactly_like_the_graph_with_the_same_admit(seed: int, share: float) -> None:
    from graphmem.core.activation import hop_spread_sparse

    graph = _random_graph(seed)
    rng = np.random.default_rng(seed + 10)
    keep = rng.random(70) < share
    seeds = np.flatnonzero(keep)[:4]

    def admit(nodes: np.ndarray) -> np.ndarray:
        return keep[nodes]

    full = hop_spread_sparse(graph, seeds, np.ones(seeds.size), hops=3, decay=0.5, prune=1e-4, admit=admit)
    restricted = graph.restricted(keep)
    assert restricted.current
    sub = hop_spread_sparse(restricted, seeds, np.ones(seeds.size), hops=3, decay=0.5, prune=1e-4, admit=admit)
    assert full[0].tolist() == sub[0].tolist()
    assert full[1].tolist() == sub[1].tolist()  # bit for bit: same terms, same order of summation
    base = graph._base
    assert restricted.base.indices.dtype == restricted.base.indptr.dtype == np.int32  # as compact as the base
    assert (restricted.base is base) == keep.all()  # nothing to drop: no copy
    graph.compact()
    assert not restricted.current


def test_column_counts_and_rows_read_what_neighbor_counts_and_neighbors_read() -> None:
    graph = _random_graph(3)
    columns = np.arange(0, 70, 3)
    admitted = np.zeros(70, dtype=bool)
    admitted[columns] = True
    assert graph.column_counts(columns).tolist() == graph.neighbor_counts(np.arange(70), admitted).tolist()
    nodes = np.array([5, 2, 66, 40])
    position, targets, weights = graph.rows(nodes)
    for at, node in enumerate(nodes):
        expected_targets, expected_weights = graph.neighbors(int(node))
        assert targets[position == at].tolist() == expected_targets.tolist()
        assert weights[position == at].tolist() == expected_weights.tolist()


@pytest.mark.parametrize("columns", [np.arange(0, 70, 3), np.array([4, 61])])
def test_column_counts_are_the_same_from_the_rows_and_from_the_transpose(columns: np.ndarray) -> None:
    graph = _random_graph(4)
    admitted = np.zeros(70, dtype=bool)
    admitted[columns] = True
    expected = graph.neighbor_counts(np.arange(70), admitted).tolist()
    counted = graph.column_counts(columns).tolist()
    # Many columns (a project's projection filtered by its project) are counted over the rows: no transpose kept.
    assert (graph._base_t is None) == (columns.size * 16 > 70)
    graph._base_transposed()
    assert counted == graph.column_counts(columns).tolist() == expected


@pytest.mark.parametrize("seed", [5, 6])
def test_a_spread_from_many_rows_keeps_no_transpose_and_gives_the_transposes_floats(seed: int) -> None:
    graph = _random_graph(seed)
    rng = np.random.default_rng(seed)
    activation = np.where(rng.random(70) < 0.5, rng.random(70) * 10.0 ** rng.integers(-6, 2, 70), 0.0)
    spread = graph.spread(activation)
    assert graph._base_t is None  # the CSC view of the base, no copy of the graph
    graph._base_transposed()
    assert spread.tolist() == graph.spread(activation).tolist()  # bit for bit: same products, same order


def test_counting_many_columns_keeps_its_scratch_near_one_int32_an_edge() -> None:
    """A query's scope counts its project's graph anew each second, and the C heap keeps the peak of the scratch
    resident: only the running count is an edge long, as int32 (it was int64 and copied once: 17 bytes an edge)."""
    import tracemalloc

    rng = np.random.default_rng(9)
    graph = SpreadingGraph()
    graph.add_nodes(5_000)
    edges = 1_000_000
    graph.add_edges(rng.integers(0, 5_000, edges), rng.integers(0, 5_000, edges), rng.random(edges))
    graph.compact()
    columns = np.arange(0, 5_000, 2)
    admitted = np.zeros(5_000, dtype=bool)
    admitted[columns] = True
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        counted = graph.column_counts(columns)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert graph._base_t is None
    assert peak < 6 * graph._base.nnz + 64 * 5_000 + 2**20
    assert counted.tolist() == graph.neighbor_counts(np.arange(5_000), admitted).tolist()


@pytest.mark.parametrize("seed", range(4))
def test_a_dense_sum_gives_the_sorted_sums_bit_for_bit(seed: int) -> None:
    from graphmem.core import spreading_graph

    rng = np.random.default_rng(seed)
    nodes = rng.integers(0, 300, 2_000)
    values = rng.random(2_000) * 10.0 ** rng.integers(-8, 3, 2_000)  # sums whose order shows in the last bits
    dense_nodes, dense_values = spreading_graph._summed(nodes, values, 300)
    unique, inverse = np.unique(nodes, return_inverse=True)
    assert dense_nodes.tolist() == unique.tolist()
    assert dense_values.tobytes() == np.bincount(inverse, weights=values, minlength=unique.size).tobytes()


def test_a_sparse_sum_over_a_large_graph_never_goes_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.core import spreading_graph

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a pass over every node")

    nodes, values = np.array([5, 3_000_000, 5]), np.array([1.0, 2.0, 3.0])
    monkeypatch.setattr(np, "flatnonzero", refused)
    summed_nodes, summed_values = spreading_graph._summed(nodes, values, 3_600_000)
    assert summed_nodes.tolist() == [5, 3_000_000] and summed_values.tolist() == [4.0, 2.0]


@pytest.mark.parametrize("candidates", [[], [4], [1, 5, 9], list(range(0, 40, 2))])
def test_members_is_np_isin(candidates: list[int]) -> None:
    from graphmem.core.spreading_graph import members

    values = np.arange(30) % 11
    assert members(values, candidates).tolist() == np.isin(values, candidates).tolist()


def test_rows_and_links_sum_parallel_edges_of_the_base_and_the_delta() -> None:
    graph = SpreadingGraph()
    graph.add_nodes(4)
    graph.add_edges([0, 0, 2], [1, 3, 1], [0.5, 1.0, 2.0])
    graph.compact()
    nodes = np.array([2, 0])
    assert [part.tolist() for part in graph.rows(nodes)] == [[0, 1, 1], [1, 1, 3], [2.0, 0.5, 1.0]]  # sorted rows
    graph.add_edges([0, 2], [1, 3], [0.25, 4.0])  # the delta: a parallel edge, and a new one
    assert [part.tolist() for part in graph.rows(nodes)] == [[0, 0, 1, 1], [1, 3, 1, 3], [2.0, 4.0, 0.75, 1.0]]
    assert [part.tolist() for part in graph.linked(nodes, np.array([1]))] == [[0, 1], [1, 1]]


def test_rows_read_again_after_any_edge_change_are_never_the_kept_ones() -> None:
    graph = SpreadingGraph()
    graph.add_nodes(4)
    graph.add_edges([0, 1], [2, 3], [1.0, 1.0])
    nodes = np.array([0, 1])
    first = graph.rows(nodes)
    assert graph.rows(nodes) is first  # kept while the edges are unchanged
    assert not first[0].flags.writeable  # and shared read-only
    graph.add_edges([0], [3], [2.0])
    assert [part.tolist() for part in graph.rows(nodes)] == [[0, 0, 1], [2, 3, 3], [1.0, 2.0, 1.0]]
    graph.compact()
    assert [part.tolist() for part in graph.rows(nodes)] == [[0, 0, 1], [2, 3, 3], [1.0, 2.0, 1.0]]
    graph.remove_edges([0], [3], [2.0])
    assert [part.tolist() for part in graph.rows(nodes)] == [[0, 1], [2, 3], [1.0, 1.0]]
    assert [part.tolist() for part in graph.linked(nodes, np.array([3]))] == [[1], [3]]

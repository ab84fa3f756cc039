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

"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["small_graphs"]


@st.composite
def small_graphs(draw: st.DrawFn, max_nodes: int = 8) -> tuple[int, list[tuple[int, int, float]], dict[int, float]]:
    """(n, weighted edges, seed weights) for a small random directed graph."""
    n = draw(st.integers(min_value=2, max_value=max_nodes))
    node = st.integers(min_value=0, max_value=n - 1)
    weight = st.floats(min_value=0.05, max_value=5.0, allow_nan=False, allow_infinity=False)
    edges = draw(st.lists(st.tuples(node, node, weight), min_size=1, max_size=4 * n))
    seeds = draw(st.dictionaries(node, st.floats(min_value=0.1, max_value=3.0), min_size=1, max_size=3))
    return n, edges, seeds

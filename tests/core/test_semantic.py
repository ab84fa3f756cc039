"""Relatedness over unit vectors: nearest pairs respect k and the threshold, forms join, the gate is monotone."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graphmem.core.semantic import compact_form, keyword_gate, nearest_pairs


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_forms_of_one_concept_share_a_compact_form():
    assert compact_form("roll back") == compact_form("rollback") == compact_form("roll-back")
    assert compact_form("e-mail") == compact_form("email")
    assert compact_form("set up") == compact_form("setup")
    assert compact_form("database") != compact_form("data base x")


@given(st.integers(2, 40), st.integers(1, 6), st.floats(-0.5, 0.95))
def test_nearest_pairs_keep_at_most_k_neighbours_above_the_threshold(n, k, threshold):
    vectors = _unit(np.random.default_rng(n).normal(size=(n, 8)))
    rows, cols, cosine = nearest_pairs(vectors, vectors, k, threshold, new_offset=0)
    assert np.all(rows != cols), "a vector is not its own neighbour"
    assert np.all(cosine >= threshold)
    assert np.bincount(rows, minlength=n).max(initial=0) <= k
    np.testing.assert_allclose(cosine, np.sum(vectors[rows] * vectors[cols], axis=1), rtol=1e-5, atol=1e-6)
    for row in range(n):  # strongest first, and no closer vector above the threshold was left out
        mine = cosine[rows == row]
        assert np.all(np.diff(mine) <= 1e-7)
        others = np.delete(vectors @ vectors[row], row)
        if len(mine) < k:
            assert np.sum(others >= threshold) == len(mine)


@given(st.floats(0, 1), st.floats(0, 1))
def test_the_gate_falls_as_keyword_coverage_grows(low, high):
    low, high = sorted((low, high))
    assert keyword_gate(low, 0.1, 0.2) >= keyword_gate(high, 0.1, 0.2)
    assert keyword_gate(0.0, 0.1, 0.2) == 1.0 and keyword_gate(0.2, 0.1, 0.2) == 0.0

"""Projections that share a word table (a partitioned server's pool) read exactly the vectors, relatedness edges
and nearest words their own tables would give; a collected projection releases only its rows."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from graphmem.settings import SemanticSettings
from graphmem.store.semantic_index import SemanticIndex
from graphmem.store.word_table import WordRows, WordTable
from nlp.embedding import load_embedder

SETTINGS = SemanticSettings(enabled=True)
FIRST = ["nervous", "anxious", "party", "celebration", "invoice", "billing", "webhook", "retry", "queue"]
SECOND = ["anxious", "worried", "party", "festival", "invoice", "refund", "deploy", "release", "queue"]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder()


def _index(embedder, words: list[str], table: WordTable | None = None, first_node: int = 0):
    index = SemanticIndex(embedder, SETTINGS, table)
    nodes = list(range(first_node, first_node + len(words)))
    edges = index.add_concepts(nodes, words, ["term"] * len(words))
    return index, nodes, edges


def _reads(index: SemanticIndex, nodes: list[int], probe: np.ndarray) -> tuple:
    rows, table = index.word_vectors(np.array(nodes, dtype=np.int64))
    return (index.words.active().tobytes(), table[rows].tobytes(), index.nearest_words(probe, 0.3, 5),
            {key: value.tobytes() for key, value in index.state().items()})


def test_projections_sharing_a_table_read_what_their_own_tables_would_hold(embedder):
    table = WordTable(embedder.dimensions)
    probe = embedder.embed(["worried"])[0]
    for words, first_node in ((FIRST, 0), (SECOND, 100)):
        shared, nodes, shared_edges = _index(embedder, words, table, first_node)
        own, _, own_edges = _index(embedder, words, None, first_node)
        assert isinstance(shared.words, WordRows) and not isinstance(own.words, WordRows)
        assert all(np.array_equal(a, b) for a, b in zip(shared_edges, own_edges, strict=True))
        assert _reads(shared, nodes, probe) == _reads(own, nodes, probe)
        # both stay alive to the end of the loop body only; the second index shares the first's rows while it lives


def test_a_word_in_two_projections_is_held_in_one_row(embedder):
    table = WordTable(embedder.dimensions)
    first, _, _ = _index(embedder, FIRST, table)
    second, _, _ = _index(embedder, SECOND, table)
    assert table.rows_held == len(set(FIRST) | set(SECOND))
    assert first.words.rows(np.array([FIRST.index("queue")]))[0] == second.words.rows(
        np.array([SECOND.index("queue")]))[0]


def test_a_collected_projection_releases_only_its_own_rows_and_they_are_reused(embedder):
    table = WordTable(embedder.dimensions)
    probe = embedder.embed(["festival"])[0]
    first, _, _ = _index(embedder, FIRST, table)
    second, nodes, _ = _index(embedder, SECOND, table, first_node=100)
    before = _reads(second, nodes, probe)
    del first
    gc.collect()
    assert table.rows_held == len(SECOND)  # the words only the first held are free
    assert _reads(second, nodes, probe) == before
    third, third_nodes, _ = _index(embedder, ["tax", "audit", "ledger"], table, first_node=200)
    assert table.rows_held == len(SECOND) + 3
    assert table.rows_allocated == len(set(FIRST) | set(SECOND))  # the three took freed rows
    assert _reads(second, nodes, probe) == before
    assert _reads(third, third_nodes, probe) == _reads(_index(embedder, ["tax", "audit", "ledger"], None, 200)[0],
                                                       third_nodes, probe)


def test_a_snapshots_word_rows_restored_into_the_table_read_as_saved(embedder):
    table = WordTable(embedder.dimensions)
    saved, nodes, _ = _index(embedder, FIRST, table)
    state = saved.state()
    restored = SemanticIndex(embedder, SETTINGS, table)
    restored.words.restore(state["semantic_word_vectors"], state["semantic_word_nodes"])
    probe = embedder.embed(["worried"])[0]
    assert _reads(restored, nodes, probe)[:3] == _reads(saved, nodes, probe)[:3]
    assert table.rows_held == len(FIRST)  # the restored rows are the saved index's own


def test_vectors_of_the_same_digest_but_other_bytes_get_rows_of_their_own():
    table = WordTable(4)
    zero, negative_zero = np.zeros((1, 4), dtype=np.float16), np.full((1, 4), -0.0, dtype=np.float16)
    rows = table.acquire(np.concatenate([zero, negative_zero, zero]))
    assert rows[0] == rows[2] != rows[1]
    assert table.vectors[rows[1]].tobytes() == negative_zero.tobytes()

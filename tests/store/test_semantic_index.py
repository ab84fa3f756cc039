"""The memories' vector table: int8 rows with a scale each, exact enough to rank by, restored from any snapshot;
mean vectors and cosines less a centre."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.settings import SemanticSettings
from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.projection import GraphProjection
from graphmem.store.projection_snapshot import load_snapshot, save_snapshot
from graphmem.store.semantic_index import SemanticIndex


class _Embedder:
    """Unit vectors from a seeded generator, one per text (deterministic by the text)."""

    dimensions = 64

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = [np.random.default_rng(abs(hash(text)) % 2**32).standard_normal(self.dimensions) for text in texts]
        table = np.array(rows, dtype=np.float32).reshape(len(texts), self.dimensions)
        return table / np.linalg.norm(table, axis=1, keepdims=True)

    def ready(self) -> bool:
        return True


def _index(texts: list[str]) -> SemanticIndex:
    index = SemanticIndex(_Embedder(), SemanticSettings())
    index.add_memories([10 + 2 * at for at in range(len(texts))], texts)  # memory nodes are not rows
    return index


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.integers(0, 2**31), st.floats(0.0, 1.0))
def test_cosines_from_the_int8_table_are_within_half_a_step_of_exact(count, seed, share):
    texts = [f"memory {seed} {at}" for at in range(count)]
    index = _index(texts)
    query = _Embedder().embed([f"query {seed}"])[0]
    exact = _Embedder().embed(texts) @ query
    nodes = np.array([10 + 2 * at for at in range(count)], dtype=np.int64)
    # Each component is off by at most half its row's step (the row's scale), so a cosine by at most that
    # times the query's L1 norm; on average far less.
    bound = index.memories.scales[:count] / 2 * np.abs(query).sum() + 1e-6
    error = np.abs(index.memory_similarity(query, nodes) - exact)
    assert (error <= bound).all()
    assert count < 100 or error.mean() < 1e-3  # over many rows the rounding errors average out
    # A filter of a few memories is gathered, one of most of the table is read in order: both agree.
    chosen = np.random.default_rng(seed).random(count) < share
    assert np.allclose(index.memory_similarity(query, nodes[chosen]), index.memory_similarity(query, nodes)[chosen],
                       atol=1e-6)


def test_a_node_without_a_vector_scores_zero():
    index = _index(["one", "two"])
    query = _Embedder().embed(["one"])[0]
    similarity = index.memory_similarity(query, np.array([10, 11, 12, 999], dtype=np.int64))
    assert similarity[0] > 0.99 and similarity[1] == 0.0 and similarity[3] == 0.0


def test_a_saved_table_restores_bit_for_bit_and_a_float16_one_from_before_is_quantized():
    texts = [f"text {at}" for at in range(50)]
    index = _index(texts)
    state = index.state()
    assert state["semantic_memory_vectors"].dtype == np.int8
    query = _Embedder().embed(["text 7"])[0]
    nodes = np.array([10 + 2 * at for at in range(50)], dtype=np.int64)

    restored = SemanticIndex(_Embedder(), SemanticSettings())
    restored.restore(state, {}, {})
    assert np.array_equal(restored.memory_similarity(query, nodes), index.memory_similarity(query, nodes))

    older = {key: value for key, value in state.items() if key != "semantic_memory_scales"}
    older["semantic_memory_vectors"] = _Embedder().embed(texts).astype(np.float16)  # the float16 format
    from_older = SemanticIndex(_Embedder(), SemanticSettings())
    from_older.restore(older, {}, {})
    assert np.abs(from_older.memory_similarity(query, nodes) - index.memory_similarity(query, nodes)).max() < 2e-3
    assert int(np.argmax(from_older.memory_similarity(query, nodes))) == 7


def test_a_snapshot_written_before_the_int8_table_still_loads_and_ranks_the_same(service, tmp_path):
    service.store_many([{"content": text} for text in (
        "Bart felt nervous before the speech contest", "The cache is warmed by a cron job",
        "Lisa repaired the bicycle chain with her father")])
    with snapshot(service.engine) as connection:
        generation = current_generation(connection)
    path = tmp_path / "projection.npz"
    save_snapshot(service.projection, path, service.engine, generation)
    with np.load(path) as stored:
        arrays = {key: stored[key] for key in stored.files}
    header = json.loads(arrays["header"].tobytes())
    # Format 5 kept the memories' vectors as float16 rows and no scales.
    memory = service.projection.semantic.memories
    arrays["semantic_memory_vectors"] = (arrays["semantic_memory_vectors"] * memory.scales[:memory.count, None]
                                         ).astype(np.float16)
    del arrays["semantic_memory_scales"]
    arrays["header"] = np.frombuffer(json.dumps(header | {"format": 5}).encode(), dtype=np.uint8)
    older = tmp_path / "older.npz"
    np.savez(older, **arrays)

    restored = GraphProjection(service.projection.settings, service.settings.semantic, service.projection.embedder)
    assert load_snapshot(restored, older, service.engine, generation) == generation
    query = service.recall.semantic.query_vector(service.projection, "I am scared before my presentation")
    nodes = np.array(sorted(service.projection.memory_nodes.values()), dtype=np.int64)
    before = service.projection.semantic.memory_similarity(query, nodes)
    after = restored.semantic.memory_similarity(query, nodes)
    assert np.abs(after - before).max() < 2e-3 and np.argmax(after) == np.argmax(before)


# Every text shares the first axis (a conversation's manner); the topics are the other three.
TABLE = {"cooking": [0.9, 0.3, 0.0, 0.0], "rowing": [0.9, 0.0, 0.3, 0.0], "chess": [0.9, 0.0, 0.0, 0.3],
         "boating": [0.9, -0.1, 0.25, 0.0]}


class _TableEmbedder:
    dimensions = 4

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.array([TABLE[text] for text in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def ready(self) -> bool:
        return True


@pytest.fixture
def table_index() -> SemanticIndex:
    semantic = SemanticIndex(_TableEmbedder(), SemanticSettings())
    semantic.add_memories([0, 1, 2], ["cooking", "rowing", "chess"])
    return semantic


def test_the_mean_vector_is_the_mean_of_the_memories_vectors(table_index: SemanticIndex) -> None:
    expected = table_index.embed(["cooking", "rowing", "chess"]).astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(table_index.mean_vector(np.array([0, 1, 2])), expected, atol=2e-3)  # int8 storage
    assert not table_index.mean_vector(np.array([7])).any()  # no vector: zeros


def test_without_a_centre_the_centred_cosine_is_the_plain_one(table_index: SemanticIndex) -> None:
    query = table_index.embed(["boating"])[0]
    nodes = np.array([0, 1, 2, 7])
    np.testing.assert_allclose(table_index.centered_similarity(query, nodes, np.zeros(4)),
                               table_index.memory_similarity(query, nodes), atol=2e-3)  # int8 rows


def test_taking_the_shared_component_out_separates_the_topics(table_index: SemanticIndex) -> None:
    query = table_index.embed(["boating"])[0]
    nodes = np.array([0, 1, 2])
    plain = table_index.memory_similarity(query, nodes)
    centred = table_index.centered_similarity(query, nodes, table_index.mean_vector(nodes))
    assert plain.min() > 0.85  # the shared axis makes every memory look close
    assert int(np.argmax(centred)) == 1 and centred[1] > 0.8 and centred[[0, 2]].max() < 0.1


@pytest.mark.parametrize("share", [1.0, 0.3])
def test_a_scan_keeps_its_scratch_small_and_gives_each_rows_cosine_bit_for_bit(share: float) -> None:
    """A query's scan converts its rows to float32 a block at a time; the C heap keeps the freed scratch resident,
    so a block is a few MB (8,192 rows held 8 MB of float32 in every server), and each row's cosine is its own
    reduction, the same bits whatever the block."""
    import tracemalloc

    from graphmem.store.semantic_index import _QuantizedRows

    rng = np.random.default_rng(7)
    count = 20_000
    table = rng.standard_normal((count, 256)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    memories = _QuantizedRows(256)
    memories.add(list(range(count)), table)
    query = table[3] + np.float32(0.2) * table[5]
    query = (query / np.linalg.norm(query)).astype(np.float32)
    rows = np.flatnonzero(rng.random(count) < share).astype(np.int32)  # most of the table: read in order
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        cosines = memories.similarity(query, rows)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peak - 2 * count * 4 < 3 * 2**20  # besides the result (and the in-order path's one per row)
    whole = np.einsum("ij,j->i", memories.vectors[:count].astype(np.float32), query) * memories.scales[:count]
    assert np.array_equal(cosines.view(np.uint32), whole[rows].view(np.uint32))

"""Coarse cells for the semantic scan of a large scope: the query's nearest cells hold its nearest memories,
new rows are filed, the filter still applies, the cells survive a snapshot, and training never blocks a query."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.settings import SemanticSettings
from graphmem.store import semantic_cells
from graphmem.store.packed_names import PackedIndex
from graphmem.store.semantic_index import SemanticIndex

_DIMENSIONS = 32
_CENTRES = np.random.default_rng(7).standard_normal((40, _DIMENSIONS)).astype(np.float32)


class _TopicEmbedder:
    """Texts "t<topic> <n>" get their topic's centre plus a little noise: a table with real clusters."""

    dimensions = _DIMENSIONS

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            topic, number = text.split()
            noise = np.random.default_rng(int(number) * 1000 + int(topic[1:])).standard_normal(_DIMENSIONS)
            rows.append(_CENTRES[int(topic[1:])] + 0.35 * noise)
        table = np.array(rows, dtype=np.float32)
        return table / np.linalg.norm(table, axis=1, keepdims=True)

    def ready(self) -> bool:
        return True


def _texts(count: int, start: int = 0) -> list[str]:
    return [f"t{at % len(_CENTRES)} {at}" for at in range(start, start + count)]


def _index(count: int, **settings: int) -> SemanticIndex:
    index = SemanticIndex(_TopicEmbedder(), SemanticSettings(**{"cells_min_rows": 500, **settings}))
    index.add_memories([2 * at for at in range(count)], _texts(count))  # memory nodes are not rows
    return index


def _mask(index: SemanticIndex) -> np.ndarray:
    nodes = index.memories.nodes[: index.memories.count]
    mask = np.zeros(int(nodes.max()) + 1, dtype=bool)
    mask[nodes] = True
    return mask


def _query(text: str) -> np.ndarray:
    return _TopicEmbedder().embed([text])[0].astype(np.float64)


def _trained(index: SemanticIndex, mask: np.ndarray, query: np.ndarray) -> None:
    """The first large scan starts the training (and is answered exactly); wait for the cells."""
    nodes, _ = index.nearest_memories(query, mask)
    assert nodes.size == mask.sum()
    index.cells.wait()
    assert index.cells.ready


def test_a_scope_below_the_threshold_is_scanned_exactly_and_trains_nothing():
    index = _index(400)
    mask = _mask(index)
    query = _query("t3 99999")
    nodes, similarity = index.nearest_memories(query, mask)
    assert np.array_equal(nodes, np.flatnonzero(mask))
    assert np.allclose(similarity, index.memory_similarity(query, nodes))
    index.cells.wait()
    assert not index.cells.ready


def test_a_large_scope_reads_the_nearest_cells_and_keeps_the_nearest_memories():
    index = _index(4000, cells_probe=4)
    mask = _mask(index)
    _trained(index, mask, _query("t0 99999"))
    for topic in (3, 17, 29):
        query = _query(f"t{topic} 99999")
        exact = index.memory_similarity(query, np.flatnonzero(mask))
        best = set(np.flatnonzero(mask)[np.argsort(-exact)[:20]].tolist())
        nodes, similarity = index.nearest_memories(query, mask)
        assert nodes.size < mask.sum() / 2  # a few cells, not the table
        assert best <= set(nodes.tolist())
        assert np.allclose(similarity, index.memory_similarity(query, nodes))


def test_cells_probed_all_give_the_exact_scan():
    index = _index(1000, cells_probe=10_000)
    mask = _mask(index)
    query = _query("t5 99999")
    _trained(index, mask, query)
    nodes, similarity = index.nearest_memories(query, mask)
    order = np.argsort(nodes)
    assert np.array_equal(nodes[order], np.flatnonzero(mask))
    assert np.allclose(similarity[order], index.memory_similarity(query, np.flatnonzero(mask)))


def test_rows_added_after_training_are_found_and_the_filter_still_applies():
    index = _index(2000, cells_probe=3)
    _trained(index, _mask(index), _query("t0 99999"))
    index.add_memories([2 * at for at in range(2000, 2100)], _texts(100, start=2000))
    mask = _mask(index)
    mask[np.arange(0, len(mask), 4)] = False  # a filter that hides every other memory node
    query = _query("t7 2007")  # the new memory's own text: its nearest memory is itself
    nodes, similarity = index.nearest_memories(query, mask)
    assert 2 * 2007 in nodes.tolist()
    assert float(similarity[nodes.tolist().index(2 * 2007)]) > 0.99
    assert mask[nodes].all()


def test_cells_survive_a_snapshot_and_another_cell_count_drops_them():
    index = _index(3000, cells_probe=4)
    mask = _mask(index)
    query = _query("t11 99999")
    _trained(index, mask, query)
    expected = index.nearest_memories(query, mask)[0]
    arrays = {name: np.array(value) for name, value in index.state().items()}
    restored = SemanticIndex(_TopicEmbedder(), index.settings)
    restored.restore(arrays, PackedIndex(), {})
    assert restored.cells.ready  # nothing to train again after a restart
    assert np.array_equal(restored.nearest_memories(query, mask)[0], expected)
    other = SemanticIndex(_TopicEmbedder(), index.settings.model_copy(update={"cells_per_million": 5000}))
    other.restore(arrays, PackedIndex(), {})
    assert not other.cells.ready


def test_a_table_that_outgrew_its_cells_trains_again_and_the_old_cells_answer_meanwhile():
    index = _index(600, cells_probe=2)
    _trained(index, _mask(index), _query("t0 99999"))
    index.add_memories([2 * at for at in range(600, 2400)], _texts(1800, start=600))  # 4x the trained rows
    mask = _mask(index)
    nodes, _ = index.nearest_memories(_query("t1 99999"), mask)
    assert nodes.size < mask.sum()  # the old cells answered (every new row filed under them)
    index.cells.wait()
    state = index.cells.state()
    assert int(state["semantic_cells_trained"][0]) == 2400
    assert len(state["semantic_cells_centroids"]) == index.cells.cell_count(2400)


def test_a_failed_training_leaves_the_exact_scan_and_is_not_retried(monkeypatch: pytest.MonkeyPatch):
    calls = []

    def failing(*args: object) -> None:
        calls.append(args)
        raise MemoryError("no room for the cells")

    monkeypatch.setattr(semantic_cells, "_trained", failing)
    index = _index(800)
    mask = _mask(index)
    for _ in range(3):
        nodes, _ = index.nearest_memories(_query("t2 99999"), mask)
        index.cells.wait()
        assert nodes.size == mask.sum()
    assert len(calls) == 1
    assert not index.cells.ready

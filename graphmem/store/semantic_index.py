"""The projection's semantic part: a vector per memory and per word concept, and the relatedness edges.

Like the rest of the projection this is derived data, rebuilt from the rows (texts and concept keys) and the
pinned model, never written back as truth. Memories' vectors are stored by memory row as int8 with one scale
per row (a quarter of float32's bytes; a cosine moves by about 7e-4, at most 2e-3 on real texts), because a
query reads every visible memory's vector, and int8 converts to float32 ten times faster than float16 on a CPU
without half-precision instructions (1M rows × 256: 39 against 406 ms). Words' vectors, read a few at a time,
stay float16, by concept row, so concept nodes cost nothing when they are phrases or identifiers, which
have no vector of their own.

Word concepts (a single word: a term or a one-word entity) get relatedness edges to their ``related_k``
nearest words with cosine ≥ ``related_threshold``: "nervous" ↔ "anxious", "party" ↔ "celebration". Forms of
one concept spelled apart ("roll-back", "rollback"; "e-mail", "email") are joined by an edge of ``join_weight``
whatever their kind. A one-word phrasal form is not joined to its verb: "rollback" and "rollout" would meet
through "roll" (the extractor keeps only the verb of "roll back" and "roll out"); the query side maps an
unknown "rollback" to "roll" instead (recall/semantic.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from graphmem.core.capacity import grown, placed
from graphmem.core.semantic import compact_form, nearest_pairs
from graphmem.settings import SemanticSettings
from graphmem.store.packed_names import PackedIndex
from graphmem.store.semantic_cells import CoarseCells
from graphmem.store.word_table import WordRows, WordTable

__all__ = ["Embedder", "SemanticIndex", "word_concept"]

Vectors = npt.NDArray[np.float32]
_VECTOR = np.float16
_WORD_KINDS = frozenset({"term", "entity"})
_SCORE_BLOCK = 8192  # memory rows converted at a time by a load and by a mean (a mean's sums keep this grouping)
# Memory rows a query's scan converts to float32 at a time: 2 MB of scratch (and 0.5 MB of gathered int8 rows). The
# scratch is freed to the C heap, which keeps it resident: 8,192 rows held 8 MB more in every server after its
# first scan of a large scope (docs/benchmarks.md, "A query's scratch"). Each row's cosine is its own einsum
# reduction, so the block size changes no bit; 2,048 rows scan 1M as fast as 8,192, 1,024 about 20 % slower.
_SCAN_BLOCK = 2048


class Embedder(Protocol):
    dimensions: int

    def embed(self, texts: list[str]) -> Vectors: ...

    def ready(self) -> bool: ...


def word_concept(key: str, kind: str) -> bool:
    """Whether a concept gets a vector: one word of prose (identifiers and code parts have no meaning to embed)."""
    return kind in _WORD_KINDS and " " not in key and key.isalpha()


class _Rows:
    """Vectors by row, with a node → row map; both grow by a quarter (:func:`graphmem.core.capacity.grown`)."""

    def __init__(self, dimensions: int, dtype: type[np.generic] = _VECTOR) -> None:
        self.vectors = np.zeros((0, dimensions), dtype=dtype)
        self.nodes = np.zeros(0, dtype=np.int64)  # row → node
        self.row_of = np.full(0, -1, dtype=np.int32)  # node → row (-1: none)
        self.count = 0

    def _grow(self, stop: int) -> None:
        if stop > len(self.vectors):
            self._resize(grown(stop, len(self.vectors), floor=256))

    def _put(self, start: int, vectors: np.ndarray) -> None:
        self.vectors[start:start + len(vectors)] = vectors

    def add(self, nodes: Sequence[int], vectors: np.ndarray) -> npt.NDArray[np.int64]:
        start, stop = self.count, self.count + len(nodes)
        self._grow(stop)
        for at in range(0, len(vectors), _SCORE_BLOCK):  # a restored table converts a block at a time
            self._put(start + at, vectors[at:at + _SCORE_BLOCK])
        self._map(np.asarray(nodes, dtype=np.int64), start)
        return np.arange(start, stop, dtype=np.int64)

    def _map(self, node_array: npt.NDArray[np.int64], start: int) -> None:
        stop = start + node_array.size
        self.nodes[start:stop] = node_array
        self.row_of = placed(self.row_of, node_array, start)
        self.count = stop

    def _resize(self, capacity: int) -> None:
        vectors = np.zeros((capacity, self.vectors.shape[1]), dtype=self.vectors.dtype)
        vectors[: self.count] = self.vectors[: self.count]
        self.vectors = vectors
        self.nodes = np.resize(self.nodes, capacity)

    def rows(self, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
        inside = nodes < len(self.row_of)
        rows = np.full(nodes.shape, -1, dtype=np.int32)
        rows[inside] = self.row_of[nodes[inside]]
        return rows

    def active(self) -> np.ndarray:
        return self.vectors[: self.count]

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}_vectors": self.active(), f"{prefix}_nodes": self.nodes[: self.count]}

    def restore(self, vectors: np.ndarray, nodes: np.ndarray) -> None:
        """Hold a snapshot's rows as loaded: their exact size (grown on the next add), and no copy of the table
        when it is stored in the table's dtype (it was converted to float32 and copied: 2.5 times its size)."""
        self.vectors = np.ascontiguousarray(vectors, dtype=self.vectors.dtype)
        self.nodes = nodes.astype(np.int64)
        self.count = len(nodes)
        self.row_of = np.full(int(self.nodes.max()) + 1 if self.count else 0, -1, dtype=np.int32)
        self.row_of[self.nodes] = np.arange(self.count, dtype=np.int32)


def _dot(block: np.ndarray, vector: Vectors) -> npt.NDArray[np.float32]:
    """``block · vector`` for one block of int8 rows, without BLAS: a matrix-vector product this small is
    memory-bound, and multi-threaded OpenBLAS hands each one to its threads, which on a busy 2-core machine
    made the scan of 1M rows 600 ms instead of 57 (einsum's own SIMD loop, one thread)."""
    return np.einsum("ij,j->i", block.astype(np.float32), vector)  # type: ignore[no-any-return]


class _QuantizedRows(_Rows):
    """Unit vectors as int8 with one float32 scale per row (``vector ≈ scale · row``): the memories' table.

    A row's scale is its largest component over 127, so every component keeps 8 bits of its own row's range.
    """

    def __init__(self, dimensions: int) -> None:
        super().__init__(dimensions, np.int8)
        self.scales = np.zeros(0, dtype=np.float32)

    def _grow(self, stop: int) -> None:
        super()._grow(stop)
        if len(self.scales) < len(self.vectors):
            self.scales = np.resize(self.scales, len(self.vectors))

    def _put(self, start: int, vectors: np.ndarray) -> None:
        block = np.asarray(vectors, dtype=np.float32)
        top = np.abs(block).max(axis=1, initial=0.0)
        scale = np.where(top > 0, top / 127.0, 0.0).astype(np.float32)
        safe = np.where(scale > 0, scale, 1.0)[:, None]
        self.vectors[start:start + len(block)] = np.rint(block / safe).astype(np.int8)
        self.scales[start:start + len(block)] = scale

    def similarity(self, vector: Vectors, rows: npt.NDArray[np.int32]) -> npt.NDArray[np.float32]:
        """Cosine of each row with ``vector`` (a unit float32 vector). A filter holding most of the table is
        read in order (no gather), any other a block of its rows at a time: scratch stays 2.5 MB."""
        if rows.size > self.count // 2:
            every = np.empty(self.count, dtype=np.float32)
            for start in range(0, self.count, _SCAN_BLOCK):
                block = self.vectors[start:min(start + _SCAN_BLOCK, self.count)]
                every[start:start + len(block)] = _dot(block, vector)
            every *= self.scales[: self.count]
            return every[rows]
        result = np.empty(rows.size, dtype=np.float32)
        for start in range(0, rows.size, _SCAN_BLOCK):
            wanted = rows[start:start + _SCAN_BLOCK]
            result[start:start + wanted.size] = _dot(self.vectors[wanted], vector) * self.scales[wanted]
        return result

    def unit_floats(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The rows as unit float32 vectors (the coarse cells' training and filing)."""
        floats = self.vectors[rows].astype(np.float32) * self.scales[rows, None]
        norms = np.linalg.norm(floats, axis=1, keepdims=True)
        norms[norms == 0] = 1.0  # a row of zeros (an empty text) stays zeros
        unit: npt.NDArray[np.float32] = floats / norms
        return unit

    def floats(self, rows: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
        """The rows as float64 vectors (a few at a time: a mean, a centred cosine)."""
        return self.vectors[rows].astype(np.float64) * self.scales[rows, None].astype(np.float64)

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return super().state(prefix) | {f"{prefix}_scales": self.scales[: self.count]}

    def restore_quantized(self, vectors: np.ndarray, scales: np.ndarray, nodes: np.ndarray) -> None:
        """A saved int8 table as it is (no round trip through float, no copy: a write grows a new table)."""
        _Rows.restore(self, vectors, nodes)  # the rows as loaded (restore itself quantizes a float table)
        self.scales = scales.astype(np.float32)

    def restore(self, vectors: np.ndarray, nodes: np.ndarray) -> None:
        """A float table (a format-5 snapshot's float16 rows): quantized a block at a time."""
        self.count = 0
        self.add(nodes.astype(np.int64).tolist(), vectors)


class SemanticIndex:
    """Memory and word vectors of one projection; None-safe: without an embedder every query is empty."""

    def __init__(self, embedder: Embedder | None, settings: SemanticSettings, words: WordTable | None = None) -> None:
        """``words``: the table a partitioned server's projections share their word vectors in
        (store/word_table.py); None: this index holds its own."""
        self.embedder = embedder if settings.enabled else None
        self.settings = settings
        dimensions = self.embedder.dimensions if self.embedder is not None else 1
        # int8 with a scale per row: 100k memories hold 26 MB of vectors (float16: 51, float32: 102), and a
        # query converts them in blocks.
        self.memories = _QuantizedRows(dimensions)
        self.words: _Rows | WordRows = _Rows(dimensions) if words is None or self.embedder is None else words.view()
        self.cells = CoarseCells(settings.cells_per_million)  # store/semantic_cells.py: large scopes' scan
        self._compact = PackedIndex()  # compact form → the first concept node spelled that way
        self._compact_source: Callable[[], PackedIndex] | None = None  # a format-6 snapshot's, built when first read
        self.edge_counts = {"form": 0, "related": 0}  # undirected edges this index added to the graph
        # Texts waiting for the model (it loads in the background, so opening a store and answering
        # `initialize` never wait for it); embedded on the first read that needs vectors.
        self._pending_memories: list[tuple[int, str]] = []
        self._pending_words: list[tuple[int, str]] = []

    @property
    def enabled(self) -> bool:
        return self.embedder is not None

    @property
    def compact(self) -> PackedIndex:
        """Compact form → the first concept node spelled that way: a snapshot's as saved (store/packed_names.py);
        one from a format-6 snapshot is built on its first read (2.5M forms at 1M memories, about a second)."""
        if self._compact_source is not None:
            source, self._compact_source = self._compact_source, None
            self._compact = source()
        return self._compact

    def embed(self, texts: list[str]) -> Vectors:
        assert self.embedder is not None
        return self.embedder.embed(texts)

    def flush(self) -> None:
        """Embed every text still waiting for the model (waits for it to load)."""
        if self.embedder is None:
            return
        if self._pending_memories:
            pending, self._pending_memories = self._pending_memories, []
            self.memories.add([node for node, _ in pending], self.embedder.embed([text for _, text in pending]))
        if self._pending_words:
            pending, self._pending_words = self._pending_words, []
            self.words.add([node for node, _ in pending], self.embedder.embed([key for _, key in pending]))

    def _deferred(self) -> bool:
        """Whether new texts wait: the model is still loading and no edge needs their vectors now (once it
        has loaded, the next write embeds what waited with its own texts)."""
        assert self.embedder is not None
        return self.settings.related_k == 0 and not self.embedder.ready()

    # -- following the rows ---------------------------------------------------------------------
    def add_memories(self, nodes: Sequence[int], texts: Sequence[str]) -> None:
        if self.embedder is None or not nodes:
            return
        self._pending_memories.extend(zip(nodes, texts, strict=True))
        if not self._deferred():
            self.flush()

    def add_concepts(self, nodes: Sequence[int], keys: Sequence[str],
                     kinds: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Index new concepts; returns the undirected edges (a, b, weight) they bring: joins and relatedness."""
        joins = self._joins(nodes, keys)
        if self.embedder is None:
            return joins
        words = [(node, key) for node, key, kind in zip(nodes, keys, kinds, strict=True) if word_concept(key, kind)]
        if not words:
            return joins
        self.edge_counts["form"] += len(joins[0])
        if self._deferred():
            self._pending_words.extend(words)
            return joins
        self.flush()
        rows = self.words.add([node for node, _ in words], self.embedder.embed([key for _, key in words]))
        pool = self.words.active()
        new_rows, pool_rows, cosine = nearest_pairs(pool[rows], pool, self.settings.related_k,
                                                    self.settings.related_threshold, new_offset=int(rows[0]))
        # An edge between two new words is found from both ends: keep it once.
        pool_nodes = self.words.nodes[pool_rows]
        new_nodes = self.words.nodes[rows[new_rows]]
        once = (pool_rows < rows[0]) | (new_nodes < pool_nodes)
        related = (new_nodes[once], pool_nodes[once], self.settings.related_weight * cosine[once])
        self.edge_counts["related"] += int(once.sum())
        return tuple(np.concatenate([j, r]) for j, r in zip(joins, related, strict=True))  # type: ignore[return-value]

    def _joins(self, nodes: Sequence[int], keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a: list[int] = []
        b: list[int] = []
        for node, key in zip(nodes, keys, strict=True):
            form = compact_form(key)
            first = self.compact.setdefault(form, node)
            if first != node and len(form) > 2:  # "a b" → "ab" joins nothing meaningful
                a.append(node)
                b.append(first)

        return (np.array(a, dtype=np.int64), np.array(b, dtype=np.int64),
                np.full(len(a), self.settings.join_weight))

    # -- queries --------------------------------------------------------------------------------
    def memory_similarity(self, query: npt.NDArray[np.floating[Any]],
                          nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """Cosine of each memory node with the query vector (0 for a memory without a vector)."""
        self.flush()
        rows = self.memories.rows(nodes)
        result = np.zeros(len(nodes))
        has = rows >= 0
        result[has] = self.memories.similarity(query.astype(np.float32), rows[has])
        return result

    def nearest_memories(self, query: npt.NDArray[np.floating[Any]], mask: npt.NDArray[np.bool_],
                         admitted: npt.NDArray[np.int64] | None = None,
                         ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The memory nodes ``mask`` admits that a ranking by meaning reads, and their cosine with the query.

        Every one, exactly, below ``cells_min_rows`` of them; above, those filed in the query's nearest coarse
        cells (store/semantic_cells.py): the scan of a million memories reads a tenth of them. ``admitted``: the
        nodes ``mask`` admits, ascending, when the caller holds them (a pass over every node is 2.5 ms at 1M).
        """
        self.flush()
        nodes = np.flatnonzero(mask) if admitted is None else admitted
        if nodes.size < self.settings.cells_min_rows or self.settings.cells_probe == 0:
            return nodes, self.memory_similarity(query, nodes)
        vector = query.astype(np.float32)
        rows = self.cells.candidates(self.memories, vector, self.settings.cells_probe)
        if rows is None:  # the cells are being trained: exact meanwhile
            return nodes, self.memory_similarity(query, nodes)
        found = self.memories.nodes[rows]
        # Admitted by the filter, and the node's current row (a node filed twice keeps its latest vector).
        keep = (found < len(mask)) & (self.memories.row_of[found] == rows)
        keep[keep] = mask[found[keep]]
        rows, found = rows[keep], found[keep]
        return found, self.memories.similarity(vector, rows).astype(np.float64)

    def train_cells(self) -> bool:
        """Train the coarse cells now when a scan of every memory would read them (``cells_min_rows`` memories or
        more) and none fit the table yet; whether this trained them. A large scan trains them on a thread, exact
        meanwhile (150 ms a query at a million memories): a snapshot written ahead carries them instead."""
        self.flush()
        if self.memories.count < self.settings.cells_min_rows or self.settings.cells_probe == 0:
            return False
        return self.cells.train_now(self.memories)

    def mean_vector(self, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """The mean of the memory nodes' vectors (not unit length; zeros when none has a vector)."""
        self.flush()
        rows = self.memories.rows(nodes)
        wanted = rows[rows >= 0]
        total = np.zeros(self.memories.vectors.shape[1])
        for start in range(0, wanted.size, _SCORE_BLOCK):
            total += self.memories.floats(wanted[start:start + _SCORE_BLOCK]).sum(axis=0)
        result: npt.NDArray[np.float64] = total / max(wanted.size, 1)
        return result

    def centered_similarity(self, query: npt.NDArray[np.floating[Any]], nodes: npt.NDArray[np.int64],
                            center: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Cosine of each memory node with the query once ``center`` is subtracted from both (0 without a vector).

        Subtracting a set's mean vector removes what all its texts share (in a conversation, the speakers'
        manner and the filler words), so what is left compares the topics.
        """
        self.flush()
        rows = self.memories.rows(nodes)
        result = np.zeros(len(nodes))
        has = rows >= 0
        shifted_query = query.astype(np.float64) - center
        length = float(np.linalg.norm(shifted_query))
        if not has.any() or length == 0.0:
            return result
        shifted = self.memories.floats(rows[has]) - center
        norms = np.linalg.norm(shifted, axis=1)
        result[has] = np.where(norms > 0, shifted @ shifted_query / np.maximum(norms, 1e-12) / length, 0.0)
        return result

    def nearest_words(self, vector: Vectors, threshold: float, k: int) -> list[tuple[int, float]]:
        """Word concept nodes at least ``threshold`` close to ``vector``, closest first."""
        self.flush()
        if self.words.count == 0:
            return []
        _, cols, cosine = nearest_pairs(vector[None, :], self.words.active(), k, threshold)
        return [(int(self.words.nodes[c]), float(s)) for c, s in zip(cols, cosine, strict=True)]

    def word_vectors(self, nodes: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int32], np.ndarray]:
        """Rows of the word nodes (-1: none) and the word vector table."""
        self.flush()
        return self.words.rows(nodes), self.words.vectors

    def state(self) -> dict[str, Any]:
        self.flush()
        return self.memories.state("semantic_memory") | self.words.state("semantic_word") | self.cells.state()

    def restore(self, arrays: dict[str, np.ndarray], compact_keys: PackedIndex | Callable[[], PackedIndex],
                edge_counts: dict[str, int]) -> None:
        """Take a snapshot's arrays; ``compact_keys`` is the compact-form map or what builds it when first read."""
        if callable(compact_keys):
            self._compact, self._compact_source = PackedIndex(), compact_keys
        else:
            self._compact, self._compact_source = compact_keys, None
        self.edge_counts = {**self.edge_counts, **edge_counts}
        if self.embedder is None or "semantic_memory_vectors" not in arrays:
            return
        if "semantic_memory_scales" in arrays:
            self.memories.restore_quantized(arrays["semantic_memory_vectors"], arrays["semantic_memory_scales"],
                                            arrays["semantic_memory_nodes"])
        else:  # a snapshot from before the int8 table (float16 rows): quantized on the way in
            self.memories.restore(arrays["semantic_memory_vectors"], arrays["semantic_memory_nodes"])
        self.words.restore(arrays["semantic_word_vectors"], arrays["semantic_word_nodes"])
        self.cells.restore(arrays, self.memories.count)

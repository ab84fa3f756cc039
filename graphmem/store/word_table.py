"""One word-vector table for all the projections of a partitioned server's pool.

A word concept's vector is the embedding of its key, the same in every project, yet each per-project projection
held its own table of them: 4.2 MiB for a 9,091-memory project of the 1M-memory bench, most of it the same
vectors as the other projects' (docs/benchmarks.md, "The pool at 1M, again"). Here the pool's projections keep
their words' rows in one :class:`WordTable`; each projection's :class:`WordRows` maps its nodes to those rows.

A row is found by its content, not by its word: two projections' vectors of one word are the same bytes (the
model is deterministic), and a snapshot's vectors come without their words. A row is shared only with a vector
of exactly the same bytes (a digest finds it, a comparison confirms it), so every projection reads exactly the
vectors its own table would have held. A projection holds its rows while its :class:`WordRows` lives: they are
released when that is collected, not when the pool drops the projection, because a reader may still be ranking
with it. A released row is reused by the next new vector.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from graphmem.core.capacity import grown, placed

__all__ = ["WordRows", "WordTable"]

IntArray = npt.NDArray[np.int64]
_VECTOR = np.float16  # the projection's word tables' dtype (semantic_index.py)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # a digest only has to spread the rows; a hit is checked byte by byte


_BLOCK = 4096  # rows digested at a time: 8 MiB of scratch at 256 dimensions


def _digests(vectors: npt.NDArray[np.float16]) -> IntArray:
    """A 64-bit digest of each row's bytes (equal bytes, equal digest)."""
    halves = np.ascontiguousarray(vectors).view(np.uint16)
    digests = np.empty(len(halves), dtype=np.uint64)
    with np.errstate(over="ignore"):
        weights = _MIX ** np.arange(1, halves.shape[1] + 1, dtype=np.uint64)
        for start in range(0, len(halves), _BLOCK):
            block = halves[start:start + _BLOCK].astype(np.uint64)
            digests[start:start + len(block)] = (block * weights).sum(axis=1, dtype=np.uint64)
    return digests.view(np.int64)


def _same(a: np.ndarray, b: np.ndarray) -> npt.NDArray[np.bool_]:
    """Row by row, whether two float16 tables hold the same bytes (-0.0 is not 0.0 here)."""
    return np.all(a.view(np.uint16) == b.view(np.uint16), axis=1)  # type: ignore[no-any-return]


class WordTable:
    """Word vectors by row (float16), each row held by the projections that use it (thread-safe)."""

    def __init__(self, dimensions: int) -> None:
        self.vectors = np.zeros((0, dimensions), dtype=_VECTOR)
        self._holders = np.zeros(0, dtype=np.int32)  # by row: how many acquisitions hold it (0: free)
        self._digests = np.zeros(0, dtype=np.int64)  # sorted, of the held rows
        self._digest_rows = np.zeros(0, dtype=np.int64)
        self._free = np.zeros(0, dtype=np.int64)  # released rows, reused first
        self._top = 0  # rows ever handed out
        self._lock = threading.Lock()

    @property
    def rows_held(self) -> int:
        """Rows some projection holds."""
        return self._top - int(self._free.size)

    @property
    def rows_allocated(self) -> int:
        """Rows ever handed out, held or free (the table's high-water mark)."""
        return self._top

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self._holders.nbytes + self._digests.nbytes + self._digest_rows.nbytes
                   + self._free.nbytes)

    def view(self) -> WordRows:
        """The rows of one projection's words (empty)."""
        return WordRows(self)

    def acquire(self, vectors: np.ndarray) -> IntArray:
        """The row holding each vector (as float16), added where no row holds its bytes yet; each is held once
        more until :meth:`release`."""
        table = np.asarray(vectors, dtype=_VECTOR).reshape(-1, self.vectors.shape[1])
        digests = _digests(table)
        with self._lock:
            rows = self._find(table, digests)
            missing = np.flatnonzero(rows < 0)
            if missing.size:
                rows[missing] = self._add(table[missing], digests[missing])
            np.add.at(self._holders, rows, 1)
            return rows

    def release(self, rows: IntArray) -> None:
        """Let go of rows :meth:`acquire` handed out (each once per time it was handed out)."""
        if not rows.size:
            return
        with self._lock:
            np.subtract.at(self._holders, rows, 1)
            freed = np.unique(rows[self._holders[rows] == 0])
            if freed.size:
                kept = ~np.isin(self._digest_rows, freed)
                self._digests, self._digest_rows = self._digests[kept], self._digest_rows[kept]
                self._free = np.concatenate([self._free, freed])

    def _find(self, table: np.ndarray, digests: IntArray) -> IntArray:
        rows = np.full(len(table), -1, dtype=np.int64)
        at = np.searchsorted(self._digests, digests)
        hit = at < self._digests.size
        hit[hit] = self._digests[at[hit]] == digests[hit]
        candidates = self._digest_rows[at[hit]]
        confirmed = _same(self.vectors[candidates], table[hit])
        rows[np.flatnonzero(hit)[confirmed]] = candidates[confirmed]
        return rows

    def _add(self, table: np.ndarray, digests: IntArray) -> IntArray:
        """New rows for ``table``'s vectors, one per distinct row of bytes."""
        width = np.dtype((np.void, table.shape[1] * table.itemsize))
        _, first, inverse = np.unique(np.ascontiguousarray(table).view(width).ravel(), return_index=True,
                                      return_inverse=True)
        new_rows = self._allocate(first.size)
        self.vectors[new_rows] = table[first]
        order = np.argsort(digests[first], kind="stable")  # inserted in order: equal positions keep it
        at = np.searchsorted(self._digests, digests[first][order])
        self._digests = np.insert(self._digests, at, digests[first][order])
        self._digest_rows = np.insert(self._digest_rows, at, new_rows[order])
        return new_rows[inverse.ravel()]

    def _allocate(self, count: int) -> IntArray:
        reused = self._free[: count]
        self._free = self._free[reused.size :]
        start, self._top = self._top, self._top + count - reused.size
        if self._top > len(self.vectors):
            capacity = grown(self._top, len(self.vectors), floor=256)
            vectors = np.zeros((capacity, self.vectors.shape[1]), dtype=_VECTOR)
            vectors[: len(self.vectors)] = self.vectors
            self.vectors = vectors  # a reader holding the old table reads its own rows there, unchanged
            self._holders = np.resize(self._holders, capacity)
            self._holders[start:] = 0
        return np.concatenate([reused, np.arange(start, self._top, dtype=np.int64)])


class _Held:
    """The rows one projection holds (what releases them when its :class:`WordRows` is collected)."""

    def __init__(self) -> None:
        self.rows = np.zeros(0, dtype=np.int32)
        self.count = 0

    def release_to(self, table: WordTable) -> None:
        table.release(self.rows[: self.count].astype(np.int64))
        self.count = 0


class WordRows:
    """One projection's word vectors in a :class:`WordTable`: what ``SemanticIndex.words`` holds in a pool.

    It reads as the projection's own table would: :meth:`add` and :meth:`active` in the order the words came
    (``nodes`` by that position), while :meth:`rows` gives each node's row in the shared ``vectors``.
    """

    def __init__(self, table: WordTable) -> None:
        self.table = table
        self.nodes = np.zeros(0, dtype=np.int64)  # position → node
        self.row_of = np.full(0, -1, dtype=np.int32)  # node → position (-1: none)
        self.count = 0
        self._held = _Held()
        weakref.finalize(self, self._held.release_to, table)

    @property
    def vectors(self) -> np.ndarray:
        """The shared table (index it with :meth:`rows`)."""
        return self.table.vectors

    @property
    def nbytes(self) -> int:
        """This projection's own bytes (the shared table is the pool's)."""
        return int(self.nodes.nbytes + self.row_of.nbytes + self._held.rows.nbytes)

    def add(self, nodes: Sequence[int], vectors: np.ndarray) -> IntArray:
        """Hold the nodes' vectors; returns their positions in :meth:`active`."""
        start, stop = self.count, self.count + len(nodes)
        rows = self.table.acquire(vectors)
        if stop > len(self.nodes):
            capacity = grown(stop, len(self.nodes), floor=256)
            self.nodes = np.resize(self.nodes, capacity)
            self._held.rows = np.resize(self._held.rows, capacity)
        self._held.rows[start:stop] = rows
        self._held.count = stop
        node_array = np.asarray(nodes, dtype=np.int64)
        self.nodes[start:stop] = node_array
        self.row_of = placed(self.row_of, node_array, start)
        self.count = stop
        return np.arange(start, stop, dtype=np.int64)

    def rows(self, nodes: IntArray) -> npt.NDArray[np.int32]:
        """Each node's row in :attr:`vectors` (-1: not a word of this projection)."""
        positions = np.full(nodes.shape, -1, dtype=np.int32)
        inside = nodes < len(self.row_of)
        positions[inside] = self.row_of[nodes[inside]]
        rows = np.full(nodes.shape, -1, dtype=np.int32)
        has = positions >= 0
        rows[has] = self._held.rows[positions[has]]
        return rows

    def active(self) -> np.ndarray:
        """This projection's vectors in the order they came (a copy)."""
        return self.table.vectors[self._held.rows[: self.count]]

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}_vectors": self.active(), f"{prefix}_nodes": self.nodes[: self.count]}

    def restore(self, vectors: np.ndarray, nodes: np.ndarray) -> None:
        """Hold a snapshot's rows (instead of any held before)."""
        self._held.release_to(self.table)
        self.nodes, self.row_of, self.count = np.zeros(0, dtype=np.int64), np.full(0, -1, dtype=np.int32), 0
        if len(nodes):
            self.add(nodes.astype(np.int64).tolist(), vectors)

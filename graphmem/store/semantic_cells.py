"""Coarse cells over the memory vectors: a large scope's semantic scan reads a few cells, not every row.

The semantic leg ranks a filter's memories by cosine with the query. Exactly, that reads every visible memory's
vector: at a million memories, 50–90 ms per query whose gate opens, the whole of a search's p95 and most of an
associate (docs/benchmarks.md). Above ``cells_min_rows`` visible memories the scan reads cells instead, an
inverted file: spherical k-means centroids of the memory vectors, each row filed under its nearest centroid,
and a query reads the rows of its ``cells_probe`` nearest cells, then ranks those exactly. Below the threshold,
which every eval set and most projects are, the scan stays exact.

Like the rest of the projection the cells are derived data: trained from the table when a large scan first
asks for them, kept current as rows arrive (a new row is filed under its nearest centroid), trained again once
the table has grown ``_RETRAIN_GROWTH`` times, and saved with the snapshot so a restart does not train them
again. Training takes seconds at a million rows (filing every row under one of ~1,000 centroids), so it runs on
a thread of its own: until the cells are ready the scan stays exact, and a query never waits for them.
Training is deterministic for a given table (a fixed seed picks the sample and the first centroids).
"""

from __future__ import annotations

import logging
import math
import threading
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from graphmem.core.capacity import grown

__all__ = ["CoarseCells", "FloatRows"]

_log = logging.getLogger(__name__)

_SAMPLE_PER_CELL = 64  # training rows per centroid (k-means needs a few dozen per cell)
_ITERATIONS = 8  # Lloyd iterations over the sample (assignments barely move after 5-6)
_BLOCK = 16_384  # rows filed at a time: scratch of a block × cells floats
_RETRAIN_GROWTH = 4  # train again once the table holds this many times the rows the centroids saw
_UNLISTED_SHARE = 16  # sort the lists again once the rows filed since exceed 1/16 of the listed ones


class FloatRows(Protocol):
    """The memory table as the cells read it."""

    count: int

    def unit_floats(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]: ...


@dataclass
class _Cells:
    """Trained centroids, each filed row's cell, and the first ``listed`` rows grouped by cell."""

    centroids: npt.NDArray[np.float32]
    trained: int  # table rows the centroids were trained on
    of_row: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    filed: int = 0
    order: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    starts: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    listed: int = 0

    def file(self, table: FloatRows, stop: int) -> None:
        """File rows ``filed``..``stop`` under their nearest centroid."""
        if stop > len(self.of_row):
            of_row = np.zeros(grown(stop, len(self.of_row)), dtype=np.int32)
            of_row[: self.filed] = self.of_row[: self.filed]
            self.of_row = of_row
        for at in range(self.filed, stop, _BLOCK):
            rows = np.arange(at, min(at + _BLOCK, stop), dtype=np.int64)
            self.of_row[rows] = _nearest(table.unit_floats(rows), self.centroids)
        self.filed = stop
        if self.listed == 0 or self.filed - self.listed > self.listed // _UNLISTED_SHARE:
            self.list_rows()

    def list_rows(self) -> None:
        cells = self.of_row[: self.filed]
        self.order = np.argsort(cells, kind="stable").astype(np.int32)
        self.starts = np.zeros(len(self.centroids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(cells, minlength=len(self.centroids)), out=self.starts[1:])
        self.listed = self.filed

    def candidates(self, query: npt.NDArray[np.float32], probe: int) -> npt.NDArray[np.int32]:
        closeness = self.centroids @ query
        probe = min(probe, len(closeness))
        nearest = np.sort(np.argpartition(-closeness, probe - 1)[:probe])
        parts = [self.order[self.starts[cell]:self.starts[cell + 1]] for cell in nearest.tolist()]
        unlisted = np.arange(self.listed, self.filed, dtype=np.int32)  # filed since the lists were sorted
        parts.append(unlisted[np.isin(self.of_row[unlisted], nearest)])
        return np.concatenate(parts)


class CoarseCells:
    """The cells of one memory table: trained on a thread of their own, read under a lock."""

    def __init__(self, cells_per_million: int) -> None:
        self.cells_per_million = cells_per_million
        self._cells: _Cells | None = None
        self._lock = threading.Lock()
        self._training: threading.Thread | None = None
        self._failed = False

    @property
    def ready(self) -> bool:
        return self._cells is not None

    def cell_count(self, rows: int) -> int:
        """How many cells a table of ``rows`` is split into: about √rows (1,000 cells of ~1,000 rows at a
        million, at the default), at least 16, at most one per row."""
        return min(rows, max(16, round(self.cells_per_million * math.sqrt(rows / 1_000_000))))

    def candidates(self, table: FloatRows, query: npt.NDArray[np.float32],
                   probe: int) -> npt.NDArray[np.int32] | None:
        """The rows of the ``probe`` cells nearest the query (those filed since the lists were sorted included);
        None while no cells are trained yet (the caller scans exactly). The rows the table gained since are
        filed first; a table that outgrew its cells starts their training again, and the old ones answer."""
        with self._lock:
            cells = self._cells
            if cells is None or table.count >= _RETRAIN_GROWTH * cells.trained:
                self._start_training(table)
            if cells is None:
                return None
            if cells.filed < table.count:
                cells.file(table, table.count)
            return cells.candidates(query, probe)

    def train_now(self, table: FloatRows) -> bool:
        """Train the cells now, waiting for them, unless the ones held still fit the table (``graphmem snapshot``:
        the snapshot written next carries them, so a server opened from it never scans exactly while a thread
        trains them); whether new cells were trained."""
        with self._lock:
            held = self._cells
            if held is not None and table.count < _RETRAIN_GROWTH * held.trained:
                return False
            self._start_training(table)
        self.wait()
        return self._cells is not held

    def wait(self) -> None:
        """Block until a training under way has finished (tests, benchmarks, a snapshot that wants them)."""
        thread = self._training
        if thread is not None:
            thread.join()

    def _start_training(self, table: FloatRows) -> None:
        if self._failed or (self._training is not None and self._training.is_alive()):
            return
        self._training = threading.Thread(target=self._train, args=(table, table.count),
                                          name="graphmem-coarse-cells", daemon=True)
        self._training.start()

    def _train(self, table: FloatRows, count: int) -> None:
        try:
            cells = _trained(table, count, self.cell_count(count))
        except Exception:  # the exact scan goes on answering; a memory error here must not end the server
            _log.exception("training the coarse cells failed: the semantic scan stays exact")
            self._failed = True
            return
        with self._lock:
            self._cells = cells  # rows added meanwhile are filed by the next query

    # -- the snapshot ---------------------------------------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        with self._lock:
            cells = self._cells
            if cells is None:
                return {}
            if cells.listed < cells.filed:
                cells.list_rows()
            return {"semantic_cells_centroids": cells.centroids, "semantic_cells_of_row": cells.of_row[: cells.filed],
                    "semantic_cells_order": cells.order, "semantic_cells_starts": cells.starts,
                    "semantic_cells_trained": np.array([cells.trained], dtype=np.int64)}

    def restore(self, arrays: dict[str, np.ndarray], rows: int) -> None:
        """Take saved cells as saved when they fit the table and the settings, else leave them to be trained."""
        if "semantic_cells_centroids" not in arrays:
            return
        of_row, trained = arrays["semantic_cells_of_row"], int(arrays["semantic_cells_trained"][0])
        centroids = arrays["semantic_cells_centroids"]
        if len(of_row) > rows or len(centroids) != self.cell_count(trained):
            return  # another table's cells, or another cell count asked for
        filed = len(of_row)
        self._cells = _Cells(np.asarray(centroids, dtype=np.float32), trained, np.asarray(of_row, dtype=np.int32),
                             filed, np.asarray(arrays["semantic_cells_order"], dtype=np.int32),
                             np.asarray(arrays["semantic_cells_starts"], dtype=np.int64), filed)


def _trained(table: FloatRows, count: int, cells: int) -> _Cells:
    """Spherical k-means on a sample of the first ``count`` rows, then every one of them filed."""
    rng = np.random.default_rng(0)
    sample_size = min(count, cells * _SAMPLE_PER_CELL)
    sample = table.unit_floats(np.sort(rng.choice(count, size=sample_size, replace=False)).astype(np.int64))
    centroids = sample[rng.choice(sample_size, size=cells, replace=False)].copy()
    for _ in range(_ITERATIONS):
        nearest = _nearest(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, nearest, sample)
        norms = np.linalg.norm(sums, axis=1)
        filled = norms > 0  # a cell that drew no row keeps its centroid
        centroids[filled] = sums[filled] / norms[filled, None]
    result = _Cells(centroids, count)
    result.file(table, count)
    return result


def _nearest(rows: npt.NDArray[np.float32], centroids: npt.NDArray[np.float32]) -> npt.NDArray[np.int32]:
    """Each row's nearest centroid by cosine (rows and centroids are unit vectors)."""
    result = np.empty(len(rows), dtype=np.int32)
    for at in range(0, len(rows), _BLOCK):
        result[at:at + _BLOCK] = np.argmax(rows[at:at + _BLOCK] @ centroids.T, axis=1)
    return result

"""A growable weighted graph stored as a CSR base plus a small CSR delta.

Recall needs ``Pᵀa`` (row-normalized propagation) over a graph that grows on every write. Rebuilding
a 3-million-edge CSR per write would dominate the store path, and rebuilding per query would
dominate recall. So new edges go to a delta that is merged into the base when it passes a fraction
of the base size (amortized O(1) per edge), and row normalization is applied on the fly from an
out-strength vector that is updated incrementally, which keeps P exact without re-normalizing rows.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = ["FloatArray", "IntArray", "SpreadingGraph"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_MIN_DELTA_BEFORE_MERGE = 20_000
_DELTA_FRACTION_BEFORE_MERGE = 0.10


class SpreadingGraph:
    """Directed weighted graph over nodes ``0..n_nodes-1`` with fast sparse propagation.

    Parallel edges add up. ``spread(a)`` returns ``Pᵀ(a·scale)`` with ``P = D⁻¹A`` and ``D`` the
    out-strength, touching only the rows of nodes with non-zero activation.

    Examples
    --------
    >>> g = SpreadingGraph()
    >>> _ = g.add_nodes(3)
    >>> g.add_edges([0, 0], [1, 2], [1.0, 3.0])
    >>> g.spread(np.array([1.0, 0.0, 0.0])).tolist()
    [0.0, 0.25, 0.75]
    """

    def __init__(self) -> None:
        self._n = 0
        self._base: sp.csr_array = sp.csr_array((0, 0), dtype=np.float64)
        self._delta_src: list[IntArray] = []
        self._delta_dst: list[IntArray] = []
        self._delta_w: list[FloatArray] = []
        self._delta_size = 0
        self._delta_csr: sp.csr_array | None = None
        self._out_strength: FloatArray = np.zeros(0)
        self._spread_scale: FloatArray = np.ones(0)

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return self._n

    @property
    def out_strength(self) -> FloatArray:
        """Sum of outgoing edge weights per node (read-only view)."""
        view = self._out_strength[: self._n]
        view.flags.writeable = False
        return view

    def add_nodes(self, count: int) -> range:
        """Append ``count`` isolated nodes and return their indices."""
        start = self._n
        self._n += count
        if self._n > len(self._out_strength):
            capacity = max(self._n, 2 * len(self._out_strength), 1024)
            self._out_strength = _grow(self._out_strength, capacity, 0.0)
            self._spread_scale = _grow(self._spread_scale, capacity, 1.0)
        self._delta_csr = None
        return range(start, self._n)

    def add_edges(
        self, sources: npt.ArrayLike, targets: npt.ArrayLike, weights: npt.ArrayLike
    ) -> None:
        """Add directed edges; weights must be finite and non-negative. Parallel edges add up."""
        src = np.asarray(sources, dtype=np.int64)
        dst = np.asarray(targets, dtype=np.int64)
        w = np.asarray(weights, dtype=np.float64)
        if not (src.shape == dst.shape == w.shape):
            raise ValueError("sources, targets and weights must have the same length")
        if src.size == 0:
            return
        if src.min() < 0 or dst.min() < 0 or max(src.max(), dst.max()) >= self._n:
            raise IndexError("edge endpoint outside the graph")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("edge weights must be finite and non-negative")
        np.add.at(self._out_strength, src, w)
        self._delta_src.append(src)
        self._delta_dst.append(dst)
        self._delta_w.append(w)
        self._delta_size += src.size
        self._delta_csr = None
        if self._delta_size > max(_MIN_DELTA_BEFORE_MERGE, _DELTA_FRACTION_BEFORE_MERGE * self._base.nnz):
            self.compact()

    def set_spread_scale(self, nodes: npt.ArrayLike, scale: npt.ArrayLike) -> None:
        """Scale how much of its activation a node passes on (1 = all, 0 = none; the hub cap)."""
        self._spread_scale[np.asarray(nodes, dtype=np.int64)] = np.asarray(scale, dtype=np.float64)

    def compact(self) -> None:
        """Merge the delta into the base CSR (duplicates summed)."""
        if self._delta_size == 0 and self._base.shape == (self._n, self._n):
            return
        self._base = self._merged()
        self._delta_src, self._delta_dst, self._delta_w = [], [], []
        self._delta_size = 0
        self._delta_csr = None

    def adjacency(self) -> sp.csr_array:
        """The full weighted adjacency as one CSR (base + delta); for export and tests."""
        return self._merged()

    def neighbors(self, node: int) -> tuple[IntArray, FloatArray]:
        """Out-neighbours of ``node`` and the summed edge weights."""
        row = self._rows(np.array([node], dtype=np.int64)).tocsr()
        row.sum_duplicates()
        return row.indices.astype(np.int64), row.data.astype(np.float64)

    def spread(self, activation: FloatArray) -> FloatArray:
        """Return ``Pᵀ(a·scale)``: each active node passes its activation split by edge weight."""
        active = np.flatnonzero(activation[: self._n])
        out = np.zeros(self._n)
        if active.size == 0:
            return out
        strength = self._out_strength[active]
        sending = strength > 0
        active, strength = active[sending], strength[sending]
        share = activation[active] * self._spread_scale[active] / strength
        rows = self._rows(active)
        # rowsᵀ @ share sums each active row scaled by its share into the target columns.
        out += rows.T @ share
        return out

    def _rows(self, nodes: IntArray) -> sp.csr_array:
        base_rows = self._pad(self._base)[nodes]
        if self._delta_size == 0:
            return base_rows
        return base_rows + self._delta()[nodes]

    def _delta(self) -> sp.csr_array:
        if self._delta_csr is None or self._delta_csr.shape[0] != self._n:
            src = np.concatenate(self._delta_src)
            dst = np.concatenate(self._delta_dst)
            w = np.concatenate(self._delta_w)
            self._delta_csr = sp.csr_array((w, (src, dst)), shape=(self._n, self._n))
        return self._delta_csr

    def _pad(self, matrix: sp.csr_array) -> sp.csr_array:
        if matrix.shape == (self._n, self._n):
            return matrix
        padded = sp.csr_array(
            (matrix.data, matrix.indices, np.concatenate([matrix.indptr, np.full(self._n - matrix.shape[0],
                                                                                  matrix.indptr[-1])])),
            shape=(self._n, self._n),
        )
        if matrix is self._base:
            self._base = padded
        return padded

    def _merged(self) -> sp.csr_array:
        base = self._pad(self._base)
        if self._delta_size == 0:
            return base
        merged = (base + self._delta()).tocsr()
        merged.sum_duplicates()
        return merged


def _grow(array: FloatArray, capacity: int, fill: float) -> FloatArray:
    grown = np.full(capacity, fill)
    grown[: len(array)] = array
    return grown

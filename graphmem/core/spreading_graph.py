"""A growable weighted graph stored as a CSR base plus a small CSR delta.

Recall needs ``Pᵀa`` (row-normalized propagation) over a graph that grows on every write. Rebuilding
a 3-million-edge CSR per write would dominate the store path, and rebuilding per query would
dominate recall. So new edges go to a delta that is merged into the base when it passes a fraction
of the base size (amortized O(1) per edge), and row normalization is applied on the fly from an
out-strength vector that is updated incrementally, which keeps P exact without re-normalizing rows.

The base is compact: float32 weights and int32 column indices and row pointers (8 bytes an edge plus
4 a row, against 12 and 8 for scipy's defaults), for the base and its cached transpose alike. Weights
are summed in float64 when the delta is merged and rounded once per merge; propagation multiplies
them into float64 activations, so results equal the float64 graph's up to float32 rounding (about
1e-7 relative). The out-strengths stay float64 sums of the weights as given.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from graphmem.core.capacity import grown

__all__ = ["INDEX", "WEIGHT", "FloatArray", "IntArray", "RestrictedGraph", "SpreadingGraph", "members", "sum_sparse"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

WEIGHT = np.float32  # stored edge weights (the base CSR and its transpose)
INDEX = np.int32  # stored column indices and row pointers (a graph stays far below 2**31 edges)
_REMOVED = 1e-6  # a weight left by remove_edges below this is rounding residue: the entry goes
# A spread pushing from more than 1/16 of the rows does one mat-vec instead of slicing them; counts into more than
# 1/16 of the nodes pass over the rows instead of building the transpose (measured on the scale bench's graphs).
_MANY = 16
_GATHER = 1 << 16  # edges a count over the rows reads at a time (their indices widened to int64: 512 KiB)
# A sparse vector's duplicates are summed over a dense count when its index range is at most this many nodes plus
# this factor times its length, else by sorting (np.unique): measured crossover, see _summed.
_DENSE_SUM_NODES = 1 << 14
_DENSE_SUM_FACTOR = 32
_ROWS_KEPT = 4  # rows() reads kept while the edges are unchanged
_FEW_MEMBERS = 16  # np.isin's set-up beats comparing one candidate at a time beyond this many (members)
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
        self._base: sp.csr_array = sp.csr_array(
            (np.zeros(0, WEIGHT), np.zeros(0, INDEX), np.zeros(1, INDEX)), shape=(0, 0))
        self._delta_src: list[IntArray] = []
        self._delta_dst: list[IntArray] = []
        self._delta_w: list[FloatArray] = []
        self._delta_size = 0
        self._delta_csr: sp.csr_array | None = None
        self._out_strength: FloatArray = np.zeros(0)
        self._out_degree: FloatArray = np.zeros(0)
        self._spread_scale: FloatArray = np.ones(0)
        self._base_t: sp.csr_array | None = None
        self._version = 0  # bumped by every change to the edges (base or delta)
        self._rows_memo: dict[tuple[int, bytes], tuple[IntArray, IntArray, FloatArray]] = {}  # rows(), by version
        self._base_version = 0  # bumped when the base CSR's entries change (compaction, removal)

    @property
    def version(self) -> int:
        """Changes whenever an edge is added, removed or merged: caches derived from edges key on it."""
        return self._version

    @property
    def base_version(self) -> int:
        """Changes only when the base CSR's entries change (a compaction or a removal), not on appends."""
        return self._base_version

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

    @property
    def out_degree(self) -> FloatArray:
        """Number of outgoing edges per node (read-only view)."""
        view = self._out_degree[: self._n]
        view.flags.writeable = False
        return view

    @property
    def nbytes(self) -> int:
        """Bytes of the graph's arrays at their capacity, the base's transpose counted whether or not it is
        built yet (a filter admitting fewer than a sixteenth of the nodes builds it, :meth:`column_counts`, and it
        stays until the base changes)."""
        base = self._base
        csr = base.data.nbytes + base.indices.nbytes + base.indptr.nbytes
        delta = sum(array.nbytes for parts in (self._delta_src, self._delta_dst, self._delta_w) for array in parts)
        return int(2 * csr + delta + self._out_strength.nbytes + self._out_degree.nbytes + self._spread_scale.nbytes)

    def add_nodes(self, count: int) -> range:
        """Append ``count`` isolated nodes and return their indices."""
        start = self._n
        self._n += count
        if self._n > len(self._out_strength):
            self._resize(grown(self._n, len(self._out_strength)))
        self._delta_csr = None
        return range(start, self._n)

    def reserve(self, count: int) -> None:
        """Make room for exactly ``count`` more nodes (a load that knows its size leaves no headroom)."""
        if self._n + count > len(self._out_strength):
            self._resize(self._n + count)

    def _resize(self, capacity: int) -> None:
        self._out_strength = _grow(self._out_strength, capacity, 0.0)
        self._out_degree = _grow(self._out_degree, capacity, 0.0)
        self._spread_scale = _grow(self._spread_scale, capacity, 1.0)

    def add_edges(
        self, sources: npt.ArrayLike, targets: npt.ArrayLike, weights: npt.ArrayLike, *, increments: bool = False
    ) -> None:
        """Add directed edges; weights must be finite and non-negative. Parallel edges add up.

        Weights are rounded to the stored float32 on entry, so an edge spreads the same before and after
        the merge that stores it. ``increments=True`` takes them as given instead: differences of float32
        weights (``w(after) - w(before)``, exact in float64), whose sum then lands exactly on the float32
        total however the increments were split between merges.
        """
        src = np.asarray(sources, dtype=np.int64)
        dst = np.asarray(targets, dtype=np.int64)
        w = np.asarray(weights, dtype=np.float64)
        if not increments:
            w = w.astype(WEIGHT).astype(np.float64)
        if not (src.shape == dst.shape == w.shape):
            raise ValueError("sources, targets and weights must have the same length")
        if src.size == 0:
            return
        if src.min() < 0 or dst.min() < 0 or max(src.max(), dst.max()) >= self._n:
            raise IndexError("edge endpoint outside the graph")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("edge weights must be finite and non-negative")
        np.add.at(self._out_strength, src, w)
        np.add.at(self._out_degree, src, 1.0)
        self._version += 1
        self._delta_src.append(src)
        self._delta_dst.append(dst)
        self._delta_w.append(w)
        self._delta_size += src.size
        self._delta_csr = None
        if self._delta_size > max(_MIN_DELTA_BEFORE_MERGE, _DELTA_FRACTION_BEFORE_MERGE * self._base.nnz):
            self.compact()

    def remove_edges(
        self, sources: npt.ArrayLike, targets: npt.ArrayLike, weights: npt.ArrayLike
    ) -> None:
        """Take back edges added earlier with these weights (a relation revised or ignored).

        Rare compared to additions, so it compacts at once and drops the emptied entries rather than
        leaving zero-weight edges in ``neighbors``.
        """
        w = np.asarray(weights, dtype=np.float64)
        if np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError("edge weights must be finite and non-negative")
        w = w.astype(WEIGHT).astype(np.float64)  # as add_edges stored them
        src = np.asarray(sources, dtype=np.int64)
        self.add_edges(src, targets, np.zeros_like(w))  # validates the endpoints
        np.subtract.at(self._out_strength, src, w)
        np.subtract.at(self._out_degree, src, 2.0)  # the zero edge above counted once too
        np.maximum(self._out_strength, 0.0, out=self._out_strength)
        np.maximum(self._out_degree, 0.0, out=self._out_degree)
        self._delta_src.append(src)
        self._delta_dst.append(np.asarray(targets, dtype=np.int64))
        self._delta_w.append(-w)
        self._delta_size += src.size
        self.compact()
        self._base.data[np.abs(self._base.data) < _REMOVED] = 0.0
        self._base.eliminate_zeros()
        self._base_t = None
        self._version += 1
        self._base_version += 1

    def add_outside_edges(self, nodes: npt.ArrayLike, strength: npt.ArrayLike, degree: npt.ArrayLike) -> None:
        """Count, per node, ``degree`` edges of total weight ``strength`` to nodes this graph does not hold (a
        projection of part of a store: a concept's mentions in the other projects), so a node passes on its
        activation in the same shares as in the whole graph. Nothing flows along them."""
        at = np.asarray(nodes, dtype=np.int64)
        if at.size and (at.min() < 0 or at.max() >= self._n):
            raise IndexError("node outside the graph")
        np.add.at(self._out_strength, at, np.asarray(strength, dtype=np.float64))
        np.add.at(self._out_degree, at, np.asarray(degree, dtype=np.float64))
        self._version += 1

    def set_spread_scale(self, nodes: npt.ArrayLike, scale: npt.ArrayLike) -> None:
        """Scale how much of its activation a node passes on (1 = all, 0 = none; the hub cap)."""
        self._spread_scale[np.asarray(nodes, dtype=np.int64)] = np.asarray(scale, dtype=np.float64)

    def compact(self) -> None:
        """Merge the delta into the base CSR (duplicates summed)."""
        if self._delta_size == 0 and self._base.shape == (self._n, self._n):
            return
        self._base = _compact_csr(self._merged())
        self._base_t = None
        self._version += 1
        self._base_version += 1
        self._delta_src, self._delta_dst, self._delta_w = [], [], []
        self._delta_size = 0
        self._delta_csr = None

    def state(self) -> dict[str, npt.NDArray[np.generic]]:
        """The graph as plain arrays (delta merged), for a snapshot; :meth:`from_state` rebuilds it.

        >>> g = SpreadingGraph(); _ = g.add_nodes(2); g.add_edges([0], [1], [2.0])
        >>> SpreadingGraph.from_state(g.state()).spread(np.array([1.0, 0.0])).tolist()
        [0.0, 1.0]
        """
        self.compact()
        n = self._n
        return {"n": np.array([n]), "data": self._base.data, "indices": self._base.indices,
                "indptr": self._base.indptr, "out_strength": self._out_strength[:n],
                "out_degree": self._out_degree[:n], "spread_scale": self._spread_scale[:n]}

    @classmethod
    def from_state(cls, state: dict[str, npt.NDArray[np.generic]], *, copy: bool = True) -> SpreadingGraph:
        """The graph :meth:`state` described. With ``copy=False`` the per-node arrays are taken as they are (a
        snapshot's, mapped copy-on-write: no allocation and no copy at an open) and grown on the first node added;
        the state must then belong to nobody else."""
        graph = cls()
        n = int(state["n"][0])
        graph._base = _compact_csr(sp.csr_array((state["data"], state["indices"], state["indptr"]), shape=(n, n)))
        if not copy:  # an unaligned array (a member of a zip starts anywhere) is copied: a spread indexes them
            graph._n = n
            graph._out_strength = np.require(state["out_strength"], np.float64, "A")
            graph._out_degree = np.require(state["out_degree"], np.float64, "A")
            graph._spread_scale = np.require(state["spread_scale"], np.float64, "A")
            return graph
        graph.add_nodes(n)
        graph._out_strength[:n] = state["out_strength"]
        graph._out_degree[:n] = state["out_degree"]
        graph._spread_scale[:n] = state["spread_scale"]
        return graph

    def adjacency(self) -> sp.csr_array:
        """The full weighted adjacency as one CSR (base + delta); for export and tests."""
        return self._merged()

    def neighbors(self, node: int) -> tuple[IntArray, FloatArray]:
        """Out-neighbours of ``node`` and the summed edge weights (reads CSR rows directly)."""
        parts_idx, parts_w = [], []
        for matrix in (self._base, self._delta() if self._delta_size else None):
            if matrix is not None and node < matrix.shape[0]:
                lo, hi = matrix.indptr[node], matrix.indptr[node + 1]
                parts_idx.append(matrix.indices[lo:hi])
                parts_w.append(matrix.data[lo:hi])
        if not parts_idx:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        targets = np.concatenate(parts_idx).astype(np.int64)
        weights = np.concatenate(parts_w).astype(np.float64)
        unique, inverse = np.unique(targets, return_inverse=True)
        # numpy's stub types bincount as intp even when float weights make it float64
        return unique, np.bincount(inverse, weights=weights, minlength=unique.size)  # type: ignore[return-value]

    def neighbor_counts(self, nodes: IntArray, admitted: np.ndarray) -> IntArray:
        """For each of ``nodes``, how many of its out-neighbours ``admitted`` (a boolean mask) holds.

        A concept's document frequency *within a filter* (one project) is this count over the
        filter's memories; it reads only the rows of ``nodes``, like :meth:`spread_sparse`.

        >>> g = SpreadingGraph(); _ = g.add_nodes(4)
        >>> g.add_edges([0, 0, 0, 1], [1, 2, 3, 3], [1.0, 1.0, 1.0, 1.0])
        >>> g.neighbor_counts(np.array([0, 1]), np.array([False, True, False, True])).tolist()
        [2, 1]
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        row, target, _ = self._gather(nodes)
        # Mention edges are unique per (memory, concept); counting edges counts memories.
        return np.bincount(row[admitted[target]], minlength=nodes.size).astype(np.int64)

    def spread_sparse(self, nodes: IntArray, values: FloatArray, min_share: float = 0.0,
                      base: sp.csr_array | None = None) -> tuple[IntArray, FloatArray]:
        """:meth:`spread` on a sparse vector (``nodes``, ``values``), returning a sparse vector.

        Nothing here is proportional to the number of nodes, only to the edges of the pushing
        rows: at 100k memories the graph has ~700k nodes and every dense temporary cost ~0.5 ms.
        ``base`` replaces the base CSR by a restriction of it (:meth:`restricted`); the delta is read as is.
        """
        strength = self._out_strength[nodes]
        scale = self._spread_scale[nodes]
        sending = (strength > 0) & (values > 0)
        if min_share > 0.0:
            sending &= values * scale / np.maximum(self._out_degree[nodes], 1) >= min_share
        if not sending.all():
            nodes, values, strength, scale = nodes[sending], values[sending], strength[sending], scale[sending]
        if nodes.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        share = values * scale / strength
        # Few numpy calls per row set: at 600 memories a spread reads ~200 rows, and each call costs more than
        # its arithmetic (the same products and sums as slicing the rows one by one).
        targets, amounts = [], []
        top = int(nodes.max())
        for matrix in (self._base if base is None else base, self._delta() if self._delta_size else None):
            if matrix is None:
                continue
            rows, pushed = nodes, share
            if top >= matrix.shape[0]:
                inside = nodes < matrix.shape[0]
                rows, pushed = nodes[inside], share[inside]
            starts = matrix.indptr[rows]
            lengths = matrix.indptr[rows + 1] - starts
            ends = np.cumsum(lengths)
            total = int(ends[-1]) if ends.size else 0
            if total == 0:
                continue
            positions = np.repeat(starts - (ends - lengths), lengths) + np.arange(total)
            targets.append(matrix.indices[positions].astype(np.int64))
            amounts.append(matrix.data[positions] * np.repeat(pushed, lengths))
        if not targets:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(targets) == 1:
            return _summed(targets[0], amounts[0], self._n)
        return _summed(np.concatenate(targets), np.concatenate(amounts), self._n)

    def restricted(self, keep: np.ndarray) -> RestrictedGraph:
        """This graph as spreading sees it when only the nodes ``keep`` (a boolean mask) can be reached.

        The base CSR loses its entries from and into the other nodes, once: a concept's row then holds the
        edges into one project's memories, not into every project's. Spreading over the result gives
        exactly what spreading over the whole graph and then dropping the other nodes gives (the same
        row normalization, the same order of summation); edges appended since are read from the delta.
        """
        base = self._base
        keep = np.asarray(keep, dtype=bool)
        columns = np.zeros(max(base.shape), dtype=bool)
        inside = min(columns.size, keep.size)
        columns[:inside] = keep[:inside]
        if columns.all():  # nothing to drop (a projection of one project, filtered by it): the base itself
            return RestrictedGraph(self, base, self._base_version)
        # Rows of the other nodes go too: a walk never stands on them, and the copy stays the filter's size.
        rows = np.repeat(columns[: base.shape[0]], np.diff(base.indptr))
        kept = columns[base.indices] & rows
        indptr = np.concatenate(([0], np.cumsum(kept, dtype=np.int64)))[base.indptr]
        # int32 like the base: an int64 row pointer made scipy widen the indices too (12 bytes an edge, not 8).
        sub = _compact_csr(sp.csr_array((base.data[kept], base.indices[kept], indptr), shape=base.shape))
        return RestrictedGraph(self, sub, self._base_version)

    def column_counts(self, columns: IntArray) -> IntArray:
        """For every node, how many of its out-edges end in ``columns`` (one count per node, length n).

        :meth:`neighbor_counts` for all nodes at once. Few columns (one project's memories in the whole store's
        graph) are read from the rows of the transposed base, so the cost follows the edges into them, not the
        whole graph. Many columns (a sixteenth of the nodes or more: a project's projection filtered by its
        project) are counted over the base's rows instead, in one pass over its edges: the transpose would cost
        as much to build and would stay, a copy of the graph (2.4 MiB for a 9k-memory project).

        >>> g = SpreadingGraph(); _ = g.add_nodes(4)
        >>> g.add_edges([0, 0, 0, 1, 2], [1, 2, 3, 3, 1], [1.0, 1.0, 1.0, 1.0, 1.0])
        >>> g.compact(); g.column_counts(np.array([1, 3])).tolist()
        [2, 1, 1, 0]
        """
        columns = np.asarray(columns, dtype=np.int64)
        wanted = np.zeros(self._n, dtype=bool)
        wanted[columns] = True
        if self._base_t is None and columns.size * _MANY > self._n:
            counts = self._counts_from_rows(self._base, wanted)
        else:
            counts = self._counts_from_transpose(columns)
        if self._delta_size:
            counts += self._counts_from_rows(self._delta(), wanted)
        return counts

    def _counts_from_rows(self, matrix: sp.csr_array, wanted: np.ndarray) -> IntArray:
        """Per row of ``matrix``, how many of its entries are in a ``wanted`` column (length n)."""
        counts = np.zeros(self._n, dtype=np.int64)
        # A query's scope counts its project's graph anew each second, and the C heap keeps the peak of the
        # scratch resident, so the running count is the only array an edge long (int32 while it fits), made a
        # slice of the edges at a time: numpy widens int32 indices to int64 for a gather and casts the hits to the
        # sum's type before a cumsum, 12 bytes an edge if done at once. 4 bytes an edge at the peak, 1.1 MiB for a
        # 9k-memory project's 282k edges (17 bytes, 4.6 MiB, before). Integer sums: the same counts.
        indices = matrix.indices
        running: npt.NDArray[np.signedinteger[Any]] = np.zeros(
            indices.size + 1, dtype=np.int32 if indices.size < 2**31 else np.int64)
        for start in range(0, indices.size, _GATHER):
            part = running[start + 1:start + 1 + _GATHER]
            np.cumsum(np.take(wanted, indices[start:start + _GATHER]), dtype=running.dtype, out=part)
            part += running[start]
        counts[: matrix.shape[0]] = np.diff(running[matrix.indptr])
        return counts

    def _counts_from_transpose(self, columns: IntArray) -> IntArray:
        counts = np.zeros(self._n, dtype=np.int64)
        transposed = self._base_transposed()
        inside = columns[columns < transposed.shape[0]]
        starts, ends = transposed.indptr[inside], transposed.indptr[inside + 1]
        lengths = ends - starts
        if lengths.sum():
            positions = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths) + np.arange(
                lengths.sum())
            counts += np.bincount(transposed.indices[positions], minlength=self._n)[: self._n]
        return counts

    def rows(self, nodes: IntArray) -> tuple[IntArray, IntArray, FloatArray]:
        """:meth:`neighbors` of several nodes in one read: (position in ``nodes``, target, summed weight).

        Sorted by position, then target, with the same sums :meth:`neighbors` gives node by node.
        """
        nodes = np.asarray(nodes, dtype=np.int64)
        memo_key = (self._version, nodes.tobytes())
        found = self._rows_memo.get(memo_key)
        if found is not None:
            return found
        row, target, weight = self._gather(nodes)
        keys = row * max(self._n, 1) + target
        summed: FloatArray
        if _ascending(keys):  # distinct nodes, no delta: the base's rows are sorted and hold no parallel edge
            # the sum bincount gives a lone entry (0.0 + w): the same float, -0.0 included
            unique, summed = keys, weight + 0.0
        else:
            unique, inverse = np.unique(keys, return_inverse=True)
            summed = np.bincount(inverse, weights=weight, minlength=unique.size).astype(np.float64)
        width = max(self._n, 1)
        positions_out: IntArray = (unique // width).astype(np.int64)
        targets_out: IntArray = (unique % width).astype(np.int64)
        found = (positions_out, targets_out, summed)
        for part in found:
            part.flags.writeable = False  # shared with the next reader of the same rows
        # The last few reads, while the edges are unchanged (every change bumps the version): a search reads the
        # rows of its first hits for the bridge and the gate, and of its page for the carriers and the coverage.
        memo = self._rows_memo if all(key[0] == self._version for key in self._rows_memo) else {}
        if len(memo) >= _ROWS_KEPT:
            memo = dict(list(memo.items())[1:])
        memo[memo_key] = found
        self._rows_memo = memo
        return found

    def linked(self, nodes: IntArray, targets: IntArray) -> tuple[IntArray, IntArray]:
        """The distinct (position in ``nodes``, target) pairs of the edges from ``nodes`` into ``targets``, sorted
        by position, then target: :meth:`rows` without the weights, deduplicating only the edges kept.

        >>> g = SpreadingGraph(); _ = g.add_nodes(4)
        >>> g.add_edges([0, 0, 1, 1], [2, 3, 2, 2], [1.0, 1.0, 1.0, 1.0])
        >>> [part.tolist() for part in g.linked(np.array([1, 0]), np.array([2]))]
        [[0, 1], [2, 2]]
        """
        position, target, _ = self.rows(nodes)  # the same pairs, in the same order, as the rows' distinct entries
        kept = members(target, targets)
        return position[kept], target[kept]

    def _gather(self, nodes: IntArray) -> tuple[IntArray, IntArray, FloatArray]:
        """Every stored edge of ``nodes`` (base and delta, parallel edges not yet summed):
        (position in ``nodes``, target, weight), read straight from the CSR rows."""
        parts_row, parts_idx, parts_w = [], [], []
        top = int(nodes.max()) if nodes.size else -1
        for matrix in (self._base, self._delta() if self._delta_size else None):
            if matrix is None:
                continue
            if top < matrix.shape[0]:  # every node has a row here (always, in the delta)
                inside, rows = np.arange(nodes.size), nodes
            else:
                inside = np.flatnonzero(nodes < matrix.shape[0])
                rows = nodes[inside]
            starts = matrix.indptr[rows]
            lengths = matrix.indptr[rows + 1] - starts
            ends = np.cumsum(lengths)
            positions = np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]) if ends.size else 0)
            parts_row.append(np.repeat(inside, lengths))
            parts_idx.append(matrix.indices[positions].astype(np.int64))
            parts_w.append(matrix.data[positions].astype(np.float64))
        if not parts_row:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(parts_row) == 1:
            return parts_row[0], parts_idx[0], parts_w[0]
        return np.concatenate(parts_row), np.concatenate(parts_idx), np.concatenate(parts_w)

    def spread(self, activation: FloatArray, min_share: float = 0.0) -> FloatArray:
        """Return ``Pᵀ(a·scale)``: each active node passes its activation split by edge weight.

        A node whose per-neighbour share ``a·scale/degree`` is below ``min_share`` does not push
        (the push threshold of Andersen, Chung & Lang's local PageRank): its contributions would be
        pruned anyway, and skipping it bounds the work per step by ``1/min_share`` edges.
        """
        active = np.flatnonzero(activation[: self._n])
        out = np.zeros(self._n)
        if active.size == 0:
            return out
        strength = self._out_strength[active]
        sending = strength > 0
        if min_share > 0.0:
            pushed = activation[active] * self._spread_scale[active] / np.maximum(self._out_degree[active], 1)
            sending &= pushed >= min_share
        active, strength = active[sending], strength[sending]
        if active.size == 0:
            return out
        share = activation[active] * self._spread_scale[active] / strength
        base = self._pad(self._base)
        if active.size * _MANY > base.shape[0]:
            out += self._pushed_by_many(base, active, share)
        else:
            out += base[active].T @ share
        if self._delta_size:
            out += self._delta()[active].T @ share
        return out

    def _pushed_by_many(self, base: sp.csr_array, active: IntArray, share: FloatArray) -> FloatArray:
        """``baseᵀ`` times the dense share vector: one mat-vec, which beats slicing the rows once they hold a
        sizeable share of all edges. On the transpose when a filter's counts built it (a gather per node); else on
        ``base.T``, scipy's CSC view of the same arrays (no copy), which adds every product in the same order into
        the same float64 sums: the same floats bit for bit (tests/core/test_spreading_graph.py)."""
        dense = np.zeros(base.shape[0])
        dense[active] = share
        if self._base_t is None:
            pushed: FloatArray = base.T @ dense
            return pushed
        pushed = np.zeros(base.shape[0])
        size = self._base_t.shape[0]
        pushed[:size] = self._base_t @ dense[:size]
        return pushed

    def _base_transposed(self) -> sp.csr_array:
        # Built once per compaction, by a filter's counts over few columns (column_counts). Nodes added since then
        # have no base edges, so the transpose of the base as it was compacted stays exact: it covers the first nodes.
        if self._base_t is None:
            self._base_t = _compact_csr(self._base.T.tocsr())
        return self._base_t

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
        tail = np.full(self._n - matrix.shape[0], matrix.indptr[-1], dtype=matrix.indptr.dtype)
        padded = _compact_csr(sp.csr_array((matrix.data, matrix.indices, np.concatenate([matrix.indptr, tail])),
                                           shape=(self._n, self._n)))
        if matrix is self._base:
            self._base = padded
        return padded

    def _merged(self) -> sp.csr_array:
        base = self._pad(self._base)
        if self._delta_size == 0:
            return base
        merged: sp.csr_array = (base + self._delta()).tocsr()
        merged.sum_duplicates()
        return merged


class RestrictedGraph:
    """A :class:`SpreadingGraph` whose base CSR keeps only the edges into some nodes (``restricted``).

    It spreads like the graph it came from, as long as that graph's base is unchanged (``current``).
    """

    def __init__(self, graph: SpreadingGraph, base: sp.csr_array, base_version: int) -> None:
        self.graph = graph
        self.base = base
        self.base_version = base_version

    @property
    def current(self) -> bool:
        return self.graph.base_version == self.base_version and self.graph._base.shape[0] >= self.base.shape[0]

    @property
    def n_nodes(self) -> int:
        return self.graph.n_nodes

    def spread_sparse(self, nodes: IntArray, values: FloatArray,
                      min_share: float = 0.0) -> tuple[IntArray, FloatArray]:
        """:meth:`SpreadingGraph.spread_sparse` over the restricted base and the graph's current delta."""
        return self.graph.spread_sparse(nodes, values, min_share, base=self.base)


def sum_sparse(nodes: IntArray, values: FloatArray, size: int | None = None) -> tuple[IntArray, FloatArray]:
    """Public alias of the duplicate-merging step, for kernels that accumulate sparse vectors (``size``: a bound
    of the indices, e.g. the graph's node count)."""
    return _summed(nodes, values, size)


def _summed(nodes: IntArray, values: FloatArray, size: int | None = None) -> tuple[IntArray, FloatArray]:
    """Merge duplicate indices of a sparse vector by summing their values; ``size`` bounds the indices
    (counted here when not given).

    Over a small index range (a 600-memory store has ~15k nodes) a dense count beats sorting: ``np.unique``
    costs ~15 µs of calls however short the vector, a bincount over 15k nodes ~6 µs. Both add each index's
    values in the order given (``bincount`` over the indices or over ``np.unique``'s inverse): the same floats.
    """
    if size is None:
        size = int(nodes.max()) + 1 if nodes.size else 0
    if size <= _DENSE_SUM_NODES + _DENSE_SUM_FACTOR * nodes.size:
        total: FloatArray = np.bincount(nodes, weights=values, minlength=size)  # type: ignore[assignment]
        seen = np.zeros(size, dtype=bool)
        seen[nodes] = True
        present: IntArray = np.flatnonzero(seen)
        return present, total[present]
    unique, inverse = np.unique(nodes, return_inverse=True)
    # numpy's stub types bincount as intp even when float weights make it float64
    return unique, np.bincount(inverse, weights=values, minlength=unique.size)  # type: ignore[return-value]


def members(values: npt.NDArray[Any], candidates: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """``np.isin(values, candidates)``; a few candidates (a query's seeds, a page's sources) are compared one by
    one, which skips ``np.isin``'s ~40 µs of set-up.

    >>> members(np.array([3, 1, 4, 1, 5]), [1, 5]).tolist()
    [False, True, False, True, True]
    """
    wanted = np.asarray(candidates).ravel()
    if wanted.size > _FEW_MEMBERS:
        found: npt.NDArray[np.bool_] = np.isin(values, wanted)
        return found
    found = np.zeros(np.shape(values), dtype=bool)
    for candidate in wanted.tolist():
        found |= values == candidate
    return found


def _ascending(keys: IntArray) -> bool:
    """Whether ``keys`` is strictly ascending (already the sorted distinct keys ``np.unique`` would give)."""
    return keys.size < 2 or bool((keys[1:] > keys[:-1]).all())


def _compact_csr(matrix: sp.csr_array) -> sp.csr_array:
    """``matrix`` with float32 data and int32 indices and row pointers (no copy where it has them)."""
    if matrix.data.dtype == WEIGHT and matrix.indices.dtype == INDEX and matrix.indptr.dtype == INDEX:
        return matrix
    if matrix.nnz >= np.iinfo(INDEX).max or max(matrix.shape) >= np.iinfo(INDEX).max:
        raise OverflowError("the graph outgrew int32 indices")
    return sp.csr_array((matrix.data.astype(WEIGHT, copy=False), matrix.indices.astype(INDEX, copy=False),
                         matrix.indptr.astype(INDEX, copy=False)), shape=matrix.shape)


def _grow(array: FloatArray, capacity: int, fill: float) -> FloatArray:
    resized = np.full(capacity, fill)
    resized[: len(array)] = array
    return resized

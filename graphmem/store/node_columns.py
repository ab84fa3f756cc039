"""The projection's per-node facts as numpy columns: a few for every node, the memory fields once per memory.

Nodes are concepts and memories in one index space, and most of them are concepts: 42,991 of the 52,082 nodes of
a 9,091-memory project of the 1M-memory bench, 2.5M of 3.5M in the whole store. The memory fields (project, kind,
status, times, strength, use, length, hidden, learn fields: 64 bytes) were held for every node, so four fifths of
them held a concept's fill value (docs/benchmarks.md, "The pool at 1M, again": columns 25 MiB of the five served
projects' 105). Now a node has its type, seq, document frequency, concept kind and memory row (19 bytes), and the
memory fields are held by memory row, with the row's node beside them.

Readers keep reading a memory field by node: :meth:`NodeColumns.get` returns a :class:`MemoryColumn`, which
indexes like the per-node array it replaces (``column[nodes]``, a concept node reading the field's fill value)
and turns into that array where one is needed (``np.asarray``, comparisons, iteration). The fill comes from the
memory table's last slot, which no memory uses: a concept's row is -1, so one gather reads both.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.core.capacity import grown

__all__ = ["MEMORY_COLUMNS", "NODE_COLUMNS", "MemoryColumn", "NodeColumns"]

_NEVER = np.iinfo(np.int64).max
NODE_COLUMNS: dict[str, tuple[type[np.generic], Any]] = {  # name: (dtype, fill), one entry per node
    "node_type": (np.int8, -1), "seq": (np.int64, -1), "df": (np.int32, 0),
    "concept_kind": (np.int16, -1),  # a concept's kind, coded like project (-1 on memory nodes)
    "memory_row": (np.int32, -1),  # a memory node's row in the memory columns (-1: a concept)
}
MEMORY_COLUMNS: dict[str, tuple[type[np.generic], Any]] = {  # name: (dtype, fill), one entry per memory row
    "project": (np.int32, -1), "kind": (np.int32, -1), "status": (np.int8, -1), "created": (np.int64, 0),
    "valid_from": (np.int64, 0), "valid_to": (np.int64, _NEVER), "hidden": (np.bool_, False),
    "length": (np.float32, 0.0),  # mention count
    "strength": (np.float64, 1.0), "use_count": (np.int32, 0), "last_used": (np.int64, 0),  # lifecycle: decay
    "outcome": (np.int32, -1), "task_type": (np.int32, -1),  # Kyew's learn fields, codes like project
    "node": (np.int32, -1),  # the row's node
}


class MemoryColumn:
    """A memory field read by node, as the per-node column it replaces: ``column[nodes]`` gives each node's value
    (a concept node's is the field's fill), and ``np.asarray(column)`` the whole per-node array.

    >>> columns = NodeColumns(); columns.add(range(0, 2), node_type=0); columns.add(range(2, 4), node_type=1)
    >>> columns.arrays["strength"][columns.rows_of([2, 3])] = [0.5, 0.25]
    >>> strength = columns.get("strength", 4)
    >>> strength[3], strength[[0, 2, 3]].tolist(), strength.tolist(), (strength == 0.5).tolist()
    (np.float64(0.25), [1.0, 0.5, 0.25], [1.0, 1.0, 0.5, 0.25], [False, False, True, False])
    """

    __slots__ = ("_row", "_values")
    __hash__ = None  # type: ignore[assignment]  # compares element-wise, like an array

    def __init__(self, values: np.ndarray, row: npt.NDArray[np.int32]) -> None:
        self._values = values  # by row; its last slot holds the fill (no row uses it)
        self._row = row  # node → row, -1 on a concept: the last slot

    def __getitem__(self, nodes: Any) -> Any:
        return self._values[self._row[nodes]]

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        values = self._values[self._row]
        return values if dtype is None else values.astype(dtype, copy=False)

    def __len__(self) -> int:
        return len(self._row)

    def __iter__(self) -> Iterator[Any]:
        return iter(np.asarray(self))

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._values.dtype

    @property
    def shape(self) -> tuple[int]:
        return (len(self._row),)

    @property
    def size(self) -> int:
        return len(self._row)

    def tolist(self) -> list[Any]:
        values: list[Any] = np.asarray(self).tolist()
        return values

    def copy(self) -> np.ndarray:
        return np.asarray(self)

    def __eq__(self, other: object) -> Any:
        return np.asarray(self) == other

    def __ne__(self, other: object) -> Any:
        return np.asarray(self) != other

    def __lt__(self, other: object) -> Any:
        return np.asarray(self) < other

    def __le__(self, other: object) -> Any:
        return np.asarray(self) <= other

    def __gt__(self, other: object) -> Any:
        return np.asarray(self) > other

    def __ge__(self, other: object) -> Any:
        return np.asarray(self) >= other


class NodeColumns:
    """The node columns (:data:`NODE_COLUMNS`, by node) and the memory columns (:data:`MEMORY_COLUMNS`, by memory
    row, one slot more than the rows: the fill a concept node reads). ``arrays`` holds them all by name, at their
    capacity; ``rows`` is the number of memory rows in use."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {name: np.full(0, fill, dtype) for name, (dtype, fill) in
                                              NODE_COLUMNS.items()}
        self.arrays |= {name: np.full(1, fill, dtype) for name, (dtype, fill) in MEMORY_COLUMNS.items()}
        self.rows = 0

    @property
    def nbytes(self) -> int:
        return sum(int(array.nbytes) for array in self.arrays.values())

    def get(self, name: str, n_nodes: int) -> Any:
        """The column ``name`` over the first ``n_nodes`` nodes: a view of a node column, a
        :class:`MemoryColumn` of a memory column."""
        if name in NODE_COLUMNS:
            return self.arrays[name][:n_nodes]
        return MemoryColumn(self.arrays[name], self.arrays["memory_row"][:n_nodes])

    def node(self, name: str, n_nodes: int) -> np.ndarray:
        """The node column ``name`` over the first ``n_nodes`` nodes (a view)."""
        return self.arrays[name][:n_nodes]

    def memory(self, name: str) -> np.ndarray:
        """The memory column ``name`` by row (the rows in use only: a writable view)."""
        return self.arrays[name][: self.rows]

    def rows_of(self, nodes: Any) -> Any:
        """The memory row of each of ``nodes`` (-1 on a concept)."""
        return self.arrays["memory_row"][nodes]

    def add(self, nodes: range, node_type: int) -> None:
        """Make room for ``nodes`` (the graph's newest) and set their type; memory nodes get the next rows."""
        if nodes.stop > len(self.arrays["node_type"]):
            self._resize_nodes(grown(nodes.stop, len(self.arrays["node_type"])))
        self.arrays["node_type"][nodes.start:nodes.stop] = node_type
        if node_type != 1 or not nodes:
            return
        start, stop = self.rows, self.rows + len(nodes)
        if stop + 1 > len(self.arrays["node"]):  # the fill slot stays last
            self._resize_rows(grown(stop + 1, len(self.arrays["node"]), floor=256))
        self.arrays["memory_row"][nodes.start:nodes.stop] = np.arange(start, stop, dtype=np.int32)
        self.arrays["node"][start:stop] = np.arange(nodes.start, nodes.stop, dtype=np.int32)
        self.rows = stop

    def reserve(self, n_nodes: int, rows: int) -> None:
        """Make room for exactly ``n_nodes`` nodes and ``rows`` memory rows (a load knows its size)."""
        if n_nodes > len(self.arrays["node_type"]):
            self._resize_nodes(n_nodes)
        if rows + 1 > len(self.arrays["node"]):
            self._resize_rows(rows + 1)

    def _resize_nodes(self, capacity: int) -> None:
        for name, (dtype, fill) in NODE_COLUMNS.items():
            self.arrays[name] = _resized(self.arrays[name], capacity, dtype, fill, len(self.arrays[name]))

    def _resize_rows(self, capacity: int) -> None:
        for name, (dtype, fill) in MEMORY_COLUMNS.items():
            self.arrays[name] = _resized(self.arrays[name], capacity, dtype, fill, self.rows)

    def state(self, n_nodes: int) -> dict[str, np.ndarray]:
        """The columns as a snapshot holds them: the node columns over ``n_nodes``, the memory columns over the
        rows and their fill slot."""
        return ({f"col_{name}": self.arrays[name][:n_nodes] for name in NODE_COLUMNS}
                | {f"col_{name}": self.arrays[name][: self.rows + 1] for name in MEMORY_COLUMNS})

    def restore(self, arrays: dict[str, np.ndarray], rows: int) -> None:
        """Take a snapshot's columns as saved (mapped copy-on-write; the first node added grows them)."""
        self.arrays = {name: np.asarray(arrays[f"col_{name}"], dtype=dtype)
                       for name, (dtype, _fill) in (NODE_COLUMNS | MEMORY_COLUMNS).items()}
        self.rows = rows

    def restore_by_node(self, arrays: dict[str, np.ndarray], memory_type: int) -> None:
        """Take the columns of a snapshot that held every field for every node (format 7 and before)."""
        node_type = np.asarray(arrays["col_node_type"], dtype=np.int8)
        nodes = np.flatnonzero(node_type == memory_type)
        memory_row = np.full(node_type.size, -1, dtype=np.int32)
        memory_row[nodes] = np.arange(nodes.size, dtype=np.int32)
        self.arrays = {name: np.asarray(arrays[f"col_{name}"], dtype=dtype)
                       for name, (dtype, _fill) in NODE_COLUMNS.items() if name != "memory_row"}
        self.arrays["memory_row"] = memory_row
        self.arrays["node"] = np.append(nodes, -1).astype(np.int32)
        for name, (dtype, fill) in MEMORY_COLUMNS.items():
            if name != "node":
                self.arrays[name] = np.append(np.asarray(arrays[f"col_{name}"])[nodes], fill).astype(dtype)
        self.rows = int(nodes.size)


def _resized(array: np.ndarray, capacity: int, dtype: type[np.generic], fill: Any, used: int) -> np.ndarray:
    resized: np.ndarray = np.full(capacity, fill, dtype)
    resized[:used] = array[:used]
    return resized

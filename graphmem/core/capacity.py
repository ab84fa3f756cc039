"""How far the projection's growable arrays grow when they are full: by a quarter, not double.

A projection is loaded at its exact size, then follows the writes, and its first reads add the query's concepts
the projection lacks (:meth:`graphmem.store.project_scope.ProjectScope.admit`). Doubling on that first growth
made a 9,091-memory project's columns, graph arrays and vector tables twice their size for the life of the
projection (issue 26: a partitioned server holds several). Growing by a quarter keeps at most a fifth of an
array unused, and an append still costs amortized O(1): each element is copied about four times over the
array's life instead of twice.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["grown", "placed"]


def grown(needed: int, current: int, floor: int = 1024) -> int:
    """The capacity to allocate for ``needed`` slots when the array holds ``current``.

    >>> grown(10, 0), grown(1_025, 1_024), grown(50_000, 1_024), grown(10, 0, floor=256)
    (1024, 1280, 50000, 256)
    """
    return max(needed, current + current // 4, floor)


def placed(row_of: npt.NDArray[np.int32], nodes: npt.NDArray[np.int64], start: int) -> npt.NDArray[np.int32]:
    """A node → row map (-1: none) with ``nodes`` at rows ``start``, ``start + 1``, …: the same array, or a grown
    copy when a node lies past its end.

    >>> row_of = placed(np.full(2, -1, dtype=np.int32), np.array([1, 3]), 5)
    >>> row_of[:4].tolist(), len(row_of)
    ([-1, 5, -1, 6], 1024)
    """
    if nodes.size and nodes.max() >= len(row_of):
        larger = np.full(grown(int(nodes.max()) + 1, len(row_of)), -1, dtype=np.int32)
        larger[: len(row_of)] = row_of
        row_of = larger
    row_of[nodes] = np.arange(start, start + nodes.size, dtype=np.int32)
    return row_of

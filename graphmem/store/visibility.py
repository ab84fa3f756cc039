"""Which memories a query may see: the filter value and its evaluation over the projection's columns.

Filters (project, kind, tags, status, superseded, ``as_of``; outcome, task type and tools used) apply
to a boolean node mask before any top-k cut, so a filtered query never loses its hits to memories it
could not see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from graphmem.core.values import STATUSES

__all__ = ["MEMORY", "VisibilityFilter", "evaluate_visibility"]

MEMORY = 1  # node_type of a memory node (concepts are 0)


@dataclass(frozen=True, slots=True)
class VisibilityFilter:
    """Which memories a query may see. Applied before any top-k cut."""

    project: str | None = None
    kinds: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    as_of_ms: int | None = None
    include_superseded: bool = False
    statuses: tuple[str, ...] = ("active", "promoted")
    outcomes: tuple[str, ...] = ()  # any of these outcomes
    task_types: tuple[str, ...] = ()  # any of these task types
    tools: tuple[str, ...] = ()  # every one of these tools used (like tags)


def evaluate_visibility(view: VisibilityFilter, now_ms: int, col: Callable[[str], np.ndarray],
                        codes: Mapping[str, Mapping[str, int]],
                        tags: Mapping[int, frozenset[str]],
                        tools: Mapping[int, frozenset[str]] | None = None, *,
                        nodes: np.ndarray | None = None, n_nodes: int = 0) -> np.ndarray:
    """Boolean mask over nodes: the memories ``view`` admits at ``now_ms`` (concept nodes are False).

    ``col`` gives a memory field's column. With ``nodes`` (the node of each memory row) the columns are by memory
    row, as the projection holds them (store/node_columns.py): the filter is evaluated over the memories only and
    set on a mask of ``n_nodes``. Without, they are by node and ``col("node_type")`` tells the memories.

    Default recall sees active and promoted memories not hidden by a judged relation and not past
    ``valid_to``; ``as_of=t`` sees exactly what existed and was valid at ``t``.
    """
    mask: np.ndarray = (np.ones(nodes.size, dtype=bool) if nodes is not None
                        else np.asarray(col("node_type")) == MEMORY)
    if view.project is not None:
        mask &= col("project") == codes["project"].get(view.project, -2)
    if view.kinds:
        mask &= np.isin(col("kind"), [codes["kind"].get(kind, -2) for kind in view.kinds])
    if view.as_of_ms is not None:
        t = view.as_of_ms
        mask &= (col("created") <= t) & (col("valid_from") <= t) & (t < col("valid_to"))
    else:
        mask &= np.isin(col("status"), [STATUSES.index(status) for status in view.statuses])
        if not view.include_superseded:
            mask &= ~col("hidden") & (now_ms < col("valid_to"))
    if view.outcomes:
        mask &= np.isin(col("outcome"), [codes["outcome"].get(value, -2) for value in view.outcomes])
    if view.task_types:
        mask &= np.isin(col("task_type"), [codes["task_type"].get(value, -2) for value in view.task_types])
    if nodes is not None:
        by_node = np.zeros(n_nodes, dtype=bool)
        by_node[nodes[mask]] = True
        mask = by_node
    _require_all(mask, view.tags, tags)
    _require_all(mask, view.tools, tools or {})
    return mask


def _require_all(mask: np.ndarray, wanted: tuple[str, ...], labels: Mapping[int, frozenset[str]]) -> None:
    """Clear the nodes of ``mask`` whose label set lacks one of ``wanted`` (in place)."""
    if not wanted:
        return
    needed = set(wanted)
    for node in np.flatnonzero(mask):
        if not needed <= labels.get(int(node), frozenset()):
            mask[node] = False

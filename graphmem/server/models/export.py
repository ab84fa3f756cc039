"""Output model of the graph export page."""

from __future__ import annotations

from typing import Any

from graphmem.server.models.base import Out

__all__ = ["GraphExportOut"]


class GraphExportOut(Out):
    """One page of the export graph (``nodes``/``edges`` carry every export attribute)."""

    scope: dict[str, Any]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    activated: list[str]
    total_nodes: int
    total_edges: int
    offset: int
    limit: int
    has_more: bool
    next_offset: int | None
    truncated: bool
    edges_truncated: bool = False

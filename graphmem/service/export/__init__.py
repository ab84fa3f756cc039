"""Graph exports (node-link, GraphML, GEXF, Cypher, Neo4j CSV, DOT, a self-contained HTML view), pages of the
graph for MCP clients, the lossless JSONL export and import (``transfer.py``), the store's statistics
(``stats.py``), and the import of the MCP reference server's memory file.

The names load on first use (PEP 562): importing one module of the package (``scope``, ``transfer``) does not
import the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.service.export.graph_build import ExportGraph
    from graphmem.service.export.graph_page import GraphPage
    from graphmem.service.export.scope import ExportScope
    from graphmem.service.export.service import GRAPH_FORMATS, ExportService

__all__ = ["GRAPH_FORMATS", "ExportGraph", "ExportScope", "ExportService", "GraphPage"]

_HOMES = {"ExportGraph": "graph_build", "ExportScope": "scope", "GRAPH_FORMATS": "service", "ExportService": "service",
          "GraphPage": "graph_page"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"graphmem.service.export.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'graphmem.service.export' has no attribute {name!r}")

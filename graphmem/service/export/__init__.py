"""Graph exports (node-link, GraphML, GEXF, Cypher, Neo4j CSV, DOT, a self-contained HTML view), pages of the
graph for MCP clients, the lossless JSONL export and import (``transfer.py``), the store's statistics
(``stats.py``), and the import of the MCP reference server's memory file."""

from graphmem.service.export.graph_build import ExportGraph
from graphmem.service.export.scope import ExportScope
from graphmem.service.export.service import GRAPH_FORMATS, ExportService, GraphPage

__all__ = ["GRAPH_FORMATS", "ExportGraph", "ExportScope", "ExportService", "GraphPage"]

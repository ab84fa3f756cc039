"""One self-contained HTML file with an interactive view of an export graph.

The vendored Cytoscape.js build (``graphmem/assets/cytoscape.min.js``, MIT; see
``graphmem/assets/VENDORED.md``), graphmem's viewer script, its stylesheet and the graph itself are
all inlined, and a Content-Security-Policy forbids every fetch, so the file works offline and
cannot leak the memories it shows.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from graphmem.service.export.graph_build import ExportGraph
from graphmem.service.export.style import DEFAULT_EDGE_STYLE, EDGE_STYLES, node_color

__all__ = ["LIBRARY", "render_html"]

_MARKER = re.compile(r"(?:/\*)?__GRAPHMEM_([A-Z]+)__(?:\*/)?")
LIBRARY = {"name": "cytoscape", "version": "3.35.0", "license": "MIT", "file": "cytoscape.min.js"}


@cache
def _asset(name: str) -> str:
    return resources.files("graphmem").joinpath("assets", name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """JSON that cannot close or confuse its ``<script>`` element: ``<`` only occurs inside JSON
    strings, where ``\\u003c`` is the same character."""
    return text.replace("<", "\\u003c")


def render_html(export: ExportGraph, title: str | None = None) -> str:
    """The HTML page for ``export`` (nodes coloured by kind, sized by activation or degree)."""
    graph = export.graph
    scope = graph.graph.get("scope", "graph")
    heading = title or (f"graphmem: {graph.graph['query']!r}" if export.scope.query else f"graphmem: {scope}")
    payload: dict[str, Any] = {
        "title": heading, "scope": dict(graph.graph), "activated": list(export.activated),
        "nodes": [_node(node_id, attributes) for node_id, attributes in graph.nodes(data=True)],
        "edges": [{"source": source, "target": target, "edge_type": attributes["edge_type"],
                   "family": attributes["family"], "weight": attributes["weight"]}
                  for source, target, attributes in graph.edges(data=True)],
        "edgeStyles": EDGE_STYLES, "defaultEdgeStyle": DEFAULT_EDGE_STYLE,
    }
    library = _asset(LIBRARY["file"])
    if "</script" in library.lower():  # would end the inline <script> early; never true of 3.35.0
        raise RuntimeError("the vendored library cannot be inlined: it contains '</script'")
    parts = {"CSS": _asset("view.css"), "LIBRARY": library, "VIEWER": _asset("view.js"),
             "DATA": _script_safe(json.dumps(payload, ensure_ascii=False)), "TITLE": html.escape(heading)}
    # One pass over the template only: a memory that happens to contain a marker stays as written.
    return _MARKER.sub(lambda match: parts[match.group(1)], _asset("view.html"))


def _node(node_id: str, attributes: dict[str, Any]) -> dict[str, Any]:
    return {"id": node_id, "label": attributes.get("label", node_id),
            "node_type": attributes.get("node_type"), "kind": attributes.get("kind"),
            "color": node_color(attributes), "degree": attributes.get("degree", 0),
            "activation": attributes.get("activation", 0.0), "attrs": attributes}

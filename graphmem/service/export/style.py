"""One colour and line style per node kind and edge type, shared by the HTML view, GEXF and DOT, so
a memory graph looks the same in the browser, in Gephi and in Graphviz."""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_EDGE_STYLE", "EDGE_STYLES", "NODE_COLORS", "edge_style", "node_color"]

# Tableau 10: distinguishable, colour-blind aware. Memories get the saturated colours; concepts are
# greys and muted tones so the memories stand out.
NODE_COLORS: dict[str, str] = {
    "memory:note": "#4e79a7", "memory:decision": "#f28e2b", "memory:error": "#e15759",
    "memory:pattern": "#76b7b2", "memory:architecture": "#59a14f", "memory:summary": "#edc948",
    "memory:solution": "#b07aa1", "memory:prompt": "#ff9da7", "memory": "#4e79a7",
    "concept:entity": "#9c755f", "concept:identifier": "#8cd17d", "concept:phrase": "#a0cbe8",
    "concept:term": "#bab0ac", "concept:part": "#d7d2cc", "concept": "#bab0ac",
}

# line: solid | dashed | dotted; arrow: whether the direction means something.
EDGE_STYLES: dict[str, dict[str, Any]] = {
    "mention": {"color": "#c8c8c8", "line": "solid", "arrow": False},
    "cooccurrence": {"color": "#e2e2e2", "line": "dotted", "arrow": False},
    "same_form": {"color": "#b0b0b0", "line": "solid", "arrow": False},
    "related_concept": {"color": "#d9c2e8", "line": "dotted", "arrow": False},
    "supersedes": {"color": "#7f3c8d", "line": "dashed", "arrow": True},
    "contradicts": {"color": "#d62728", "line": "solid", "arrow": False},
    "conflicts_with": {"color": "#d62728", "line": "dashed", "arrow": False},
    "consolidated_from": {"color": "#8c564b", "line": "dashed", "arrow": True},
    "duplicate_of": {"color": "#7f7f7f", "line": "dashed", "arrow": True},
    "causes": {"color": "#ff7f0e", "line": "solid", "arrow": True},
    "supports": {"color": "#2ca02c", "line": "solid", "arrow": True},
    "has_decision": {"color": "#f28e2b", "line": "solid", "arrow": True},
    "related": {"color": "#1f77b4", "line": "solid", "arrow": False},
    "compatible": {"color": "#17becf", "line": "dotted", "arrow": False},
    "scoped": {"color": "#bcbd22", "line": "dotted", "arrow": False},
    "not_conflict": {"color": "#aec7e8", "line": "dotted", "arrow": False},
}
DEFAULT_EDGE_STYLE = {"color": "#1f77b4", "line": "solid", "arrow": True}


def node_color(attributes: dict[str, Any]) -> str:
    """Hex colour of a node from its ``node_type`` and ``kind``.

    >>> node_color({"node_type": "memory", "kind": "decision"})
    '#f28e2b'
    """
    node_type = attributes.get("node_type", "memory")
    return NODE_COLORS.get(f"{node_type}:{attributes.get('kind')}", NODE_COLORS.get(node_type, "#999999"))


def edge_style(edge_type: str) -> dict[str, Any]:
    """Colour, line and arrow of an edge type (relation types not in the table get a default)."""
    return EDGE_STYLES.get(edge_type, DEFAULT_EDGE_STYLE)

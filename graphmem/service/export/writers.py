"""Writers of the export graph: networkx node-link JSON, GraphML, GEXF, DOT, Cypher and Neo4j CSV.

node-link, GraphML and GEXF come from networkx's own writers (so networkx, Gephi and yEd read them
back); DOT, Cypher and CSV are written here, because their networkx counterparts need pydot or do
not exist. Every writer takes the graph built by ``graph_build`` and is deterministic.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from graphmem.service.export.style import edge_style, node_color

if TYPE_CHECKING:  # imported where a graph is built: networkx is 11 MiB of every server's fixed cost
    import networkx as nx

__all__ = ["DATETIME_FIELDS", "relationship_type", "write_csv", "write_cypher", "write_dot", "write_gexf",
           "write_graphml", "write_node_link"]

DATETIME_FIELDS = frozenset({"created_at", "last_used_at", "valid_from", "valid_to", "review_after",
                             "judged_at"})
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def write_node_link(graph: nx.MultiDiGraph[str], stream: TextIO) -> None:
    """networkx node-link JSON (``nx.node_link_graph(data, edges="links")`` reads it back)."""
    import networkx as nx

    json.dump(nx.node_link_data(graph, edges="links"), stream, ensure_ascii=False, sort_keys=True, indent=1)
    stream.write("\n")


def write_graphml(graph: nx.MultiDiGraph[str], stream: TextIO) -> None:
    """GraphML with typed attribute keys (Gephi, yEd, Cytoscape desktop, ``nx.read_graphml``)."""
    import networkx as nx

    _write_lines(nx.generate_graphml(graph), stream)


def write_gexf(graph: nx.MultiDiGraph[str], stream: TextIO) -> None:
    """GEXF 1.2 with viz colours and sizes, so Gephi opens it already coloured by kind."""
    import networkx as nx

    coloured = graph.copy()
    for _, attributes in coloured.nodes(data=True):
        red, green, blue = _rgb(node_color(attributes))
        size = 4.0 + 2.0 * float(attributes.get("degree", 1)) ** 0.5
        attributes["viz"] = {"color": {"r": red, "g": green, "b": blue, "a": 1.0}, "size": round(size, 3)}
    _write_lines(nx.generate_gexf(coloured, version="1.2draft"), stream)


def _write_lines(lines: Iterable[str], stream: TextIO) -> None:
    for line in lines:
        stream.write(line + "\n")


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


# -- DOT ----------------------------------------------------------------------------------------------
_DOT_NODE_FIELDS = ("node_type", "kind", "project", "status", "created_at", "valid_to", "degree",
                    "activation")
_DOT_EDGE_FIELDS = ("edge_type", "confidence", "status")


def write_dot(graph: nx.MultiDiGraph[str], stream: TextIO) -> None:
    """Graphviz DOT: memories as boxes, concepts as ellipses, relation edges coloured and labelled.

    The edge weight travels as ``gm_weight``: Graphviz reserves ``weight`` for integer layout weights.
    """
    title = graph.graph.get("scope", "graph")
    stream.write(f"digraph graphmem {{\n  graph [label={_dot(f'graphmem: {title}')}, overlap=false];\n"
                 '  node [style=filled, fontname="Helvetica", fontsize=10];\n  edge [fontsize=8];\n')
    for node_id, attributes in graph.nodes(data=True):
        shape = "box" if attributes.get("node_type") == "memory" else "ellipse"
        fields = {"label": attributes.get("label", node_id), "shape": shape,
                  "fillcolor": node_color(attributes),
                  **{key: attributes[key] for key in _DOT_NODE_FIELDS if key in attributes}}
        stream.write(f"  {_dot(node_id)} [{_dot_attributes(fields)}];\n")
    for source, target, attributes in graph.edges(data=True):
        style = edge_style(attributes["edge_type"])
        fields = {"color": style["color"], "style": style["line"], "gm_weight": attributes["weight"],
                  **({} if style["arrow"] else {"arrowhead": "none"}),
                  **({"label": attributes["label"]} if "label" in attributes else {}),
                  **{key: attributes[key] for key in _DOT_EDGE_FIELDS if key in attributes}}
        stream.write(f"  {_dot(source)} -> {_dot(target)} [{_dot_attributes(fields)}];\n")
    stream.write("}\n")


def _dot(value: Any) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "") + '"'


def _dot_attributes(fields: dict[str, Any]) -> str:
    return ", ".join(f"{key}={_dot(value)}" for key, value in fields.items())


# -- Cypher -------------------------------------------------------------------------------------------
def relationship_type(edge_type: str) -> str:
    """Neo4j relationship type of an edge type.

    >>> relationship_type("mention"), relationship_type("conflicts_with")
    ('MENTIONS', 'CONFLICTS_WITH')
    """
    special = {"mention": "MENTIONS", "cooccurrence": "CO_OCCURS_WITH", "same_form": "SAME_FORM_AS",
               "related_concept": "RELATED_TO_CONCEPT"}
    return special.get(edge_type) or re.sub(r"[^A-Za-z0-9_]", "_", edge_type).upper()


def _labels(attributes: dict[str, Any]) -> list[str]:
    labels = ["GraphmemNode", "Memory" if attributes.get("node_type") == "memory" else "Concept"]
    kind = re.sub(r"[^A-Za-z0-9]", "", str(attributes.get("kind", "")).title())
    if attributes.get("node_type") == "memory" and kind:
        labels.append(kind)
    return labels


def write_cypher(graph: nx.MultiDiGraph[str], stream: TextIO) -> None:
    """Idempotent Cypher (``MERGE`` by id) for ``cypher-shell < graph.cypher``: one statement per line."""
    scope = graph.graph.get("scope", "graph")
    stream.write(f"// graphmem export ({scope}): {graph.number_of_nodes()} nodes, "
                 f"{graph.number_of_edges()} relationships\n")
    stream.write("CREATE CONSTRAINT graphmem_node_id IF NOT EXISTS "
                 "FOR (n:GraphmemNode) REQUIRE n.id IS UNIQUE;\n")
    for node_id, attributes in graph.nodes(data=True):
        labels = ":".join(_labels(attributes)[1:])
        stream.write(f"MERGE (n:GraphmemNode {{id: {_cypher(node_id)}}}) SET n:{labels}, "
                     f"n += {_cypher_map(attributes)};\n")
    for source, target, attributes in graph.edges(data=True):
        kind = relationship_type(attributes["edge_type"])
        relation_id = attributes.get("relation_id")
        identity = f" {{relation_id: {_cypher(relation_id)}}}" if relation_id else ""
        stream.write(f"MATCH (a:GraphmemNode {{id: {_cypher(source)}}}), "
                     f"(b:GraphmemNode {{id: {_cypher(target)}}}) "
                     f"MERGE (a)-[r:{kind}{identity}]->(b) SET r += {_cypher_map(attributes)};\n")


def _cypher(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    # A JSON string is a valid Cypher string literal: both escape \" \\ \n \t \r \b \f and \uXXXX.
    return json.dumps(str(value), ensure_ascii=False)


def _cypher_map(attributes: dict[str, Any]) -> str:
    keys = (key if _IDENTIFIER.match(key) else f"`{key.replace('`', '``')}`" for key in attributes)
    return "{" + ", ".join(f"{key}: {_cypher(value)}" for key, value in zip(keys, attributes.values(),
                                                                            strict=True)) + "}"


# -- Neo4j CSV ----------------------------------------------------------------------------------------
def write_csv(graph: nx.MultiDiGraph[str], directory: Path) -> tuple[Path, Path]:
    """``nodes.csv`` and ``edges.csv`` with ``neo4j-admin database import`` headers
    (``id:ID``, ``:LABEL``, ``:START_ID``, ``:END_ID``, ``:TYPE``, typed property columns)."""
    directory.mkdir(parents=True, exist_ok=True)
    nodes_path, edges_path = directory / "nodes.csv", directory / "edges.csv"
    node_rows = [{"id:ID": node_id, ":LABEL": ";".join(_labels(attrs)), **attrs}
                 for node_id, attrs in graph.nodes(data=True)]
    edge_rows = [{":START_ID": source, ":END_ID": target, ":TYPE": relationship_type(attrs["edge_type"]),
                  **attrs}
                 for source, target, attrs in graph.edges(data=True)]
    _write_table(nodes_path, node_rows, ("id:ID", ":LABEL"))
    _write_table(edges_path, edge_rows, (":START_ID", ":END_ID", ":TYPE"))
    return nodes_path, edges_path


def _write_table(path: Path, rows: list[dict[str, Any]], fixed: tuple[str, ...]) -> None:
    columns: dict[str, str] = {}
    for row in rows:
        for key, value in row.items():
            if key not in fixed:
                columns.setdefault(key, _neo4j_type(key, value))
    header = [*fixed, *(f"{key}:{kind}" for key, kind in columns.items())]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow([*(row[key] for key in fixed), *(_csv_value(row.get(key)) for key in columns)])


def _neo4j_type(key: str, value: Any) -> str:
    if key in DATETIME_FIELDS:
        return "datetime"
    if isinstance(value, bool):
        return "boolean"
    return "long" if isinstance(value, int) else "double" if isinstance(value, float) else "string"


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""  # an empty cell is an absent property to neo4j-admin import
    return ("true" if value else "false") if isinstance(value, bool) else value

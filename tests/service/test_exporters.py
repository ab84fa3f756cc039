"""Graph exports read back by their own readers, their scopes, pages, statistics, and the import of
the MCP reference server's memory file."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime

import networkx as nx
import pytest

from graphmem import MemoryService
from graphmem.cli import main
from graphmem.errors import InvalidInput
from graphmem.service.export import ExportScope
from graphmem.store.tables import SCHEMA_VERSION
from graphmem.store.transfer import FORMAT
from tests.conftest import ORDERS, WEBHOOK

TRICKY = 'He said "ship it" \\ then left\n</script><script>alert(1)</script> {curly} the webhook'
DEPLOY = "Deploy the billing worker with kubectl rollout and keep a rollback ready"


def relate(service: MemoryService, *triples: tuple[str, str, str]) -> None:
    """Add judged relations through the lossless import (the relation tools are another module's)."""
    header = json.dumps({"type": "header", "format": FORMAT, "schema_version": SCHEMA_VERSION})
    lines = [json.dumps({"type": "relation", "id": f"rel_{n:020d}", "source_id": source, "target_id": target,
                         "relation_type": kind, "confidence": 0.9, "status": "judged", "reason": "test",
                         "created_at": 1_700_000_000_000})
             for n, (source, target, kind) in enumerate(triples)]
    service.import_jsonl([header, *lines])


@pytest.fixture
def graph(service: MemoryService) -> dict[str, str]:
    ids = {
        "webhook": service.store(WEBHOOK, kind="pattern", project="payments").id,
        "orders": service.store(ORDERS, kind="solution", project="payments", tags=["orders", "api"]).id,
        "deploy": service.store(DEPLOY, kind="decision", project="ops").id,
        "tricky": service.store(TRICKY, kind="note", project="ops").id,
        "future": service.store("Redis will hold the session storage", kind="architecture",
                                valid_from="2100-01-01T00:00:00Z").id,
        "old": service.store("Deploy the billing worker by hand over ssh", kind="decision", project="ops").id,
    }
    relate(service, (ids["orders"], ids["webhook"], "supports"),
           (ids["webhook"], ids["deploy"], "contradicts"), (ids["deploy"], ids["old"], "supersedes"))
    return ids


def text_of(service: MemoryService, fmt: str, scope: ExportScope | None = None) -> str:
    stream = io.StringIO()
    service.exports.write(fmt, stream, scope)
    return stream.getvalue()


def edge_multiset(graph: nx.MultiDiGraph) -> list[tuple[str, str, str]]:
    return sorted((source, target, data["edge_type"]) for source, target, data in graph.edges(data=True))


# -- every format, read back ----------------------------------------------------------------------
def test_node_link_reads_back_as_the_same_graph(service, graph):
    built = service.exports.graph().graph
    read = nx.node_link_graph(json.loads(text_of(service, "node-link")), edges="links")
    assert dict(read.nodes(data=True)) == dict(built.nodes(data=True))
    assert edge_multiset(read) == edge_multiset(built) and read.is_multigraph() and read.is_directed()


def test_graphml_reads_back_with_typed_attributes(service, graph, tmp_path):
    path = tmp_path / "graph.graphml"
    path.write_text(text_of(service, "graphml"), encoding="utf-8")
    read = nx.read_graphml(path, force_multigraph=True)
    built = service.exports.graph().graph
    assert set(read.nodes) == set(built.nodes) and edge_multiset(read) == edge_multiset(built)
    tricky = read.nodes[graph["tricky"]]
    assert tricky["content"] == TRICKY and tricky["visible"] is True and isinstance(tricky["strength"], float)
    assert isinstance(read.nodes["concept:webhook"]["df"], int)


def test_gexf_reads_back_coloured_by_kind(service, graph, tmp_path):
    path = tmp_path / "graph.gexf"
    path.write_text(text_of(service, "gexf"), encoding="utf-8")
    read = nx.read_gexf(path)
    built = service.exports.graph().graph
    assert set(read.nodes) == set(built.nodes) and read.number_of_edges() == built.number_of_edges()
    assert read.nodes[graph["deploy"]]["viz"]["color"] == {"r": 0xF2, "g": 0x8E, "b": 0x2B, "a": 1.0}
    assert read.nodes[graph["deploy"]]["kind"] == "decision"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot 4 calls pyparsing's old names
def test_dot_parses_with_pydot_and_keeps_awkward_text(service, graph, tmp_path):
    path = tmp_path / "graph.dot"
    scope = ExportScope(query="ship it then left", hops=0, max_results=1)  # pyparsing is slow: keep it small
    path.write_text(text_of(service, "dot", scope), encoding="utf-8")
    read = nx.nx_pydot.read_dot(path)
    built = service.exports.graph(scope).graph
    assert graph["tricky"] in built
    assert read.number_of_nodes() == built.number_of_nodes()
    assert read.number_of_edges() == built.number_of_edges()
    labels = [data.get("label", "") for _, data in read.nodes(data=True)]
    assert any('He said \\"ship it\\" \\\\ then left' in label for label in labels)


_NODE = re.compile(r'^MERGE \(n:GraphmemNode \{id: (".*?")\}\) SET n:([A-Za-z:]+), n \+= (\{.*\});$')
_EDGE = re.compile(r'^MATCH \(a:GraphmemNode \{id: (".*?")\}\), \(b:GraphmemNode \{id: (".*?")\}\) '
                   r'MERGE \(a\)-\[r:([A-Z_]+)(?: \{relation_id: (".*?")\})?\]->\(b\) SET r \+= (\{.*\});$')
_KEY = re.compile(r"(\w+): ")


def cypher_map(text: str) -> dict[str, object]:
    """A Cypher map literal of scalars, read with the JSON decoder (Cypher strings are JSON strings)."""
    decoder, values, position = json.JSONDecoder(), {}, 1
    while position < len(text) - 1:
        key = _KEY.match(text, position)
        assert key, text[position : position + 40]
        values[key.group(1)], position = decoder.raw_decode(text, key.end())
        position += 2 if text.startswith(", ", position) else 0
    return values


def test_cypher_statements_parse_and_every_edge_names_a_created_node(service, graph):
    lines = text_of(service, "cypher").splitlines()
    assert lines[0].startswith("//") and lines[1].startswith("CREATE CONSTRAINT")
    nodes = {json.loads(m.group(1)): (m.group(2), cypher_map(m.group(3)))
             for m in map(_NODE.match, lines[2:]) if m}
    edges = [m.groups() for m in map(_EDGE.match, lines[2:]) if m]
    built = service.exports.graph().graph
    assert len(nodes) == built.number_of_nodes() and len(edges) == built.number_of_edges()
    assert len(nodes) + len(edges) == len(lines) - 2, "every statement is a node or an edge"
    assert nodes[graph["tricky"]][1]["content"] == TRICKY
    assert nodes[graph["deploy"]][0] == "Memory:Decision"
    assert all(json.loads(a) in nodes and json.loads(b) in nodes for a, b, *_ in edges)
    assert {kind for _, _, kind, *_ in edges} >= {"MENTIONS", "SUPPORTS", "CONTRADICTS"}


def test_csv_has_neo4j_admin_import_headers_and_consistent_rows(service, graph, tmp_path):
    nodes_path, edges_path = service.exports.write_csv(tmp_path / "neo4j")
    with nodes_path.open(encoding="utf-8", newline="") as handle:
        nodes = list(csv.DictReader(handle))
    with edges_path.open(encoding="utf-8", newline="") as handle:
        edges = list(csv.DictReader(handle))
    assert list(nodes[0])[:2] == ["id:ID", ":LABEL"]
    assert list(edges[0])[:3] == [":START_ID", ":END_ID", ":TYPE"]
    assert {"created_at:datetime", "visible:boolean", "strength:double", "df:long"} <= set(nodes[0])
    ids = {row["id:ID"] for row in nodes}
    built = service.exports.graph().graph
    assert ids == set(built.nodes) and len(edges) == built.number_of_edges()
    assert all(row[":START_ID"] in ids and row[":END_ID"] in ids for row in edges)
    tricky = next(row for row in nodes if row["id:ID"] == graph["tricky"])
    assert tricky["content:string"] == TRICKY and tricky["visible:boolean"] == "true"
    assert tricky[":LABEL"] == "GraphmemNode;Memory;Note"


# -- attributes and scopes -------------------------------------------------------------------------
def test_attributes_carry_kind_weights_relation_types_and_validity(service, graph):
    built = service.exports.graph().graph
    future = built.nodes[graph["future"]]
    assert future["node_type"] == "memory" and future["kind"] == "architecture"
    assert future["valid_from"].startswith("2100-01-01") and future["status"] == "active"
    assert built.nodes[graph["old"]]["visible"] is False, "superseded: exported, hidden from default recall"
    assert built.nodes[graph["deploy"]]["visible"] is True
    supports = [d for s, t, d in built.edges(data=True) if (s, t) == (graph["orders"], graph["webhook"])]
    assert supports[0]["edge_type"] == "supports" and supports[0]["confidence"] == 0.9
    assert supports[0]["weight"] > 0 and supports[0]["status"] == "judged" and supports[0]["reason"] == "test"
    mention = built.get_edge_data(graph["webhook"], "concept:idempotency key")
    assert next(iter(mention.values()))["edge_type"] == "mention"
    assert built.nodes["concept:idempotency key"]["df"] == 2


def test_a_project_export_holds_only_that_projects_memories(service, graph):
    built = service.exports.graph(ExportScope(project="payments")).graph
    memories = {n for n, d in built.nodes(data=True) if d["node_type"] == "memory"}
    assert memories == {graph["webhook"], graph["orders"]}
    assert built.graph["scope"] == "project" and built.graph["project"] == "payments"


def test_a_time_slice_holds_the_memories_valid_at_that_instant(service, graph):
    now = datetime.now(UTC).isoformat()
    memories = {n for n, d in service.exports.graph(ExportScope(as_of=now)).graph.nodes(data=True)
                if d["node_type"] == "memory"}
    assert graph["future"] not in memories and graph["webhook"] in memories
    later = service.exports.graph(ExportScope(as_of="2100-06-01T00:00:00Z")).graph
    assert graph["future"] in later


def test_a_query_export_holds_what_associate_returns_and_grows_with_hops(service, graph):
    expected = [hit.id for hit in service.associate("retry webhooks", max_results=3).memories]
    sizes = []
    for hops in (0, 1, 2):
        export = service.exports.graph(ExportScope(query="retry webhooks", hops=hops, max_results=3))
        assert list(export.activated) == expected and set(expected) <= set(export.graph.nodes)
        sizes.append(export.graph.number_of_nodes())
    assert sizes[0] < sizes[1] <= sizes[2]
    activated = export.graph.nodes[expected[0]]
    assert activated["rank"] == 1 and activated["activation"] > 0
    assert export.graph.nodes["concept:webhook"]["seed"] is True


@pytest.mark.parametrize("scope", [ExportScope(hops=9), ExportScope(query="  "), ExportScope(as_of="someday"),
                                   ExportScope(max_results=0)])
def test_a_bad_scope_is_refused_with_a_readable_error(service, graph, scope):
    with pytest.raises(InvalidInput):
        service.exports.graph(scope)


def test_pages_show_every_node_once_and_every_edge_once_after_both_ends(service, graph):
    built = service.exports.graph().graph
    nodes, edges, offset = [], [], 0
    while offset is not None:
        page = service.exports.page(offset=offset, limit=7, max_content_chars=20)
        seen = {node["id"] for node in nodes} | {node["id"] for node in page.nodes}
        assert all(edge["source"] in seen and edge["target"] in seen for edge in page.edges)
        nodes += page.nodes
        edges += page.edges
        offset = page.next_offset
    assert sorted(node["id"] for node in nodes) == sorted(built.nodes)
    assert len(edges) == built.number_of_edges() == page.total_edges
    tricky = next(node for node in nodes if node["id"] == graph["tricky"])
    assert tricky["content_truncated"] is True and len(tricky["content"]) == 21


# -- statistics ------------------------------------------------------------------------------------
def test_stats_count_kinds_components_orphans_and_communities_deterministically(service, graph):
    orphan = service.store("!!! ...").id
    stats = service.exports.stats()
    assert stats.memories == 7 and stats.nodes == stats.memories + stats.concepts
    assert stats.edge_families["relation"] == 3 and stats.edge_families["mention"] > 10
    assert stats.orphans["memories"] == 1 and stats.orphans["memory_ids"] == [orphan]
    assert stats.components["count"] >= 2 and sum(stats.degree["histogram"].values()) == stats.nodes
    assert stats.top_concepts[0]["memories"] >= stats.top_concepts[-1]["memories"]
    assert stats.communities["count"] >= 2 and stats.communities == service.exports.stats().communities
    assert service.status()["graph"] == stats
    service.store("Kafka consumer lag alerts page the data team")
    assert service.exports.stats().memories == 8, "a write refreshes the cached statistics"


# -- the HTML view (its browser test is tests/test_html_view.py) -----------------------------------
def test_the_html_view_is_one_self_contained_file_with_escaped_content(service, graph):
    page = text_of(service, "html", ExportScope(query="webhook deploy"))
    assert "default-src 'none'" in page and not re.search(r"""(src|href)=["']?https?:""", page)
    assert page.count("<script") == 4, "error hook, graph data, library, viewer: no script from content"
    assert "</script><script>alert(1)" not in page and "cytoscape" in page


# -- the MCP reference server's memory file --------------------------------------------------------
MEMORY_FILE = [
    '{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish",'
    '"Graduated in 2019"]}',
    '{"type":"entity","name":"Anthropic","entityType":"organization","observations":["Builds Claude"]}',
    '{"type":"relation","from":"John_Smith","to":"Anthropic","relationType":"works_at"}',
    '{"type":"relation","from":"John_Smith","to":"Jane_Doe","relationType":"knows"}',
    "",
    '{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish",'
    '"Lives in Berlin"]}',
]


def test_a_reference_server_memory_file_becomes_memories_and_related_relations(service):
    report = service.import_jsonl(MEMORY_FILE)
    assert report.format == "mcp-memory"
    assert report.added == {"memories": 5, "relations": 2, "entities": 3} and report.duplicates == 0
    opened = service.open(list(report.ids))
    john = [m for m in opened.memories if m.entities == ("John_Smith",)]
    assert sorted(m.content for m in john) == ["John_Smith: Graduated in 2019", "John_Smith: Lives in Berlin",
                                               "John_Smith: Speaks fluent Spanish"]
    assert john[0].tags == ("John_Smith", "person") and john[0].source == "mcp-memory"
    works_at = next(r for r in opened.relations if r.meta["relation_type"] == "works_at")
    assert works_at.type == "related" and works_at.reason == "John_Smith works_at Anthropic"
    by_id = {m.id: m for m in opened.memories}
    assert by_id[works_at.target_id].content == "Anthropic: Builds Claude"
    assert any(m.content == "Jane_Doe" for m in opened.memories)
    hits = service.associate("Spanish speaker at Anthropic").memories
    assert by_id[works_at.target_id].id in [hit.id for hit in hits]


def test_importing_the_same_memory_file_again_adds_nothing(service):
    service.import_jsonl(MEMORY_FILE)
    before = service.status()
    again = service.import_jsonl(MEMORY_FILE)
    assert again.added["memories"] == 0 and again.added["relations"] == 0 and again.duplicates == 5
    assert service.status() == before


@pytest.mark.parametrize(("lines", "mentions"), [
    (['{"type":"entity","name":"A","entityType":"x","observations":["ok"]}',
      '{"type":"entity","name":"","entityType":"x"}', '{"type":"relation","from":"A"}', "{not json"],
     ["line 2: entity needs name", "line 3: relation needs to, relationType", "line 4: not JSON"]),
    (['{"type":"entity","name":"A","entityType":"x","observations":["ok", 7]}'],
     ["line 1: entity observations"]),
    (['{"type":"entity","name":"A","entityType":"x","observations":["' + "x" * 50_001 + '"]}'],
     ["line 1: entity 'A'", "50,000"]),
    (['{"type":"entity","name":"A","entityType":"x"}', '{"content":"a plain observation"}'], ["mixes"]),
])
def test_a_bad_memory_file_is_refused_by_line_and_writes_nothing(service, graph, lines, mentions):
    before = service.status()
    with pytest.raises(InvalidInput) as refused:
        service.import_jsonl(lines)
    assert all(text in str(refused.value) for text in mentions), str(refused.value)
    assert service.status() == before


# -- the CLI -------------------------------------------------------------------------------------
def test_the_cli_writes_csv_into_a_directory_and_html_to_a_file(settings, graph, service, tmp_path, capsys):
    db = str(settings.db)
    assert main(["--db", db, "export", "--format", "csv", "-o", str(tmp_path / "neo4j")]) == 0
    assert (tmp_path / "neo4j" / "nodes.csv").exists() and (tmp_path / "neo4j" / "edges.csv").exists()
    assert main(["--db", db, "export", "--format", "html", "--query", "webhook", "--hops", "2",
                 "-o", str(tmp_path / "view.html")]) == 0
    assert "exported html" in capsys.readouterr().err
    assert main(["--db", db, "export", "--format", "csv"]) == 2
    assert "name a directory" in capsys.readouterr().err
    assert main(["--db", db, "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["graph"]["communities"]["method"] == "louvain"


def test_stats_text_names_each_edge_count_for_what_it_counts():
    from graphmem.service.export.stats import render_stats

    text = render_stats({"mentions": 6, "concept_edges": 4, "relations": 1, "graph_nodes": 9, "graph_edges": 14})
    assert text.splitlines() == ["mentions: 6", "co-occurrence rows: 4", "relations: 1", "graph nodes: 9",
                                 "graph matrix entries (each edge both ways): 14"]


def test_the_components_are_the_same_counted_by_networkx_below_the_community_limit_and_by_scipy_above(service, graph):
    from graphmem.service.export.stats import graph_stats

    service.store("!!! ...")  # an orphan: a component of its own
    walked = graph_stats(service.projection)
    counted = graph_stats(service.projection, community_limit=1)
    assert "skipped" in counted.communities and "skipped" not in walked.communities
    assert walked.components == counted.components and walked.components["count"] >= 2

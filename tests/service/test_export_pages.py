"""The MCP export page is built from the projection's arrays (service/export/graph_page.py): every page holds
exactly the nodes and edges, with the same attributes, that the whole networkx graph of the CLI export holds,
and a page's edges stay under their cap."""

from __future__ import annotations

import pytest

from graphmem.service.export import ExportScope, graph_page
from tests.service.test_exporters import graph, relate  # noqa: F401 - the module's fixture, reused

SCOPES = [ExportScope(), ExportScope(project="ops"), ExportScope(query="webhook deploy", hops=2),
          ExportScope(as_of="2030-01-01T00:00:00Z")]


def paged(service, scope, limit):
    nodes, edges, offset = [], [], 0
    while offset is not None:
        page = service.exports.page(scope, offset=offset, limit=limit, max_content_chars=50_000)
        seen = {node["id"] for node in nodes} | {node["id"] for node in page.nodes}
        assert all(edge["source"] in seen and edge["target"] in seen for edge in page.edges)
        nodes += page.nodes
        edges += page.edges
        offset = page.next_offset
    return nodes, edges, page


def key(edge):
    return tuple(sorted((k, str(v)) for k, v in edge.items()))


@pytest.mark.parametrize("scope", SCOPES, ids=["whole", "project", "query", "as_of"])
def test_pages_hold_exactly_the_nodes_and_edges_of_the_built_graph(service, graph, scope):  # noqa: F811
    built = service.exports.graph(scope)
    nodes, edges, last = paged(service, scope, limit=7)
    assert [node["id"] for node in nodes] == list(built.order)
    assert {node["id"]: {k: v for k, v in node.items() if k != "id"} for node in nodes} == dict(built.graph.nodes)
    expected = [{"source": s, "target": t, **data} for s, t, data in built.graph.edges(data=True)]
    assert sorted(map(key, edges)) == sorted(map(key, expected))
    assert last.total_edges == len(expected) and last.total_nodes == len(built.order)
    assert last.activated == built.activated and last.scope == dict(built.graph.graph)


def test_a_page_ends_before_its_edges_pass_the_cap_and_a_single_node_over_it_says_so(service, graph,  # noqa: F811
                                                                                     monkeypatch):
    whole = service.exports.graph().graph
    monkeypatch.setattr(graph_page, "MAX_PAGE_EDGES", 3)
    nodes, edges, _last = paged(service, None, limit=50)
    assert sorted(node["id"] for node in nodes) == sorted(whole.nodes)
    pages = []
    offset = 0
    while offset is not None:
        page = service.exports.page(offset=offset, limit=50)
        pages.append(page)
        offset = page.next_offset
    assert all(len(page.edges) <= 3 for page in pages) and len(pages) > 2
    over = [page for page in pages if page.edges_truncated]
    assert all(len(page.nodes) == 1 and len(page.edges) == 3 for page in over)
    if not over:  # every edge exactly once, on shorter pages
        assert len(edges) == whole.number_of_edges()

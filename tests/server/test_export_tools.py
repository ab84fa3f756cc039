"""memory_export, the graphmem:// resources and change notifications, through a real MCP client."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client
from mcp_types import ResourceUpdatedNotification

from graphmem.server import build_server
from tests.conftest import ORDERS, WEBHOOK
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio

DEPLOY = "Deploy the billing worker with kubectl rollout and keep a rollback ready"


async def fill(client) -> list[str]:
    return [(await call(client, "memory_store", content=text, kind=kind))["id"]
            for text, kind in ((WEBHOOK, "pattern"), (ORDERS, "solution"), (DEPLOY, "decision"))]


async def test_memory_export_is_listed_read_only_with_an_output_schema(client):
    tool = next(t for t in (await client.list_tools()).tools if t.name == "memory_export")
    assert tool.annotations.read_only_hint is True and tool.output_schema
    assert {"query", "hops", "project", "as_of", "offset", "limit"} <= set(tool.input_schema["properties"])


async def test_an_exported_subgraph_holds_the_memories_associate_returns_for_the_query(client):
    await fill(client)
    associated = await call(client, "memory_associate", query="retry webhooks", max_results=2)
    expected = [memory["id"] for memory in associated["memories"]]
    assert len(expected) == 2
    exported = await call(client, "memory_export", query="retry webhooks", max_results=2, hops=1)
    assert exported["activated"] == expected
    nodes = {node["id"]: node for node in exported["nodes"]}
    assert set(expected) <= set(nodes) and exported["scope"]["scope"] == "query"
    assert [nodes[i]["rank"] for i in expected] == [1, 2]
    assert all(nodes[i]["activation"] > 0 for i in expected)
    assert {edge["edge_type"] for edge in exported["edges"]} >= {"mention"}


async def test_export_pages_cover_the_graph_once_and_cut_long_content(client):
    ids = await fill(client)
    whole = await call(client, "memory_export", limit=500)
    seen_nodes, seen_edges, offset = [], 0, 0
    while offset is not None:
        page = await call(client, "memory_export", offset=offset, limit=5, max_content_chars=10)
        assert len(page["nodes"]) <= 5
        seen_nodes += [node["id"] for node in page["nodes"]]
        seen_edges += len(page["edges"])
        offset = page["next_offset"]
    assert sorted(seen_nodes) == sorted(node["id"] for node in whole["nodes"])
    assert seen_edges == whole["total_edges"] == len(whole["edges"])
    first = (await call(client, "memory_export", limit=1, max_content_chars=10))["nodes"][0]
    assert first["id"] == sorted(ids)[0] and first["content_truncated"] is True
    assert len(first["content"]) == 11


@pytest.mark.parametrize(("arguments", "mentions"), [
    ({"hops": 9}, "hops"), ({"limit": 0}, "limit"), ({"limit": 501}, "limit"),
    ({"query": "   "}, "query"),
    ({"as_of": "the day before"}, "as_of"), ({"max_results": 0}, "max_results"),
])
async def test_bad_export_arguments_get_a_readable_error_and_change_nothing(client, arguments, mentions):
    await fill(client)
    before = await call(client, "memory_status")
    assert mentions in await refused(client, "memory_export", **arguments)
    assert await call(client, "memory_status") == before


async def test_status_reports_the_graph_statistics(client):
    await fill(client)
    graph = (await call(client, "memory_status", graph=True))["graph"]
    assert graph["memories"] == 3 and graph["nodes"] == graph["memories"] + graph["concepts"]
    assert graph["communities"]["method"] == "louvain" and graph["components"]["count"] >= 1
    assert graph["top_concepts"][0]["concept"]
    assert sum(graph["degree"]["histogram"].values()) == graph["nodes"]


async def test_the_graph_and_memory_resources_read_without_a_tool_call(client):
    ids = await fill(client)
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert {"graphmem://graph{?query,project,offset,limit}", "graphmem://memory/{+ref}"} <= templates
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    assert listed == {"graphmem://graph", "graphmem://memories/recent"}
    recent = json.loads((await client.read_resource("graphmem://memories/recent")).contents[0].text)
    assert sorted(m["id"] for m in recent["memories"]) == sorted(ids)
    graph = json.loads((await client.read_resource("graphmem://graph")).contents[0].text)
    assert graph["stats"]["memories"] == 3 and set(ids) <= {node["id"] for node in graph["page"]["nodes"]}
    read = await client.read_resource("graphmem://graph?query=kubectl&limit=3")
    subgraph = json.loads(read.contents[0].text)
    assert subgraph["page"]["activated"] == [ids[2]] and len(subgraph["page"]["nodes"]) == 3
    memory = json.loads((await client.read_resource(f"graphmem://memory/{ids[0]}")).contents[0].text)
    assert memory["memory"]["content"] == WEBHOOK and "idempotency key" in memory["concepts"]


async def test_a_memory_resource_accepts_a_topic_key(client):
    stored = await call(client, "memory_store", content=WEBHOOK, topic_key="payments/webhook-retries")
    read = await client.read_resource("graphmem://memory/payments/webhook-retries")
    assert json.loads(read.contents[0].text)["memory"]["id"] == stored["id"]


async def test_a_graph_resource_page_stays_under_32_kb_on_the_bundled_data(client, service):
    from pathlib import Path

    lines = (Path(__file__).resolve().parents[2] / "data" / "observations.jsonl").read_text().splitlines()
    service.import_jsonl(lines)
    page = (await client.read_resource("graphmem://graph")).contents[0].text
    body = json.loads(page)
    assert len(page.encode()) <= 32_768 and body["page"]["has_more"] is True


async def test_reading_an_unknown_memory_resource_is_a_readable_error(client):
    with pytest.raises(Exception, match="no memory with id or topic key 'mem_unknown'"):
        await client.read_resource("graphmem://memory/mem_unknown")


READS = [("memory_export", {"query": "webhook"}), ("memory_pending_relations", {}), ("memory_metrics", {}),
         ("memory_timeline", {}), ("memory_facts_at", {}), ("memory_search", {"query": "webhook"}),
         ("memory_lint", {}), ("memory_scan_conflicts", {})]


async def test_a_listening_client_is_told_when_a_write_changes_the_graph(client):
    async with client.listen(resource_subscriptions=["graphmem://graph"]) as subscription:
        for name, arguments in READS:  # read-only: no event
            await call(client, name, **arguments)
        stored = await call(client, "memory_store", content=WEBHOOK)
        with anyio.fail_after(5):
            event = await anext(aiter(subscription))
    assert event.uri == "graphmem://graph"
    async with client.listen(resource_subscriptions=[f"graphmem://memory/{stored['id']}"]) as subscription:
        await call(client, "memory_store", content=WEBHOOK)  # a duplicate still reports the memory
        with anyio.fail_after(5):
            event = await anext(aiter(subscription))
    assert event.uri == f"graphmem://memory/{stored['id']}"


async def test_a_handshake_era_client_is_notified_after_writes_only_of_what_it_subscribed_to(service, settings):
    received: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            received.append(message.params.uri)

    server = build_server(settings, tools="full", service=service)
    async with Client(server, mode="legacy", message_handler=on_message) as client:
        for name, arguments in READS:
            await call(client, name, **arguments)
        await refused(client, "memory_store", content="")
        await call(client, "memory_store", content=ORDERS)  # not subscribed yet: no notification (the spec)
        assert received == []
        await client.subscribe_resource("graphmem://graph")
        stored = await call(client, "memory_store", content=WEBHOOK)
        await client.subscribe_resource(f"graphmem://memory/{stored['id']}")
        await call(client, "memory_correct", id=stored["id"], content=WEBHOOK + " (72 hours)")
        with anyio.fail_after(5):
            while len(received) < 3:
                await anyio.lowlevel.checkpoint()
    assert received == ["graphmem://graph", "graphmem://graph", f"graphmem://memory/{stored['id']}"]

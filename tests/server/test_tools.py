"""Every core tool through a real MCP client session (in-process)."""

from __future__ import annotations

import pytest

from tests.conftest import ORDERS, WEBHOOK

pytestmark = pytest.mark.anyio

CORE_TOOLS = {"memory_store", "memory_search", "memory_associate", "memory_open", "memory_graph", "memory_status"}


async def call(client, name, **arguments):
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def refused(client, name, **arguments) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, f"{name}({arguments}) should have failed"
    message = result.content[0].text
    assert "Traceback" not in message
    return message


async def test_the_core_tools_are_listed_with_schemas_and_read_only_hints(client):
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert listed.keys() >= CORE_TOOLS
    for name in CORE_TOOLS - {"memory_store"}:
        assert listed[name].annotations.read_only_hint is True, name
    assert listed["memory_store"].annotations.read_only_hint is False
    assert all(listed[name].output_schema for name in CORE_TOOLS)
    assert listed["memory_associate"].input_schema["properties"]["mode"]["enum"] == ["recall", "composition"]


async def test_store_returns_id_kind_and_concepts_and_dedupes(client):
    first = await call(client, "memory_store", content=WEBHOOK, kind="pattern", project="payments")
    assert first["id"].startswith("mem_") and first["kind"] == "pattern" and not first["duplicate"]
    assert "idempotency key" in first["concepts"]
    again = await call(client, "memory_store", content="  stripe RETRIES webhook deliveries for three days, so every "
                       "webhook handler needs an idempotency key ", kind="pattern", project="payments")
    assert again["duplicate"] and again["id"] == first["id"]
    elsewhere = await call(client, "memory_store", content=WEBHOOK, project="other")
    assert not elsewhere["duplicate"]


async def test_associate_finds_a_memory_sharing_no_keyword_with_the_query(client):
    await call(client, "memory_store", content=WEBHOOK, kind="pattern")
    orders = await call(client, "memory_store", content=ORDERS, kind="solution")
    result = await call(client, "memory_associate", query="retry webhooks")
    assert {"retry", "webhook"} <= set(result["query_concepts"])
    hits = {m["id"]: m for m in result["memories"]}
    assert orders["id"] in hits
    assert hits[orders["id"]]["direct"] is False
    assert "idempotency key" in hits[orders["id"]]["concepts"]
    assert result["activated_count"] > 2 and result["composition"] is None


async def test_unmatched_query_concepts_are_reported(client):
    await call(client, "memory_store", content=WEBHOOK)
    result = await call(client, "memory_associate", query="webhook kubernetes")
    assert "kubernetes" in result["unmatched_concepts"]
    assert [s["name"] for s in result["seed_nodes"]] == ["webhook"]


async def test_no_raw_substring_matching(client):
    await call(client, "memory_store", content="We write the worker in Go for its small binaries")
    result = await call(client, "memory_associate", query="Google ago")
    assert "go" not in [s["name"] for s in result["seed_nodes"]]
    assert result["memories"] == []


async def test_composition_reports_coverage_gaps_and_a_plan_and_min_coverage_changes_it(client):
    await call(client, "memory_store", content=WEBHOOK)
    await call(client, "memory_store", content=ORDERS)
    await call(client, "memory_store",
               content="Deploy the billing worker with kubectl rollout and keep a rollback ready")
    query = "webhook idempotency key orders kubectl rollout terraform"
    full = await call(client, "memory_associate", query=query, mode="composition", min_coverage=1.0)
    low = await call(client, "memory_associate", query=query, mode="composition", min_coverage=0.3)
    comp, small = full["composition"], low["composition"]
    assert "terraform" in comp["gaps"] and comp["coverage_met"] is False
    assert len(small["source_ids"]) < len(comp["source_ids"]) and small["coverage_met"] is True
    plan = comp["integration_plan"]
    assert [step["order"] for step in plan] == list(range(1, len(plan) + 1))
    assert all(step["supplies"] and step["memory_id"].startswith("mem_") for step in plan)
    shown = {m["id"] for m in full["memories"]}
    assert set(comp["source_ids"]) == shown  # sources by id; their text is in memories, once


async def test_project_filter_applies_before_the_top_k_cut(client):
    for n in range(12):
        await call(client, "memory_store", content=f"Webhook retry storm number {n} hit the payments queue",
                   project="payments")
    target = await call(client, "memory_store", content="A webhook consumer in the mobile app", project="mobile")
    recall = await call(client, "memory_associate", query="webhook retry", project="mobile", max_results=1)
    assert [m["id"] for m in recall["memories"]] == [target["id"]]
    search = await call(client, "memory_search", query="webhook retry", project="mobile", limit=1)
    assert [h["id"] for h in search["hits"]] == [target["id"]]


async def test_search_returns_ranked_hits_with_ids_and_scores(client):
    webhook = await call(client, "memory_store", content=WEBHOOK)
    await call(client, "memory_store", content="Vite builds the frontend bundle")
    result = await call(client, "memory_search", query="stripe webhook")
    assert result["hits"][0]["id"] == webhook["id"]
    assert all(h["id"].startswith("mem_") and h["score"] > 0 for h in result["hits"])
    scores = [h["score"] for h in result["hits"]]
    assert scores == sorted(scores, reverse=True)


async def test_open_returns_full_memories_and_lists_unknown_ids(client):
    stored = await call(client, "memory_store", content=WEBHOOK, topic_key="payments/webhooks", tags=["stripe"])
    result = await call(client, "memory_open", ids=[stored["id"], "mem_doesnotexist", "payments/webhooks"])
    assert [m["id"] for m in result["memories"]] == [stored["id"], stored["id"]]
    assert result["memories"][0]["tags"] == ["stripe"]
    assert result["not_found"] == ["mem_doesnotexist"]
    assert "idempotency key" in result["concepts"][stored["id"]]


async def test_graph_shows_a_memory_with_its_typed_edges(client):
    stored = await call(client, "memory_store", content=WEBHOOK)
    result = await call(client, "memory_graph", node=stored["id"], depth=1)
    ids = {node["id"] for node in result["nodes"]}
    assert stored["id"] in ids and "concept:idempotency key" in ids
    assert {edge["type"] for edge in result["edges"]} == {"mention"}
    page = await call(client, "memory_graph", limit=1)
    assert page["total_nodes"] == 1 and page["has_more"] is False


async def test_status_counts_what_was_stored(client):
    await call(client, "memory_store", content=WEBHOOK, kind="pattern")
    status = await call(client, "memory_status")
    assert status["memories"] == 1 and status["by_kind"] == {"pattern": 1}
    assert status["concepts"] > 3 and status["graph_nodes"] == status["concepts"] + 1


BAD_CALLS = [
    ("memory_store", {"content": ""}, "content"),
    ("memory_store", {"content": "   "}, "content"),
    ("memory_store", {"content": "x" * 50_001}, "50,000"),
    ("memory_store", {"content": "ok", "kind": "gossip"}, "kind"),
    ("memory_store", {"content": "ok", "review_after": "next tuesday"}, "ISO 8601"),
    ("memory_store", {"content": "ok", "tags": ["t"] * 51}, "tags"),
    ("memory_search", {"query": ""}, "query"),
    ("memory_search", {"query": "x", "limit": 0}, "limit"),
    ("memory_search", {"query": "x", "as_of": "yesterday-ish"}, "as_of"),
    ("memory_associate", {"query": "x", "mode": "dream"}, "mode"),
    ("memory_associate", {"query": "x", "min_coverage": 1.5}, "min_coverage"),
    ("memory_associate", {"query": "x", "max_results": 0}, "max_results"),
    ("memory_associate", {"query": "x", "max_results": 1000}, "max_results"),
    ("memory_search", {"query": "x", "min_relevance": 1.5}, "min_relevance"),
    ("memory_search", {"query": "x", "min_relevance": -0.1}, "min_relevance"),
    ("memory_search", {"query": "x", "min_relevance": "high"}, "min_relevance"),
    ("memory_associate", {"query": "x", "min_relevance": 2}, "min_relevance"),
    ("memory_open", {"ids": []}, "ids"),
    ("memory_graph", {"node": "mem_unknown"}, "unknown"),
    ("memory_graph", {"depth": 9}, "depth"),
]


@pytest.mark.parametrize(("tool", "arguments", "mentions"), BAD_CALLS)
async def test_bad_input_gets_a_readable_error_and_changes_nothing(client, tool, arguments, mentions):
    await call(client, "memory_store", content=WEBHOOK)
    before = await call(client, "memory_status")
    message = await refused(client, tool, **arguments)
    assert mentions in message
    assert await call(client, "memory_status") == before


def _expanded(schema, definitions=None):
    """Every ``$ref`` replaced by what it names (graphmem's output models are not recursive)."""
    definitions = schema.get("$defs", {}) if definitions is None else definitions
    if isinstance(schema, list):
        return [_expanded(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        named = _expanded(definitions[schema["$ref"].removeprefix("#/$defs/")], definitions)
        return {**named, **{key: _expanded(value, definitions) for key, value in schema.items() if key != "$ref"}}
    return {key: _expanded(value, definitions) for key, value in schema.items() if key != "$defs"}


async def test_output_schemas_write_single_use_definitions_in_place_and_validate_the_same(service, settings):
    import json

    from mcp.server.mcpserver import MCPServer

    from graphmem.server.app import build_server
    from graphmem.server.schema import compact_schema, without

    server = build_server(settings, tools="full", service=service)
    generated = {tool.name: tool for tool in await MCPServer.list_tools(server)}
    for tool in await server.list_tools():
        if tool.output_schema is None:
            continue
        before = compact_schema(without(generated[tool.name].output_schema, server.hidden.get(tool.name, frozenset())),
                                output=True)
        assert _expanded(tool.output_schema) == _expanded(before), tool.name
    listed = {tool.name: tool for tool in await server.list_tools()}
    # A search page's hits are checked by every validating client on every result: nothing to resolve there.
    for name in ("memory_search", "memory_associate"):
        assert "$ref" not in json.dumps(listed[name].output_schema), name

"""The reference dialect against the reference server itself: relations touching a result, the
``memory://knowledge-graph`` resource, one unit of work per call, and the same calls run beside
``@modelcontextprotocol/server-memory`` with the replies compared.

The reference server is the npm package ``.ci/run`` installs into ``.ci/server-memory`` (pinned); elsewhere
point ``MCP_SERVER_MEMORY`` at its ``dist/index.js``, or the comparison is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from graphmem.server import build_server
from tests.server.test_tools import refused

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_JS = Path(os.environ.get("MCP_SERVER_MEMORY") or (
    ROOT / ".ci/server-memory/node_modules/@modelcontextprotocol/server-memory/dist/index.js"))
NODE = shutil.which("node")

ALICE = {"name": "Alice", "entityType": "person", "observations": ["Leads the platform team"]}
JOHN = {"name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]}
ANTHROPIC = {"name": "Anthropic", "entityType": "organization", "observations": ["Builds Claude"]}
KNOWS = {"from": "Alice", "to": "John_Smith", "relationType": "knows"}
WORKS_AT = {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}


@pytest.fixture
async def reference(service, settings):
    async with Client(build_server(settings, tools="reference", service=service)) as connected:
        yield connected


async def _graph(client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def test_open_and_search_return_every_relation_touching_a_result(reference):
    await _graph(reference, "create_entities", {"entities": [ALICE, JOHN, ANTHROPIC]})
    await _graph(reference, "create_relations", {"relations": [KNOWS, WORKS_AT]})
    alice = await _graph(reference, "open_nodes", {"names": ["Alice"]})
    assert [e["name"] for e in alice["entities"]] == ["Alice"] and alice["relations"] == [KNOWS]
    spanish = await _graph(reference, "search_nodes", {"query": "spanish"})
    assert [e["name"] for e in spanish["entities"]] == ["John_Smith"]
    assert sorted(spanish["relations"], key=str) == sorted([KNOWS, WORKS_AT], key=str)


async def test_the_knowledge_graph_resource_is_the_whole_graph(reference):
    listed = {str(r.uri) for r in (await reference.list_resources()).resources}
    assert "memory://knowledge-graph" in listed
    await _graph(reference, "create_entities", {"entities": [ALICE, JOHN]})
    await _graph(reference, "create_relations", {"relations": [KNOWS]})
    read = await reference.read_resource("memory://knowledge-graph")
    assert json.loads(read.contents[0].text) == {"entities": [ALICE, JOHN], "relations": [KNOWS]}


def _long_types(count: int) -> list[dict[str, str]]:
    """Relation types that together outgrow one relation row's metadata (16 KB): the write itself fails."""
    return [{"from": "Anthropic", "to": "Bob", "relationType": f"{n:03d}-" + "collaborates-with-" * 10}
            for n in range(count)]


async def test_a_call_with_a_failing_item_in_the_middle_changes_nothing(reference, service):
    bob = {"name": "Bob", "entityType": "person", "observations": []}
    await _graph(reference, "create_entities", {"entities": [ALICE, JOHN, ANTHROPIC, bob]})
    before = await _graph(reference, "read_graph", {})
    counts = service.repository.counts()
    # create_relations: the first pair is valid, the second pair's row is refused at write time, the third valid
    message = await refused(reference, "create_relations", relations=[KNOWS, *_long_types(100), WORKS_AT])
    assert "meta" in message
    # add_observations: a valid item, then one too long for a memory, then a valid one
    message = await refused(reference, "add_observations", observations=[
        {"entityName": "Alice", "contents": ["Prefers async reviews"]},
        {"entityName": "John_Smith", "contents": ["x" * 60_000]},
        {"entityName": "Anthropic", "contents": ["Is based in San Francisco"]}])
    assert "nothing was written" in message
    message = await refused(reference, "create_entities", entities=[
        {"name": "Carol", "entityType": "person", "observations": ["Writes the docs"]},
        {"name": "Dave", "entityType": "person", "observations": ["y" * 60_000]}])
    assert "nothing was written" in message
    assert await _graph(reference, "read_graph", {}) == before
    assert service.repository.counts() == counts
    # and the store still takes the valid calls afterwards
    assert await _graph(reference, "create_relations", {"relations": [KNOWS]}) == [KNOWS]


# -- beside the reference server --------------------------------------------------------------------
def _normalised(reply: Any) -> Any:
    """Order-free: entities by name with sorted observations, relations sorted (neither server promises an
    order beyond insertion, and graphmem's memories of one call share a timestamp)."""
    if isinstance(reply, dict) and "entities" in reply:
        return {**reply, "entities": sorted(({**e, "observations": sorted(e["observations"])}
                                              for e in reply["entities"]), key=lambda e: e["name"]),
                "relations": sorted(reply.get("relations", []), key=lambda r: json.dumps(r, sort_keys=True))}
    if isinstance(reply, list):
        return sorted((_normalised(item) for item in reply), key=lambda item: json.dumps(item, sort_keys=True))
    return reply


async def _reply(client, name: str, arguments: dict[str, Any]) -> tuple[Any, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, f"{name}: {result.content[0].text}"
    text = result.content[0].text
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = text
    structured = result.structured_content
    if isinstance(structured, dict):
        structured = {key: _normalised(value) for key, value in structured.items()}
    return _normalised(parsed), structured


BOB = {"name": "Bob", "entityType": "person", "observations": []}
SAME_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("create_entities", {"entities": [ALICE, JOHN, ANTHROPIC]}),
    ("create_entities", {"entities": [JOHN, BOB]}),
    ("create_relations", {"relations": [KNOWS, WORKS_AT]}),
    ("create_relations", {"relations": [KNOWS]}),
    ("add_observations", {"observations": [{"entityName": "John_Smith",
                                            "contents": ["Likes green tea", "Speaks fluent Spanish"]}]}),
    ("read_graph", {}),
    ("open_nodes", {"names": ["Alice"]}),
    ("open_nodes", {"names": ["John_Smith", "Nobody"]}),
    ("search_nodes", {"query": "spanish"}),
    ("search_nodes", {"query": "organization"}),
    ("search_nodes", {"query": "zzz-no-such-thing"}),
    ("delete_observations", {"deletions": [{"entityName": "John_Smith", "observations": ["Likes green tea"]}]}),
    ("delete_relations", {"relations": [KNOWS]}),
    ("open_nodes", {"names": ["Alice"]}),
    ("create_relations", {"relations": [{"from": "Bob", "to": "Alice", "relationType": "mentors"},
                                        {"from": "Bob", "to": "John_Smith", "relationType": "mentors"}]}),
    ("open_nodes", {"names": ["Bob"]}),
    ("delete_entities", {"entityNames": ["Anthropic"]}),
    ("read_graph", {}),
    ("search_nodes", {"query": "person"}),
    ("delete_observations", {"deletions": [{"entityName": "Alice", "observations": ["Leads the platform team"]}]}),
    ("open_nodes", {"names": ["Alice", "Bob"]}),
    ("add_observations", {"observations": [{"entityName": "Alice", "contents": ["Moved to Lisbon"]}]}),
    ("delete_entities", {"entityNames": ["Bob", "Nobody"]}),
    ("read_graph", {}),
]


@pytest.mark.skipif(NODE is None or not REFERENCE_JS.exists(), reason=(
    "the reference server is not installed: .ci/run installs @modelcontextprotocol/server-memory with npm "
    "into .ci/server-memory (or set MCP_SERVER_MEMORY to its dist/index.js); node is needed to run it"))
async def test_the_same_calls_answer_as_the_reference_server_does(reference, tmp_path):
    params = StdioServerParameters(command=str(NODE), args=[str(REFERENCE_JS)],
                                   env={"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl"),
                                        "PATH": os.environ.get("PATH", "")})
    async with Client(params) as original:
        assert {t.name for t in (await original.list_tools()).tools} == {
            t.name for t in (await reference.list_tools()).tools}
        for name, arguments in SAME_CALLS:
            theirs, ours = await _reply(original, name, arguments), await _reply(reference, name, arguments)
            assert ours == theirs, f"{name}({arguments})"
        resource = "memory://knowledge-graph"
        theirs_graph = json.loads((await original.read_resource(resource)).contents[0].text)
        ours_graph = json.loads((await reference.read_resource(resource)).contents[0].text)
        assert _normalised(ours_graph) == _normalised(theirs_graph)


async def test_a_subscriber_to_the_knowledge_graph_hears_of_every_write(tmp_path):
    import asyncio

    from tests.server.test_subscriptions import Peer
    from tests.server.test_transports import GRAPHMEM

    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")} | {
        "GRAPHMEM_DB": str(tmp_path / "m.db")}
    process = await asyncio.create_subprocess_exec(GRAPHMEM, "--create", "serve", "--tools", "reference", env=env,
                                                   stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.DEVNULL)
    peer = Peer(process)
    try:
        await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "raw", "version": "1"}})
        await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert await peer.request("resources/subscribe", {"uri": "memory://knowledge-graph"}) == {}
        create = {"name": "create_entities", "arguments": {"entities": [ALICE]}}
        assert await peer.updates_after("tools/call", create) == ["memory://knowledge-graph"]
        read = {"name": "read_graph", "arguments": {}}
        assert await peer.updates_after("tools/call", read) == []
    finally:
        if process.stdin is not None:
            process.stdin.close()
        await asyncio.wait_for(process.wait(), 60)

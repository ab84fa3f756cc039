"""The tam profile can write: ``memory_save`` with the total-agent-memory server's own name, parameters and
reply, and what it saves is what ``memory_associate`` then finds."""

from __future__ import annotations

import pytest
from mcp import Client

from graphmem.server import build_server
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio


@pytest.fixture
async def tam(service, settings):
    async with Client(build_server(settings, tools="tam", service=service)) as connected:
        yield connected


async def test_an_agent_saves_with_memory_save_and_recalls_it_with_memory_associate(tam, service):
    saved = await call(tam, "memory_save", content="Use an idempotency key header check before creating orders",
                       type="solution", project="my-api", tags=["orders"], importance="critical",
                       branch="main")
    assert saved == {"saved": True, "id": saved["id"], "deduplicated": False}
    again = await call(tam, "memory_save", content="Use an idempotency key header check before creating orders",
                       type="solution", project="my-api")
    assert again == {"saved": True, "id": saved["id"], "deduplicated": True}
    found = await call(tam, "memory_associate", query="orders idempotency", project="my-api")
    assert saved["id"] in {m["id"] for m in found["memories"]}
    memory = service.repository.memories_by_id([saved["id"]])[saved["id"]]
    assert (memory.kind, memory.project, memory.strength, memory.use_count) == ("solution", "my-api", 1.5, 0)
    assert {"orders", "solution"} <= set(memory.tags) and memory.meta["branch"] == "main"
    lesson = await call(tam, "memory_save", content="Webhook handlers must be idempotent", type="lesson")
    stored = service.repository.memories_by_id([lesson["id"]])[lesson["id"]]
    assert (stored.kind, stored.project, stored.strength) == ("pattern", "general", 1.0)


async def test_associate_shows_the_notes_of_the_memories_it_returns(tam, service):
    first = service.store("Deploys run at 10:00 UTC on weekdays", project="ops").id
    second = service.store("Deploys run at 16:00 UTC on weekdays", project="ops").id
    relation = service.relations.relate(second, first, "contradicts").relation.id
    found = await call(tam, "memory_associate", query="deploys weekdays", project="ops")
    notes = {memory["id"]: memory["notes"] for memory in found["memories"]}
    assert notes == {first: [f"contradicted by {second} ({relation})"],
                     second: [f"contradicted by {first} ({relation})"]}


async def test_a_bad_save_is_a_readable_error_and_writes_nothing(tam, service):
    before = service.repository.counts()
    assert "type" in await refused(tam, "memory_save", content="x", type="gossip")
    await refused(tam, "memory_save", content="", type="fact")
    assert service.repository.counts() == before

"""A session follows the client connection: two conversations minutes apart, from two connections, are two
sessions; one connection's memories share one; an explicit ``session_id`` or ``memory_session_start`` still
decides. (The two-hour window stays the fallback for writes that come through no connection: CLI, Python.)"""

from __future__ import annotations

import pytest
from mcp import Client

from graphmem.server import build_server
from graphmem.store import session_store
from tests.conftest import ORDERS, WEBHOOK

pytestmark = pytest.mark.anyio


async def call(client, name, **arguments):
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def session_of(client, memory_id: str) -> str:
    return (await call(client, "memory_open", ids=[memory_id]))["memories"][0]["session_id"]


async def test_two_connections_write_to_two_sessions_and_one_connection_to_one(settings, service):
    async with Client(build_server(settings, tools="full", service=service)) as first:
        a = (await call(first, "memory_store", content=WEBHOOK, project="web"))["id"]
        b = (await call(first, "memory_store", content="Deploys run at 10:00 UTC", project="web"))["id"]
        assert await session_of(first, a) == await session_of(first, b)
    async with Client(build_server(settings, tools="full", service=service)) as second:
        c = (await call(second, "memory_store", content=ORDERS, project="web"))["id"]
        assert await session_of(second, c) != await session_of(second, a)
        timeline = await call(second, "memory_timeline", project="web", limit=5)
        assert len(timeline["timeline"]) == 2


async def test_a_started_session_or_a_named_one_decides_where_memories_go(settings, service):
    async with Client(build_server(settings, tools="full", service=service)) as client:
        started = (await call(client, "memory_session_start", project="web", new=True))["session"]["id"]
        stored = (await call(client, "memory_store", content=WEBHOOK, project="web"))["id"]
        assert await session_of(client, stored) == started
        other = (await call(client, "memory_session_start", project="ops", new=True))["session"]["id"]
        named = (await call(client, "memory_store", content=ORDERS, project="web", session_id=other))["id"]
        assert await session_of(client, named) == other
        await call(client, "memory_session_end", project="web", session_id=started)
        after = (await call(client, "memory_store", content="Deploys run at 10:00 UTC", project="web"))["id"]
        assert await session_of(client, after) not in {started, other}


async def test_a_rejected_first_write_leaves_no_session_behind(settings, service):
    async with Client(build_server(settings, tools="full", service=service)) as client:
        before = service.uow.generation
        refused = await client.call_tool("memory_store", {"content": "", "project": "web"})
        assert refused.is_error
        with service.uow.read() as session:
            assert session_store.recent_sessions(session, 10, "web") == []
        assert service.uow.generation == before
        stored = (await call(client, "memory_store", content=WEBHOOK, project="web"))["id"]
        again = (await call(client, "memory_store", content=ORDERS, project="web"))["id"]
        assert await session_of(client, stored) == await session_of(client, again)
        with service.uow.read() as session:
            (only,) = session_store.recent_sessions(session, 10, "web")
        assert only.id == await session_of(client, stored)
        assert only.client is not None  # the connection's client name, kept from the reservation
        assert len(service.sessions.reserved) == 0


async def test_a_prompt_first_opens_the_connection_session_it_names(settings, service):
    async with Client(build_server(settings, tools="full", service=service)) as client:
        saved = await call(client, "memory_save_prompt", content="Why do webhooks retry?", project="web")
        stored = (await call(client, "memory_store", content=WEBHOOK, project="web"))["id"]
        assert await session_of(client, stored) == saved["session"]["id"]


async def test_ending_without_an_id_ends_this_connections_session_not_the_latest_one(settings, service):
    async with Client(build_server(settings, tools="full", service=service)) as first, \
            Client(build_server(settings, tools="full", service=service)) as second:
        mine = await session_of(first, (await call(first, "memory_store", content=WEBHOOK, project="web"))["id"])
        theirs = await session_of(second, (await call(second, "memory_store", content=ORDERS, project="web"))["id"])
        ended = await call(first, "memory_session_end", project="web")
        assert ended["session"]["id"] == mine  # the other connection's session is the project's latest
        with service.uow.read() as session:
            by_id = {s.id: s for s in session_store.recent_sessions(session, 10, "web")}
        assert by_id[mine].ended_at is not None and by_id[theirs].ended_at is None
        later = (await call(first, "memory_store", content="Deploys run at 10:00 UTC", project="web"))["id"]
        assert await session_of(first, later) not in {mine, theirs}  # the next write opens a fresh one


async def test_ending_a_session_nothing_was_written_to_says_so_and_ends_no_other(settings, service):
    async with Client(build_server(settings, tools="full", service=service)) as first, \
            Client(build_server(settings, tools="full", service=service)) as second:
        theirs = await session_of(second, (await call(second, "memory_store", content=ORDERS, project="web"))["id"])
        assert (await first.call_tool("memory_store", {"content": "", "project": "web"})).is_error
        refused = await first.call_tool("memory_session_end", {"project": "web"})
        assert refused.is_error and "open session" in refused.content[0].text
        with service.uow.read() as session:
            (only,) = session_store.recent_sessions(session, 10, "web")
        assert only.id == theirs and only.ended_at is None
        assert len(service.sessions.reserved) == 0
        stored = (await call(first, "memory_store", content=WEBHOOK, project="web"))["id"]
        assert await session_of(first, stored) != theirs

"""The server answers ``initialize`` and ``tools/list`` before its service is open; a call that needs the service
waits for it, and when the store cannot be opened every such call says why (graphmem/server/opening.py)."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from graphmem import MemoryService, Settings
from graphmem.server import build_server
from graphmem.server.opening import ServiceOpening
from tests.conftest import WEBHOOK

pytestmark = pytest.mark.anyio


def _opened_after(gate: threading.Event, opened: list[str]):
    def open_service(settings: Settings) -> MemoryService:
        gate.wait()
        service = MemoryService(settings)
        opened.append("service")
        return service

    return open_service


async def test_initialize_and_the_tool_list_are_answered_while_the_service_is_still_opening(settings):
    gate, opened = threading.Event(), []
    server = build_server(settings, tools="core", open_service=_opened_after(gate, opened))
    try:
        async with Client(server) as client:
            listed = await client.list_tools()
            assert opened == []
            assert [tool.name for tool in listed.tools][:2] == ["memory_store", "memory_search"]
            gate.set()
    finally:
        gate.set()
    assert opened == ["service"]  # the server closed it on the way out, after it opened


async def test_a_tool_called_while_the_service_is_opening_waits_for_it_and_succeeds(settings):
    gate, opened, results = threading.Event(), [], []
    server = build_server(settings, tools="core", open_service=_opened_after(gate, opened))

    async def store(client: Client) -> None:
        results.append(await client.call_tool("memory_store", {"content": WEBHOOK}))

    try:
        async with Client(server) as client, anyio.create_task_group() as group:
            group.start_soon(store, client)
            await anyio.wait_all_tasks_blocked()  # the call is in: it waits at the gate, the opening thread at ours
            assert results == [] and opened == []
            gate.set()
    finally:
        gate.set()
    [stored] = results
    assert not stored.is_error, stored.content[0].text
    assert stored.structured_content["duplicate"] is False


def _not_a_database(tmp_path: Path) -> Settings:
    db = tmp_path / "memory.db"
    db.write_bytes(b"a grocery list, not a database\n" * 200)
    return Settings.load(db=str(db), environ={})


async def test_a_store_that_cannot_be_opened_makes_every_tool_call_a_readable_error(tmp_path):
    async with Client(build_server(_not_a_database(tmp_path), tools="full")) as client:
        assert len((await client.list_tools()).tools) > 6
        for name, arguments in (("memory_search", {"query": "webhooks"}), ("memory_store", {"content": WEBHOOK}),
                                ("memory_status", {})):
            result = await client.call_tool(name, arguments)
            assert result.is_error
            text = result.content[0].text
            assert text.startswith("graphmem could not open its store: StorageError: cannot open database")
            assert "file is not a database" in text and "Traceback" not in text


async def test_a_resource_read_from_a_store_that_cannot_be_opened_is_an_error_with_the_reason(tmp_path):
    async with Client(build_server(_not_a_database(tmp_path), tools="core")) as client:
        with pytest.raises(MCPError, match="could not open its store: StorageError"):
            await client.read_resource("graphmem://graph")


def test_an_opening_reports_its_failure_and_a_service_asked_for_before_the_end_is_an_error():
    gate = threading.Event()

    def open_service() -> MemoryService:
        gate.wait()
        raise OSError("disk gone")

    opening = ServiceOpening(open_service)
    thread = opening.start()
    with pytest.raises(RuntimeError, match="still opening"):
        opening.service  # noqa: B018
    assert not opening.done
    gate.set()
    thread.join()
    assert opening.done and opening.failure == "graphmem could not open its store: OSError: disk gone"
    with pytest.raises(RuntimeError, match="disk gone"):
        opening.service  # noqa: B018
    opening.close()  # nothing to close

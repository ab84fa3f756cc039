"""A team deployment: one PostgreSQL database behind two `graphmem serve --transport http` servers.

Clients write to both servers at once (bounded loops, loopback only); nothing is lost, and each server's
recall sees what was written through the other.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator

import pytest
from mcp import Client

from graphmem import MemoryService, Settings
from tests.server.test_transports import GRAPHMEM, _free_port, _wait_for_port
from tests.test_processes import _env

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]

WRITES_PER_CLIENT = 15


@pytest.fixture
def two_servers(pg_url: str, extractor) -> Iterator[list[str]]:
    MemoryService(Settings.load(db=pg_url, environ={}), extractor=extractor).close()
    ports = [_free_port(), _free_port()]
    processes = [subprocess.Popen([GRAPHMEM, "serve", "--transport", "http", "--host", "127.0.0.1",
                                   "--port", str(port), "--tools", "full"], env=_env(pg_url),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for port in ports]
    try:
        for port, process in zip(ports, processes, strict=True):
            _wait_for_port(port, process)
        yield [f"http://127.0.0.1:{port}/mcp" for port in ports]
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=20)


async def _write(url: str, team: str) -> list[str]:
    ids = []
    async with Client(url) as client:
        for number in range(WRITES_PER_CLIENT):
            result = await client.call_tool("memory_store", {
                "content": f"{team} runbook step {number}: rotate the quokka-{team}-{number} certificate",
                "project": "ops"})
            assert not result.is_error, result.content
            ids.append(result.structured_content["id"])
    return ids


async def _seen_by(url: str, team: str) -> set[str]:
    async with Client(url) as client:
        result = await client.call_tool("memory_search", {"query": f"{team} runbook certificate", "project": "ops",
                                                          "limit": 100})
        return {hit["id"] for hit in result.structured_content["hits"]}


async def test_two_servers_on_one_postgresql_lose_nothing_and_see_each_other(two_servers):
    first, second = two_servers
    written = await asyncio.gather(_write(first, "alpha"), _write(first, "beta"), _write(second, "gamma"),
                                   _write(second, "delta"))
    assert all(len(set(ids)) == WRITES_PER_CLIENT for ids in written)
    for url in (first, second):  # each server's recall holds the other server's writes
        for team, ids in zip(("alpha", "beta", "gamma", "delta"), written, strict=True):
            assert set(ids) <= await _seen_by(url, team), (url, team)
    async with Client(second) as client:
        status = (await client.call_tool("memory_status", {})).structured_content
    assert status["memories"] == 4 * WRITES_PER_CLIENT

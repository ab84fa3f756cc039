"""The real server process over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import ORDERS, WEBHOOK

pytestmark = pytest.mark.anyio

GRAPHMEM = str(Path(sys.executable).with_name("graphmem"))


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_DB"] = str(tmp_path / "served.db")
    return env


async def _round_trip(client: Client) -> None:
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert {"memory_store", "memory_associate", "memory_search"} <= names
    await client.call_tool("memory_store", {"content": WEBHOOK})
    stored = await client.call_tool("memory_store", {"content": ORDERS, "kind": "solution"})
    associated = await client.call_tool("memory_associate", {"query": "retry webhooks"})
    ids = [m["id"] for m in associated.structured_content["memories"]]
    assert stored.structured_content["id"] in ids
    bad = await client.call_tool("memory_associate", {"query": "x", "mode": "dream"})
    assert bad.is_error


async def test_graphmem_serve_over_stdio_as_a_subprocess(tmp_path):
    params = StdioServerParameters(command=GRAPHMEM, args=["--create", "serve"], env=_env(tmp_path))
    async with Client(params) as client:
        await _round_trip(client)
    assert (tmp_path / "served.db").exists()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read() if process.stderr else ''}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)  # polling a port that is not open yet; not a timing assumption of the test
    raise TimeoutError(f"port {port} did not open")


async def test_graphmem_serve_over_streamable_http(tmp_path):
    port = _free_port()
    process = subprocess.Popen(
        [GRAPHMEM, "--create", "serve", "--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
        env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, process)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            await _round_trip(client)
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert process.stderr is not None
    assert f"graphmem: serving MCP over streamable HTTP at http://127.0.0.1:{port}/mcp" in process.stderr.read()


async def test_stdio_prints_only_the_store_line_even_when_a_call_fails(tmp_path):
    import asyncio

    from tests.server.test_subscriptions import Peer

    pipe = asyncio.subprocess.PIPE
    process = await asyncio.create_subprocess_exec(GRAPHMEM, "--create", "serve", env=_env(tmp_path), stdin=pipe,
                                                   stdout=pipe, stderr=pipe)
    peer = Peer(process)
    await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "1"}})
    await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for arguments in ({"name": "memory_open", "arguments": {"ids": ["mem_doesnotexist"], "as_of": "soon"}},
                      {"name": "memory_forget", "arguments": {"id": "mem_doesnotexist"}},
                      {"name": "memory_search", "arguments": {"query": "x", "limit": 0}}):
        assert (await peer.request("tools/call", arguments))["isError"] is True
    assert process.stdin is not None and process.stderr is not None
    process.stdin.close()
    printed = (await asyncio.wait_for(process.stderr.read(), 60)).decode()
    await process.wait()
    assert printed.splitlines() == [f"graphmem: created store {tmp_path / 'served.db'} (explicit)"]


async def test_a_server_on_a_missing_store_answers_and_every_call_says_how_to_create_it(tmp_path):
    env = _env(tmp_path)  # GRAPHMEM_DB names a store that does not exist, as a client config may
    missing = tmp_path / "served.db"
    async with Client(StdioServerParameters(command=GRAPHMEM, args=["serve"], env=env)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"memory_store", "memory_search"} <= names
        for name, arguments in [("memory_search", {"query": "webhooks"}), ("memory_store", {"content": WEBHOOK})]:
            reply = await client.call_tool(name, arguments)
            assert reply.is_error
            assert reply.content[0].text == (f"no graphmem store at {missing}; create it with "
                                             f"`graphmem --db {missing} init` or add --create")
    assert not missing.exists()

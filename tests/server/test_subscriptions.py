"""Resource notifications follow the MCP specification on the handshake protocols: the server advertises
``resources.subscribe``, answers ``resources/subscribe`` and ``resources/unsubscribe``, and sends
``notifications/resources/updated`` only for what the client subscribed to. Driven as raw JSON-RPC over the stdio
of a real ``graphmem serve``, as the Inspector and the TypeScript SDK speak it (tests/server/test_node_clients.py
runs those two clients themselves)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_transports import GRAPHMEM

pytestmark = pytest.mark.anyio

UPDATED = "notifications/resources/updated"


class Peer:
    """A JSON-RPC client on a server's stdio that keeps every notification it reads."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process, self.notifications, self.next_id = process, [], 0

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        while True:
            assert self.process.stdout is not None
            message = json.loads(await asyncio.wait_for(self.process.stdout.readline(), 60))
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message["result"]
            self.notifications.append(message)

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def updates_after(self, method: str, params: dict[str, Any]) -> list[str]:
        """The resources announced as updated by the time ``method`` and a following ping are answered."""
        self.notifications.clear()
        await self.request(method, params)
        await self.request("ping")
        return [n["params"]["uri"] for n in self.notifications if n.get("method") == UPDATED]


async def test_updates_go_only_to_subscribed_resources_and_stop_after_unsubscribe(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")} | {
        "GRAPHMEM_DB": str(tmp_path / "m.db")}
    pipe = asyncio.subprocess.PIPE
    process = await asyncio.create_subprocess_exec(GRAPHMEM, "--create", "serve", env=env, stdin=pipe, stdout=pipe,
                                                   stderr=asyncio.subprocess.DEVNULL)
    peer = Peer(process)
    try:
        started = await peer.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                    "clientInfo": {"name": "raw", "version": "1"}})
        assert started["capabilities"]["resources"]["subscribe"] is True
        await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        store = {"name": "memory_store", "arguments": {"content": "Deploys run at 10:00 UTC on weekdays"}}
        assert await peer.updates_after("tools/call", store) == []
        assert await peer.request("resources/subscribe", {"uri": "graphmem://graph"}) == {}
        store["arguments"]["content"] = "Rollbacks use the previous image tag"
        assert await peer.updates_after("tools/call", store) == ["graphmem://graph"]
        search = {"name": "memory_search", "arguments": {"query": "rollback"}}
        assert await peer.updates_after("tools/call", search) == []  # a read changes nothing
        assert await peer.request("resources/unsubscribe", {"uri": "graphmem://graph"}) == {}
        store["arguments"]["content"] = "Hotfixes skip the staging soak"
        assert await peer.updates_after("tools/call", store) == []
    finally:
        if process.stdin is not None:
            process.stdin.close()
        await asyncio.wait_for(process.wait(), 60)

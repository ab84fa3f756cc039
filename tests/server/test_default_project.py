"""A server with a default project (``graphmem serve`` inside a git repository or a project store) files and
finds memories in that project unless a call names another, and ``memory_status`` says which it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from graphmem.server import build_server
from tests.conftest import ORDERS, WEBHOOK
from tests.server.test_transports import GRAPHMEM

pytestmark = pytest.mark.anyio


async def call(client, name, **arguments):
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def test_calls_default_to_the_servers_project_and_a_call_may_name_another_or_none(settings):
    async with Client(build_server(settings.model_copy(update={"project": "webshop"}), tools="full")) as client:
        assert (await call(client, "memory_store", content=WEBHOOK))["project"] == "webshop"
        assert (await call(client, "memory_store", content=ORDERS, project="billing"))["project"] == "billing"
        found = await call(client, "memory_search", query="idempotency key webhook orders")
        assert {hit["content"] for hit in found["hits"]} == {WEBHOOK}
        everywhere = await call(client, "memory_search", query="idempotency key webhook orders", project=None)
        assert {hit["content"] for hit in everywhere["hits"]} == {WEBHOOK, ORDERS}
        assert (await call(client, "memory_status"))["default_project"] == "webshop"


async def test_without_a_default_project_nothing_is_filed_under_one(client):
    assert "project" not in await call(client, "memory_store", content=WEBHOOK)
    assert (await call(client, "memory_status")).get("default_project") is None


async def test_serve_inside_a_git_repository_defaults_to_the_repository(tmp_path: Path):
    repository = tmp_path / "webshop"
    (repository / ".git").mkdir(parents=True)
    (repository / "src").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "XDG_"))} | {
        "XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    params = StdioServerParameters(command=GRAPHMEM, args=["serve", "--tools", "full"], env=env,
                                   cwd=str(repository / "src"))
    async with Client(params) as client:
        assert (await call(client, "memory_status"))["default_project"] == "webshop"
        assert (await call(client, "memory_store", content=WEBHOOK))["project"] == "webshop"

"""Every tool-call example of README.md and docs/ runs through a real MCP client against its profile's server,
and returns what the page shows (the convention is in :mod:`tests.doc_tool_calls`)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from graphmem.server import build_server
from graphmem.server.profiles import CORE, PROFILES
from graphmem.service import MemoryService
from graphmem.settings import Settings
from tests import doc_tool_calls
from tests.doc_tool_calls import Bindings, ToolBlock, matches

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = doc_tool_calls.tool_blocks(ROOT)
PAGES = sorted({block.page for block in BLOCKS})
EVERY_TOOL = {name for table in PROFILES.values() for name in table}


class Servers:
    """One client session per profile, all on one store, opened when a page first needs the profile."""

    def __init__(self, service: MemoryService, settings: Settings, stack: AsyncExitStack) -> None:
        self.service, self.settings, self.stack = service, settings, stack
        self.clients: dict[str, Any] = {}

    async def client(self, profile: str) -> Any:
        if profile not in self.clients:
            server = build_server(self.settings, tools=profile, service=self.service)
            self.clients[profile] = await self.stack.enter_async_context(Client(server))
        return self.clients[profile]


@pytest.fixture
async def servers(tmp_path: Path, extractor: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Servers]:
    monkeypatch.chdir(tmp_path)  # a brief's root "." is the server's working directory, the project's folder
    (tmp_path / ".graphmem").mkdir()
    settings = Settings.load(db=str(tmp_path / ".graphmem" / "memory.db"), environ={})
    service = MemoryService(settings, extractor=extractor)
    try:
        async with AsyncExitStack() as stack:
            yield Servers(service, settings, stack)
    finally:
        service.close()


def _result(reply: Any) -> Any:
    if reply.structured_content is not None:
        return reply.structured_content
    text = "".join(getattr(part, "text", "") for part in reply.content)
    try:
        return json.loads(text)
    except ValueError:
        return text


async def run_block(block: ToolBlock, servers: Servers, bindings: Bindings) -> None:
    client = await servers.client(block.profile)
    listed = {tool.name for tool in (await client.list_tools()).tools}
    for call in block.calls:
        where = f"{block.page}:{call.line}: {call.tool}"
        assert call.tool in listed, f"{where}: profile {block.profile!r} has no such tool"
        reply = await client.call_tool(call.tool, bindings.substitute(call.arguments))
        text = " ".join(getattr(part, "text", "") for part in reply.content)
        if call.error is not None:
            assert reply.is_error, f"{where}: the page shows an error, the call succeeded: {text[:500]}"
            assert doc_tool_calls.match_text(call.error, " ".join(text.split()), bindings), (
                f"{where}: the page shows the error\n  {call.error}\nthe server answered\n  {text}")
            continue
        assert not reply.is_error, f"{where}: failed: {text}"
        if call.shows_result:
            problems = matches(call.result, _result(reply), bindings)
            assert not problems, f"{where}: the result differs from the page:\n  " + "\n  ".join(problems) + (
                f"\nreturned: {json.dumps(_result(reply), ensure_ascii=False)[:3000]}")


@pytest.mark.parametrize("page", PAGES)
async def test_every_tool_call_example_returns_what_the_page_shows(page: str, servers: Servers) -> None:
    bindings = Bindings()
    for block in [block for block in BLOCKS if block.page == page]:
        await run_block(block, servers, bindings)


def test_the_readme_and_the_tool_pages_have_tool_call_examples() -> None:
    assert {"README.md", "tools.md", "lifecycle.md", "relations.md", "learning.md"} <= set(PAGES)
    assert sum(len(block.calls) for block in BLOCKS) >= 40


def test_the_readme_calls_only_default_profile_tools() -> None:
    readme = {call.tool for block in BLOCKS if block.page == "README.md" for call in block.calls}
    assert readme and readme <= set(CORE), readme - set(CORE)


_TOOLISH = re.compile(r"`(memory_[a-z_]+)[`(]")
# Names in the code that are not tools (GraphProjection.memory_nodes, …): the docs may name them.
NOT_TOOLS = {name for source in (ROOT / "graphmem").rglob("*.py") if "server" not in source.parts
             for name in re.findall(r"\b(memory_[a-z_]+)\b", source.read_text(encoding="utf-8"))}


def test_every_memory_tool_a_page_names_exists() -> None:
    parameters = {name for table in PROFILES.values() for function, _ in table.values()
                  for name in function.__annotations__}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        named = set(_TOOLISH.findall(page.read_text(encoding="utf-8")))
        unknown = named - EVERY_TOOL - parameters - NOT_TOOLS
        assert not unknown, f"{page.name} names tools no profile has: {sorted(unknown)}"


def test_the_example_matcher_binds_ids_and_reads_trimmed_results() -> None:
    bindings = Bindings()
    shown = json.loads(doc_tool_calls.tolerant_json(
        '{"id": "mem_01m8mrbc7qhapwxzeczg", "items": [{"n": 1, …}, "…"], "score": 0.5, "at": "2026-01-01T00:00:00Z",'
        ' "message": "mem_01m8mrbc7qhapwxzeczg supersedes …", …}'))
    real = {"id": "mem_01abcdefgh0123456789", "items": [{"n": 1, "x": 2}, {"n": 3}], "score": 3,
            "at": "2026-12-01T17:00:00+00:00", "message": "mem_01abcdefgh0123456789 supersedes mem_x", "more": 1}
    assert matches(shown, real, bindings) == []
    assert bindings.substitute({"ids": ["mem_01m8mrbc7qhapwxzeczg"]}) == {"ids": ["mem_01abcdefgh0123456789"]}
    assert matches({"message": "mem_01m8mrbc7qhapwxzeczg …"}, {"message": "mem_01zyxwvtsr9876543210 x"}, bindings)
    assert matches({"n": 1}, {"n": 2}, Bindings()) and matches({"n": 1}, {}, Bindings())
    assert matches([1], [1, 2], Bindings()) and not matches([1, "…"], [1, 2], Bindings())
    with pytest.raises(KeyError):
        Bindings().substitute("mem_01m8mrbc7qhapwxzeczg")
    with pytest.raises(ValueError, match="write a tool call as"):
        doc_tool_calls.parse_page("x.md", '```json\nmemory_export(query="x")\n```\n', "full")

"""docs/tools.md is checked against ``tools/list``: every profile's section lists exactly the tools its server
lists, with their read-only hint, parameters and description, and the summary table their count and size."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from graphmem.server import build_server
from graphmem.server.profiles import PROFILES
from graphmem.settings import Settings

pytestmark = pytest.mark.anyio

PAGE = Path(__file__).resolve().parent.parent / "docs" / "tools.md"


def row(tool: Any) -> str:
    """The table row docs/tools.md shows for one listed tool."""
    parameters = ", ".join(f"`{name}`" for name in tool.input_schema.get("properties", {}))
    read_only = "yes" if tool.annotations and tool.annotations.read_only_hint else "no"
    return f"| `{tool.name}` | {read_only} | {parameters} | {tool.description} |"


def section(text: str, profile: str) -> list[str]:
    """The table rows under ``## `profile```."""
    found = re.search(rf"^## `{re.escape(profile)}`\n(.*?)(?=^## |\Z)", text, re.DOTALL | re.MULTILINE)
    assert found, f"docs/tools.md has no section ## `{profile}`"
    return [line for line in found.group(1).splitlines() if line.startswith("| `")]


def summary(text: str, profile: str) -> tuple[int, str]:
    found = re.search(rf"^\| `{re.escape(profile)}`(?: \(default\))? \| (\d+) \| ([\d.]+) KB \|", text, re.MULTILINE)
    assert found, f"the profile table of docs/tools.md has no row for {profile}"
    return int(found.group(1)), found.group(2)


async def listed(profile: str, tmp_path: Path) -> list[Any]:
    settings = Settings.load(db=str(tmp_path / f"{profile}.db"), environ={})
    async with Client(build_server(settings, tools=profile)) as client:
        return (await client.list_tools()).tools


@pytest.mark.parametrize("profile", list(PROFILES))
async def test_the_tools_page_shows_what_tools_list_answers_for_each_profile(profile: str, tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    tools = await listed(profile, tmp_path)
    expected = [row(tool) for tool in tools]
    assert section(text, profile) == expected, (
        f"the {profile} section of docs/tools.md differs from tools/list; it should read:\n" + "\n".join(expected))
    # KB = 1,024 bytes of the tool definitions as compact JSON
    size = len(json.dumps([tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools],
                          separators=(",", ":"), ensure_ascii=False).encode())
    assert summary(text, profile) == (len(tools), f"{size / 1024:.1f}"), f"{profile}: {len(tools)} tools, {size} bytes"


async def test_the_readme_quotes_the_default_profiles_size_as_tools_list_answers_it(tmp_path: Path) -> None:
    readme = (PAGE.parent.parent / "README.md").read_text(encoding="utf-8")
    count, size = summary(PAGE.read_text(encoding="utf-8"), "core")
    assert f"(the default: {count} tools, {size} KB of tool definitions)" in readme

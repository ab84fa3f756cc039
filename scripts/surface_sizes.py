"""Sizes of graphmem's MCP surface: ``tools/list`` per profile and the results an agent reads most,
measured through a real in-process MCP client on the bundled data (data/observations.jsonl).

    python scripts/surface_sizes.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from graphmem import MemoryService, Settings
from graphmem.server import build_server
from graphmem.server.profiles import PROFILES

DATA = Path(__file__).resolve().parents[1] / "data" / "observations.jsonl"
QUERY = "deploy the billing worker to kubernetes with terraform"


def _compact(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


async def _tool_lists(settings: Settings, service: MemoryService) -> dict[str, tuple[int, int]]:
    sizes = {}
    for profile in PROFILES:
        async with Client(build_server(settings, tools=profile, service=service)) as client:
            tools = (await client.list_tools()).tools
            sizes[profile] = (len(tools), _compact([t.model_dump(mode="json", by_alias=True, exclude_none=True)
                                                    for t in tools]))
    return sizes


async def _results(settings: Settings, service: MemoryService) -> dict[str, tuple[int, int]]:
    calls = {"memory_search (10 hits)": ("memory_search", {"query": QUERY}),
             "memory_associate composition": ("memory_associate", {"query": QUERY, "mode": "composition"}),
             "memory_lint": ("memory_lint", {}),
             "memory_scan_conflicts": ("memory_scan_conflicts", {})}
    sizes = {}
    async with Client(build_server(settings, tools="full", service=service)) as client:
        for label, (name, arguments) in calls.items():
            result = await client.call_tool(name, arguments)
            sizes[label] = (_compact(result.structured_content), len(result.content[0].text.encode()))
        page = (await client.read_resource("graphmem://graph")).contents[0].text
        sizes["graphmem://graph (one page)"] = (len(page.encode()), 0)
    return sizes


def measure() -> dict[str, dict[str, tuple[int, int]]]:
    """``{"tools/list": {profile: (tools, bytes)}, "results": {result: (structured, text bytes)}}``."""
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings.load(db=str(Path(scratch) / "surface.db"), environ={})
        service = MemoryService(settings)
        try:
            service.import_jsonl(DATA.read_text(encoding="utf-8").splitlines())
            tool_lists = anyio.run(_tool_lists, settings, service)
            results = anyio.run(_results, settings, service)
        finally:
            service.close()
    return {"tools/list": tool_lists, "results": results}


def report() -> None:
    """Print the tools/list size of every profile and the sizes of the common results."""
    sizes = measure()
    print("MCP surface: tools/list per profile (compact JSON)")
    for profile, (count, size) in sizes["tools/list"].items():
        print(f"  {profile:<12} {count:>3} tools  {size / 1024:6.1f} KB")
    print("MCP surface: result sizes on the bundled data (structured / text block)")
    for label, (structured, text) in sizes["results"].items():
        print(f"  {label:<32} {structured / 1024:6.1f} KB / {text / 1024:6.1f} KB")


if __name__ == "__main__":
    report()

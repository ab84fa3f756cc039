"""The composition root of the MCP server: ``build_server(settings) -> MCPServer``.

The service is built once in a typed lifespan and shared by every tool call of the process.
Nothing registers itself at import time: tools are added here, by name, from their modules.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer

from graphmem.server import learning, tools, tools_export, tools_lifecycle, tools_relations
from graphmem.server.context import AppContext
from graphmem.service import MemoryService
from graphmem.settings import Settings

__all__ = ["AppContext", "build_server"]

INSTRUCTIONS = """graphmem is your persistent memory across sessions.
- Store decisions, errors, patterns, architecture notes and solutions with memory_store as you work.
- Start a task with memory_search (keyword + associative) to recall what earlier sessions learned.
- Use memory_associate to find memories related by concepts rather than words; mode="composition"
  assembles the fewest memories covering every need of a task, with gaps and conflicts.
- memory_open reads full memories and their relations by id; memory_graph shows the concept graph.
- memory_session(action="start", project=...) opens a task with recent memories, due reviews and open
  conflicts; memory_lifecycle corrects (keeping history), forgets, reviews and reinforces memories."""


def build_server(settings: Settings, *, service: MemoryService | None = None) -> MCPServer[AppContext]:
    """Build the MCP server; ``service`` lets tests share an already-open service."""
    @asynccontextmanager
    async def lifespan(_: MCPServer[AppContext]) -> AsyncIterator[AppContext]:
        owned = service is None
        memory = service or MemoryService(settings)
        try:
            yield AppContext(service=memory)
        finally:
            if owned:
                memory.close()

    server: MCPServer[AppContext] = MCPServer("graphmem", instructions=INSTRUCTIONS, lifespan=lifespan,
                                              version=_version())
    tools.register(server)
    tools_export.register(server)
    tools_lifecycle.register(server)
    tools_relations.register(server)
    learning.register(server)
    return server


def _version() -> str:
    from graphmem import __version__

    return __version__

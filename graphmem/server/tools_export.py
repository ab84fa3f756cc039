"""Export over MCP: the ``memory_export`` tool (pages of the graph or of a query's activated
subgraph), the ``graphmem://graph`` and ``graphmem://memory/{id}`` resources, and change
notifications after every successful write tool."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.shared.subscriptions import ResourceUpdated
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import GraphmemError
from graphmem.server.context import AppContext
from graphmem.server.models import MemoryOut, RelationOut
from graphmem.server.tools import READ_ONLY, Instant, Project, service_of, tool_errors
from graphmem.service.export import ExportScope

__all__ = ["GRAPH_URI", "MEMORY_URI", "GraphChangeNotifier", "GraphExportOut", "register"]

logger = logging.getLogger(__name__)
GRAPH_URI = "graphmem://graph"
MEMORY_URI = "graphmem://memory/{id}"


class GraphExportOut(BaseModel):
    """One page of the export graph (``nodes``/``edges`` carry every export attribute)."""

    model_config = ConfigDict(from_attributes=True)

    scope: dict[str, Any]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    activated: list[str]
    total_nodes: int
    total_edges: int
    offset: int
    limit: int
    has_more: bool
    next_offset: int | None
    truncated: bool


def memory_export(
    ctx: Context[AppContext, Any],
    *,
    query: Annotated[str | None, Field(
        description="Export what graphmem relates to this query: the memories memory_associate returns "
                    "and their neighbourhood")] = None,
    hops: Annotated[int, Field(ge=0, le=4, description="Query scope: hops around activated memories")] = 1,
    project: Project = None,
    as_of: Instant = None,
    max_results: Annotated[int, Field(ge=1, le=100, description="Query scope: activated memories")] = 10,
    offset: Annotated[int, Field(ge=0)] = 0,
    limit: Annotated[int, Field(ge=1, le=500, description="Nodes per page")] = 200,
    max_content_chars: Annotated[int, Field(ge=0, le=5000, description="Memory text cut to this")] = 500,
) -> GraphExportOut:
    """Export the memory graph (or one project, a time slice, or a query's activated subgraph) as JSON
    nodes and typed, weighted edges, a page at a time; follow next_offset. For files (GraphML, GEXF,
    Cypher, CSV, DOT, HTML) use the CLI: graphmem export --format ..."""
    scope = ExportScope(project=project, as_of=as_of, query=query, hops=hops, max_results=max_results)
    with tool_errors():
        page = service_of(ctx).exports.page(scope, offset, limit, max_content_chars)
    return GraphExportOut.model_validate(page)


def read_graph(ctx: Context[AppContext, Any], query: str | None = None, project: str | None = None,
               offset: int = 0, limit: int = 200) -> str:
    """The memory graph as JSON: statistics and a page of nodes and edges (query and paging optional)."""
    service = ctx.request_context.lifespan_context.service
    try:
        page = service.exports.page(ExportScope(project=project, query=query), offset, limit)
        stats = service.exports.stats()
    except GraphmemError as error:
        raise ResourceError(f"{type(error).__name__}: {error}") from error
    body = {"stats": dataclasses.asdict(stats), "page": GraphExportOut.model_validate(page).model_dump()}
    return json.dumps(body, ensure_ascii=False, default=str)


def read_memory(id: str, ctx: Context[AppContext, Any]) -> str:  # the URI variable is {id}
    """One memory with its relations and concepts, as JSON."""
    result = ctx.request_context.lifespan_context.service.open([id])
    if not result.memories:
        raise ResourceNotFoundError(f"no memory {id!r}")
    memory = result.memories[0]
    body = {"memory": MemoryOut.model_validate(memory).model_dump(mode="json"),
            "relations": [RelationOut.model_validate(r).model_dump(mode="json") for r in result.relations],
            "concepts": list(result.concepts.get(memory.id, ()))}
    return json.dumps(body, ensure_ascii=False)


class GraphChangeNotifier:
    """Server middleware: after a successful call of a tool that is not read-only, announce that
    ``graphmem://graph`` (and ``graphmem://memory/<id>`` of a written memory) changed.

    Clients on the 2026-07-28 protocol receive ``notifications/resources/updated`` on their
    ``subscriptions/listen`` stream; earlier clients receive it on the session. Doing this here, not
    in each tool, covers every write tool any module registers.
    """

    def __init__(self, server: MCPServer[Any]) -> None:
        self._server = server

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "tools/call" and isinstance(result, dict) and not result.get("isError"):
            name = (ctx.params or {}).get("name")
            if await self._writes(name):
                try:
                    await self._notify(ctx, [GRAPH_URI, *_memory_uris(result.get("structuredContent"))])
                except Exception:  # best effort: the write succeeded and must be reported as such
                    logger.warning("could not send the graph change notification", exc_info=True)
        return result

    async def _writes(self, name: str | None) -> bool:
        tool = next((t for t in await self._server.list_tools() if t.name == name), None)
        return tool is not None and not (tool.annotations and tool.annotations.read_only_hint)

    async def _notify(self, ctx: Any, uris: list[str]) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            # MCPServer keeps its subscription bus private; Context.notify_resource_updated publishes
            # on the same bus, but a middleware has no mcpserver Context to call it on.
            bus = self._server._subscriptions
            for uri in uris:
                await bus.publish(ResourceUpdated(uri=uri))
        else:
            for uri in uris:
                await ctx.session.send_resource_updated(uri)


def _memory_uris(content: Any) -> list[str]:
    """URIs of the memories a write tool reports (``id`` or ``ids`` of ``mem_…`` values)."""
    if not isinstance(content, dict):
        return []
    ids = content.get("ids") if isinstance(content.get("ids"), list) else [content.get("id")]
    return [MEMORY_URI.format(id=i) for i in ids if isinstance(i, str) and i.startswith("mem_")]


def register(server: MCPServer[Any]) -> None:
    """Add the export tool, the graph resources and the change notifier to ``server``."""
    server.add_tool(memory_export, annotations=READ_ONLY)
    server.resource(GRAPH_URI + "{?query,project,offset,limit}", name="memory graph",
                    description="Statistics and a page of the memory graph (JSON); query= for a subgraph",
                    mime_type="application/json")(read_graph)
    server.resource(MEMORY_URI, name="memory", mime_type="application/json",
                    description="One memory with its relations and concepts (JSON)")(read_memory)
    server.middleware.append(GraphChangeNotifier(server))

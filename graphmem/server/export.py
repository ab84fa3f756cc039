"""Export over MCP: the ``memory_export`` tool, the resources (the graph summary and the most recent
memories, listed; pages of the graph and one memory by id or topic key, as templates) and the change
notifications sent after every successful write tool."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.server.subscriptions import SubscriptionBus
from mcp.shared.subscriptions import ResourceUpdated
from mcp_types import CallToolResult, ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from graphmem.errors import GraphmemError
from graphmem.server.common import READ_ONLY, Instant, ProjectFilter, reply, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.learn_params import OutcomeFilter, TaskTypeFilter, ToolsFilter
from graphmem.server.models.export import GraphExportOut
from graphmem.server.models.lifecycle import LifecycleItemOut
from graphmem.server.models.memories import MemoryOut, RelationOut
from graphmem.server.subscriptions import ResourceSubscriptions

if TYPE_CHECKING:
    from graphmem.service import MemoryService

__all__ = ["GRAPH_URI", "MEMORY_URI", "RECENT_URI", "TOOLS", "GraphChangeNotifier", "register_resources", "write_tools"]

logger = logging.getLogger(__name__)
GRAPH_URI = "graphmem://graph"
RECENT_URI = "graphmem://memories/recent"
MEMORY_URI = "graphmem://memory/{id}"
PAGE_NODES = 40  # a resource page of 40 nodes with 200-character texts stays under 32 KB on the bundled data
PAGE_TEXT_CHARS = 200
RECENT_COUNT = 20


def memory_export(
    ctx: Context[AppContext, Any],
    query: Annotated[str | None, Field(description=(
        "Export only what relates to this query: the memories memory_associate returns and their "
        "neighbourhood"))] = None,
    hops: Annotated[int, Field(ge=0, le=4, description="With query: hops around the activated memories")] = 1,
    project: ProjectFilter = None,
    as_of: Annotated[Instant, Field(description="The graph as it was then")] = None,
    max_results: Annotated[int, Field(ge=1, le=100, description="With query: activated memories")] = 10,
    offset: Annotated[int, Field(ge=0, description="Nodes to skip: the previous page's next_offset")] = 0,
    limit: Annotated[int, Field(ge=1, le=500, description="Nodes per page")] = 100,
    max_content_chars: Annotated[int, Field(ge=0, le=5000, description="Memory text cut to this")] = 200,
    outcome: OutcomeFilter = None,
    task_type: TaskTypeFilter = None,
    tools_used: ToolsFilter = None,
) -> Annotated[CallToolResult, GraphExportOut]:
    """Export the memory graph (or one project, a time slice, or a query's subgraph) as nodes and typed,
    weighted edges, a page at a time. For files (GraphML, GEXF, Cypher, CSV, DOT, HTML) use the CLI:
    graphmem export --format ..."""
    from graphmem.service.export.scope import ExportScope  # loaded with the service, not with the tool list

    scope = ExportScope(project=project, as_of=as_of, query=query, hops=hops, max_results=max_results,
                        outcome=outcome, task_type=task_type, tools_used=tuple(tools_used or ()))
    with tool_errors():
        page = service_of(ctx).exports.page(scope, offset, limit, max_content_chars)
    return reply(GraphExportOut.model_validate(page))


TOOLS = {"memory_export": (memory_export, READ_ONLY)}


def _compact(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str)


def graph_body(service: MemoryService, query: str | None = None, project: str | None = None, offset: int = 0,
               limit: int = PAGE_NODES) -> str:
    """Statistics and one page of the graph, compact JSON; follow ``page.next_offset``."""
    from graphmem.service.export.scope import ExportScope

    try:
        page = service.exports.page(ExportScope(project=project, query=query), offset, min(limit, 200),
                                    PAGE_TEXT_CHARS)
        stats = service.exports.stats()
    except GraphmemError as error:
        raise ResourceError(f"{type(error).__name__}: {error}") from error
    summary = {k: v for k, v in dataclasses.asdict(stats).items() if k not in {"degree", "communities"}}
    return _compact({"stats": summary, "page": GraphExportOut.model_validate(page).model_dump()})


def recent_body(service: MemoryService) -> str:
    items = service.sessions.recent(None, RECENT_COUNT)
    return _compact({"memories": [LifecycleItemOut.model_validate(i).model_dump(mode="json") for i in items]})


def memory_body(service: MemoryService, ref: str) -> str:
    """One memory (by id or topic key) with its relations and concepts, compact JSON."""
    try:
        result = service.open([ref])
    except GraphmemError as error:
        raise ResourceError(f"{type(error).__name__}: {error}") from error
    if not result.memories:
        raise ResourceNotFoundError(f"no memory with id or topic key {ref!r}")
    memory = result.memories[0]
    return _compact({"memory": MemoryOut.model_validate(memory).model_dump(mode="json"),
                     "relations": [RelationOut.model_validate(r).model_dump(mode="json") for r in result.relations],
                     "concepts": list(result.concepts.get(memory.id, ()))})


def register_resources(server: MCPServer[Any], current: Callable[[], MemoryService]) -> None:
    """The listed resources read through ``current`` (static resources get no call context); the
    templates read the call's lifespan service."""
    def summary() -> str:
        return graph_body(current())

    def recent() -> str:
        return recent_body(current())

    def read_graph(ctx: Context[AppContext, Any], query: str | None = None, project: str | None = None,
                   offset: int = 0, limit: int = PAGE_NODES) -> str:
        return graph_body(service_of(ctx), query, project, offset, limit)

    def read_memory(ref: str, ctx: Context[AppContext, Any]) -> str:
        return memory_body(service_of(ctx), ref)

    json_type = "application/json"
    server.resource(GRAPH_URI, name="graph summary", mime_type=json_type,
                    description="Graph statistics and the first page of memories and concepts")(summary)
    server.resource(RECENT_URI, name="recent memories", mime_type=json_type,
                    description=f"The {RECENT_COUNT} most recently created or used current memories")(recent)
    server.resource(GRAPH_URI + "{?query,project,offset,limit}", name="memory graph", mime_type=json_type,
                    description=f"A page of the graph ({PAGE_NODES} nodes by default); query= for a subgraph"
                    )(read_graph)
    # {+ref}: a topic key has slashes (architecture/auth-model); it is a lookup key, never a file path.
    server.resource("graphmem://memory/{+ref}", name="memory", mime_type=json_type,
                    security=ResourceSecurity(exempt_params={"ref"}),
                    description="One memory by id or topic key, with its relations and concepts")(read_memory)


class GraphChangeNotifier:
    """Server middleware: after a successful call of a tool that is not read-only, announce that
    ``graphmem://graph`` (and ``graphmem://memory/<id>`` of a written memory) changed.

    Clients on the 2026-07-28 protocol receive ``notifications/resources/updated`` on their
    ``subscriptions/listen`` stream (``bus``, the subscription bus the server was built with);
    earlier clients receive it on the session, for the URIs they subscribed to with
    ``resources/subscribe`` (:mod:`graphmem.server.subscriptions`). Doing this here, not in each tool,
    covers every write tool of every profile; read-only tools never notify.

    ``writes`` is fixed when the server is built, from the tools' hints: every tool has one
    intent, so the hint is the same for every call. (Reading it back from ``list_tools()`` on each
    call cost 0.3 ms of CPU in ``core`` and 2 ms in ``full``, 15 ms wall on a loaded machine: the
    schemas were compacted on every listing.)
    """

    def __init__(self, server: MCPServer[Any], bus: SubscriptionBus, writes: frozenset[str],
                 also: tuple[str, ...] = ()) -> None:
        self._bus = bus
        self._writes = writes
        self._also = also  # a dialect's own resources every write changes (memory://knowledge-graph)
        self._subscriptions = ResourceSubscriptions.serve(server)

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if self._wrote(ctx, result):
            try:
                await self._notify(ctx, [GRAPH_URI, *self._also, *_memory_uris(result.get("structuredContent"))])
            except Exception:  # best effort: the write succeeded and must be reported as such
                logger.warning("could not send the graph change notification", exc_info=True)
        return result

    def _wrote(self, ctx: Any, result: Any) -> bool:
        """A successful call of a write tool."""
        return (ctx.method == "tools/call" and isinstance(result, dict) and not result.get("isError")
                and (ctx.params or {}).get("name") in self._writes)

    async def _notify(self, ctx: Any, uris: list[str]) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            for uri in uris:
                await self._bus.publish(ResourceUpdated(uri=uri))
        else:  # only what this client subscribed to (resources/subscribe), as the specification requires
            for uri in self._subscriptions.subscribed(ctx.session, uris):
                await ctx.session.send_resource_updated(uri)


def write_tools(table: Mapping[str, tuple[Any, ToolAnnotations]]) -> frozenset[str]:
    """The tools of ``table`` whose hints say they write (not read-only)."""
    return frozenset(name for name, (_, hints) in table.items() if not hints.read_only_hint)


def _memory_uris(content: Any) -> list[str]:
    """URIs of the memories a write tool reports (``id``, ``ids`` or ``created_id`` of ``mem_…`` values)."""
    if not isinstance(content, dict):
        return []
    listed = content.get("ids")
    ids = listed if isinstance(listed, list) else [content.get("id")]
    ids = [*ids, content.get("created_id")]
    return [MEMORY_URI.format(id=i) for i in ids if isinstance(i, str) and i.startswith("mem_")]

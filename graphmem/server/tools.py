"""The core memory tools. Each is a thin call into the service: validate via the signature,
call, convert the result once into its Pydantic model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.errors import GraphmemError
from graphmem.server.context import AppContext
from graphmem.server.models import AssociateOut, GraphOut, OpenOut, SearchOut, StatusOut, StoreOut
from graphmem.service import MemoryService

__all__ = ["READ_ONLY", "WRITE", "register", "service_of", "tool_errors"]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Kind = Literal["note", "decision", "error", "pattern", "architecture", "summary", "solution", "prompt"]
Instant = Annotated[str | int | None, Field(description="ISO 8601 (2026-03-01T12:00:00Z) or epoch milliseconds")]
Project = Annotated[str | None, Field(description="Project or domain; filters apply before the top-k cut")]


def service_of(ctx: Context[AppContext, Any]) -> MemoryService:
    return ctx.request_context.lifespan_context.service


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn graphmem's typed errors into readable tool errors (never a traceback)."""
    try:
        yield
    except GraphmemError as error:
        raise ToolError(f"{type(error).__name__}: {error}") from error


def memory_store(
    ctx: Context[AppContext, Any],
    content: Annotated[str, Field(description="The observation: factual and specific (max 50,000 chars)")],
    kind: Kind = "note",
    project: Project = None,
    topic_key: Annotated[str | None, Field(
        description="Stable key such as architecture/session-storage; storing again with a key the project "
                    "already uses supersedes the older memory (listed in superseded)")] = None,
    tags: Annotated[list[str], Field(max_length=50)] = [],  # noqa: B006 - the schema shows [] as default
    entities: Annotated[list[str], Field(max_length=100)] = [],  # noqa: B006
    source: str | None = None,
    context: str | None = None,
    meta: dict[str, Any] = {},  # noqa: B006
    session_id: str | None = None,
    review_after: Instant = None,
    valid_from: Instant = None,
) -> StoreOut:
    """Store an observation (decision, error, pattern, architecture note, summary, solution or note).
    Re-storing the same content in the same project returns the existing id with duplicate=true."""
    with tool_errors():
        result = service_of(ctx).store(content, kind, project, topic_key, tags, entities, source, context, meta,
                                       session_id, review_after, valid_from)
    return StoreOut.model_validate(result)


def memory_search(
    ctx: Context[AppContext, Any],
    query: Annotated[str, Field(description="Keywords or a natural-language question")],
    project: Project = None,
    kind: Kind | None = None,
    tags: Annotated[list[str] | None, Field(description="Only memories carrying all these tags")] = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    offset: Annotated[int, Field(ge=0)] = 0,
    as_of: Instant = None,
    include_superseded: Annotated[bool, Field(description="Also show memories a judged relation replaced")] = False,
) -> SearchOut:
    """Default retrieval: BM25 keyword ranking fused with spreading activation over the concept graph.
    Every hit carries its id and score. as_of returns the state at that instant."""
    with tool_errors():
        result = service_of(ctx).search(query, project, kind, tags, limit, offset, as_of, include_superseded)
    return SearchOut.model_validate(result)


def memory_associate(
    ctx: Context[AppContext, Any],
    query: Annotated[str, Field(description="Natural language query")],
    mode: Annotated[Literal["recall", "composition"], Field(
        description="recall = find related memories; composition = fewest memories covering all needed concepts")
    ] = "recall",
    project: Project = None,
    max_results: Annotated[int, Field(ge=1, le=100)] = 10,
    min_coverage: Annotated[float, Field(ge=0.0, le=1.0, description="Composition: coverage to reach")] = 0.7,
    as_of: Instant = None,
    include_superseded: Annotated[bool, Field(description="Also show memories a judged relation replaced")] = False,
) -> AssociateOut:
    """Associative recall by spreading activation from the query's concepts: finds memories related
    through shared concepts even when they share no keyword. Explains seeds, unmatched concepts and
    which concepts carried each hit."""
    with tool_errors():
        result = service_of(ctx).associate(query, mode, project, max_results, min_coverage, as_of=as_of,
                                           include_superseded=include_superseded)
    return AssociateOut.model_validate(result)


def memory_open(
    ctx: Context[AppContext, Any],
    ids: Annotated[list[str], Field(min_length=1, max_length=100, description="Memory ids or topic keys")],
    include_relations: bool = True,
    as_of: Instant = None,
) -> OpenOut:
    """Read full memories by id or topic key, with their relations and concepts; unknown ids are listed
    in not_found. as_of shows them as they were at that instant (a topic key names its holder then)."""
    with tool_errors():
        result = service_of(ctx).open(ids, include_relations, as_of)
    return OpenOut.model_validate(result)


def memory_graph(
    ctx: Context[AppContext, Any],
    node: Annotated[str | None, Field(description="Centre: memory id, topic key or concept:<name>")] = None,
    depth: Annotated[int, Field(ge=0, le=4)] = 1,
    project: Project = None,
    offset: Annotated[int, Field(ge=0)] = 0,
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
    as_of: Instant = None,
) -> GraphOut:
    """Paginated read of the memory graph: the neighbourhood of a node, or pages of memories with
    their concepts. Edges are typed: mention, cooccurrence or the relation type."""
    with tool_errors():
        result = service_of(ctx).graph(node, depth, project, offset, limit, as_of)
    return GraphOut.model_validate(result)


def memory_status(ctx: Context[AppContext, Any]) -> StatusOut:
    """Counts of memories by kind and status, concepts, edges, relations and sessions, and the recall settings."""
    with tool_errors():
        return StatusOut.model_validate(service_of(ctx).status())


_TOOLS: tuple[tuple[Callable[..., Any], ToolAnnotations], ...] = (
    (memory_store, WRITE),
    (memory_search, READ_ONLY),
    (memory_associate, READ_ONLY),
    (memory_open, READ_ONLY),
    (memory_graph, READ_ONLY),
    (memory_status, READ_ONLY),
)


def register(server: MCPServer[Any]) -> None:
    """Add the core tools to ``server``."""
    for function, hints in _TOOLS:
        server.add_tool(function, annotations=hints)

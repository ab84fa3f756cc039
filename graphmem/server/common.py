"""What every tool module shares: the service of a call, typed errors → tool errors, truthful hints,
the parameter types that recur, and the compact reply (structured content + a compact JSON text block)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError
from pydantic_core import to_json

from graphmem.errors import GraphmemError
from graphmem.server.context import AppContext

if TYPE_CHECKING:
    from graphmem.service import MemoryService

__all__ = [
    "DESTRUCTIVE", "DESTRUCTIVE_EACH_TIME", "READ_ONLY", "REVERSIBLE", "WRITE", "Detail", "Instant", "Kind",
    "Project", "ProjectFilter",
    "Ref", "invalid_arguments", "not_available", "reply", "service_of", "tool_errors",
]

# Hints hold for every call of a tool, because every tool has one intent.
# destructive and idempotent hints are meaningful only for writes (MCP spec), so a read sends neither.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# A write that adds each time it is called (a new version, a new session, a counter).
REVERSIBLE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                             open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                              open_world_hint=False)
# A destructive write whose repeat is not a no-op (a merge archives again, a brief rewrites its files).
DESTRUCTIVE_EACH_TIME = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                                        open_world_hint=False)

Kind = Literal["note", "decision", "error", "pattern", "architecture", "summary", "solution", "prompt"]
Detail = Literal["compact", "full"]
Instant = Annotated[str | int | None, Field(
    description="ISO 8601 or epoch ms")]
Project = Annotated[str | None, Field(description="Project or domain")]
ProjectFilter = Annotated[str | None, Field(description="Only this project")]
Ref = Annotated[str, Field(description="Memory id or topic key")]


def service_of(ctx: Context[AppContext, Any]) -> MemoryService:
    return ctx.request_context.lifespan_context.service


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn graphmem's typed errors into readable tool errors (never a traceback)."""
    try:
        yield
    except GraphmemError as error:
        raise ToolError(f"{type(error).__name__}: {error}") from error


_ARGUMENT_ERRORS_SHOWN = 5


def invalid_arguments(tool: str, error: ValidationError) -> str:
    """Arguments that fail a tool's schema, in one short message: each wrong field (its path cut to 100
    characters: dict keys are the caller's text) with pydantic's reason, five at most; never the values.

    >>> from pydantic import TypeAdapter
    >>> try:
    ...     TypeAdapter(dict[str, int]).validate_python({"a": "x", "b" * 500: None})
    ... except ValidationError as error:
    ...     message = invalid_arguments("memory_x", error)
    >>> message[:86]
    'Error executing tool memory_x: 2 invalid arguments: a: Input should be a valid integer'
    >>> message[-39:], len(message)
    ('bbbbb…: Input should be a valid integer', 260)
    """
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    shown = []
    for problem in problems[:_ARGUMENT_ERRORS_SHOWN]:
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        where = where if len(where) <= 100 else f"{where[:100]}…"
        shown.append(f"{where}: {problem['msg'][:300]}")
    more = len(problems) - len(shown)
    count = f"{len(problems)} invalid argument{'s' if len(problems) != 1 else ''}"
    return f"Error executing tool {tool}: {count}: {'; '.join(shown)}" + (f"; and {more} more" if more else "")


def not_available(feature: str) -> ToolError:
    """The error of a dialect tool whose graphmem feature has not landed yet."""
    return ToolError(f"not available yet: graphmem has no {feature} yet; this tool will work when it lands")


def reply(model: BaseModel, text: str | None = None) -> CallToolResult:
    """Structured content plus one text block: ``text`` when given (a short summary), else compact JSON.

    The SDK's default text block is indented JSON beside the same data; clients that read only text
    get the same facts here at about half the bytes. pydantic-core writes it (UTF-8 as is, no spaces): half
    the CPU of ``json.dumps`` for a 10-hit search page.
    """
    structured = model.model_dump(mode="json", by_alias=True)
    body = text if text is not None else to_json(structured).decode()
    return CallToolResult(content=[TextContent(type="text", text=body)], structured_content=structured)

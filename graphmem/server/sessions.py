"""Session tools: start (with what an agent needs to begin), end, save a prompt, the timeline.
Memories stored without a session_id join the project's live session automatically."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.common import READ_ONLY, REVERSIBLE, WRITE, Project, reply, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.models.sessions import SessionOut

__all__ = ["TOOLS", "client_name"]

Ctx = Context[AppContext, Any]
Client = Annotated[str | None, Field(description="Client name; defaults to the connecting MCP client's name")]
SessionId = Annotated[str | None, Field(description="One session's id; default: the project's live session")]


def client_name(ctx: Ctx) -> str | None:
    """The connecting client's declared name (``clientInfo.name``), if it sent one."""
    try:
        params = ctx.session.client_params
    except (AttributeError, LookupError, ValueError):
        return None
    name = getattr(getattr(params, "client_info", None), "name", None)
    return name if isinstance(name, str) and name.strip() else None


def memory_session_start(
    ctx: Ctx, project: Project = None, client: Client = None,
    timeout_minutes: Annotated[int | None, Field(ge=1, le=10_080, description="Idle minutes before the "
                                                 "session counts as ended")] = None,
    new: Annotated[bool, Field(description="Open a new session even if one is live")] = False,
) -> Annotated[CallToolResult, SessionOut]:
    """Start a task: resume the project's live session (or open one) and get recent memories, due
    reviews, open conflicts and active skills."""
    timeout_s = None if timeout_minutes is None else timeout_minutes * 60
    with tool_errors():
        report = service_of(ctx).sessions.start(project, client or client_name(ctx), timeout_s=timeout_s, new=new)
    return reply(SessionOut.model_validate(report))


def memory_session_end(ctx: Ctx, project: Project = None, client: Client = None, session_id: SessionId = None,
                       ) -> Annotated[CallToolResult, SessionOut]:
    """End the session: session_id, else this connection's own, else the project's live one."""
    with tool_errors():
        report = service_of(ctx).sessions.end(session_id, project, client)
    return reply(SessionOut.model_validate(report))


def memory_save_prompt(
    ctx: Ctx,
    content: Annotated[str, Field(description="The user's prompt, verbatim")],
    project: Project = None, client: Client = None, session_id: SessionId = None,
) -> Annotated[CallToolResult, SessionOut]:
    """Keep the user's prompt in the session, to reconstruct later what was asked."""
    with tool_errors():
        report = service_of(ctx).sessions.save_prompt(content, session_id, project, client or client_name(ctx))
    return reply(SessionOut.model_validate(report))


def memory_timeline(
    ctx: Ctx,
    limit: Annotated[int, Field(ge=1, le=100, description="Sessions to show, newest first")] = 5,
    session_id: SessionId = None,
    project: Annotated[str | None, Field(description="Only this project's sessions")] = None,
) -> Annotated[CallToolResult, SessionOut]:
    """Recent sessions with their memories and prompts, to reconstruct what happened before."""
    with tool_errors():
        report = service_of(ctx).sessions.timeline(limit, session_id, project)
    return reply(SessionOut.model_validate(report))


TOOLS = {
    "memory_session_start": (memory_session_start, REVERSIBLE),
    "memory_session_end": (memory_session_end, WRITE),
    "memory_save_prompt": (memory_save_prompt, WRITE),
    "memory_timeline": (memory_timeline, READ_ONLY),
}

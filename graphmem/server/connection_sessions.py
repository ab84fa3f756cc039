"""A session per client connection: the memories one connection writes without a ``session_id`` go to a session
of that connection's own.

The service's fallback is a time window: a write joins the project's most recently active open session if it
was active within two hours. Two conversations minutes apart, from two server processes or two HTTP sessions,
then merged into one session. Here, the first write of a connection (per project) opens a new session, and every
later write of the connection goes to it. That session is reserved, not written, until the first write
that names it succeeds: its row is written in that write's own transaction, so a first write the tool rejects
leaves the store as it was (``SessionService.reserve``). A connection is the handshake's on protocols up to
2025-11-25, and the server process on 2026-07-28, whose requests stand alone (over stdio, the process has one client).
``memory_session_start`` makes the session it returns the connection's, ``memory_session_end`` without an id
ends the connection's own session (not the project's latest, which may be another connection's) and lets the
next write open a fresh one, and an explicit ``session_id`` always wins. Writes from no connection (CLI, Python) keep
the window.
"""

from __future__ import annotations

import dataclasses
import inspect
import weakref
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from graphmem.server.profiles import ToolTable

__all__ = ["ConnectionSessions", "add_connection_sessions"]

_OWN_PROFILES = frozenset({"core", "full"})
_START, _END = "memory_session_start", "memory_session_end"


class ConnectionSessions:
    """Server middleware: fill in ``session_id`` of the write tools that take one with the connection's session."""

    def __init__(self, tools: frozenset[str]) -> None:
        self.tools = tools
        self._sessions: weakref.WeakKeyDictionary[Any, dict[str | None, str]] = weakref.WeakKeyDictionary()

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params or {}
        name, arguments = params.get("name"), params.get("arguments") or {}
        if ctx.method != "tools/call" or name not in self.tools | {_START, _END}:
            return await call_next(ctx)
        sessions = self._sessions.setdefault(self._connection(ctx), {})
        project = arguments.get("project")
        session_id = None
        if name in self.tools and arguments.get("session_id") is None:
            session_id = sessions.get(project) or self._reserve(ctx, project)
            sessions[project] = session_id
        elif name == _END and arguments.get("session_id") is None and project in sessions:
            # This connection's own session, not the project's latest (another connection's, perhaps).
            session_id = sessions[project]
        if session_id is not None:
            ctx = dataclasses.replace(ctx, params={**params, "arguments": {**arguments, "session_id": session_id}})
        result = await call_next(ctx)
        succeeded = isinstance(result, dict) and not result.get("isError")
        if name == _END and (succeeded or session_id is not None):
            # Ended, or never written (the service said so and dropped its reservation): either way the
            # connection's next write opens a fresh session.
            sessions.pop(project, None)
        elif succeeded:
            if session_id is not None:
                ctx.lifespan_context.service.sessions.settle(session_id)
            if name == _START:
                started = ((result.get("structuredContent") or {}).get("session") or {}).get("id")
                if isinstance(started, str):
                    sessions[project] = started
        return result

    def _connection(self, ctx: Any) -> Any:
        """The handshake protocols keep one connection per client (the SDK keeps it private); on 2026-07-28 each
        request stands alone, so the client is the server process (stdio: one client per process)."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return self
        return getattr(ctx.session, "_connection", self)

    @staticmethod
    def _reserve(ctx: Any, project: str | None) -> str:
        client = getattr(getattr(getattr(ctx.session, "client_params", None), "client_info", None), "name", None)
        return str(ctx.lifespan_context.service.sessions.reserve(project, client))


def add_connection_sessions(server: MCPServer[Any], table: ToolTable, profile: str) -> None:
    """Give the write tools of ``table`` that take a ``session_id`` the connection's session (own profiles)."""
    if profile not in _OWN_PROFILES:
        return
    writes = frozenset(name for name, (function, hints) in table.items()
                       if "session_id" in inspect.signature(function).parameters
                       and not hints.read_only_hint and name != _END)
    server.middleware.append(ConnectionSessions(writes))

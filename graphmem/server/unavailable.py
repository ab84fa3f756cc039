"""The server ``graphmem serve`` runs when its store does not exist yet.

An MCP client shows a server that exits at start as "Connection closed", with no reason. This one answers
``initialize`` and ``tools/list`` like the real server of the profile, and every tool call with what is
missing and the command that creates it; nothing is written, so a mistyped path never becomes a new store.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from graphmem.server.app import GraphmemServer, _version
from graphmem.server.context import AppContext
from graphmem.server.profiles import hidden_parameters, tools_of

__all__ = ["UnavailableServer", "build_unavailable_server"]


class UnavailableServer(GraphmemServer):
    """Lists the profile's tools; every call is a tool error saying why there is no store."""

    reason = ""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[AppContext, Any] | None = None) -> Any:
        raise ToolError(self.reason)


def build_unavailable_server(reason: str, *, tools: str) -> MCPServer[AppContext]:
    """A server of profile ``tools`` whose every tool call answers ``reason``."""
    server = UnavailableServer("graphmem", instructions=f"graphmem has no store yet: {reason}", version=_version())
    server.reason = reason
    server.hidden = hidden_parameters(tools)
    for name, (function, hints) in tools_of(tools).items():
        summary = " ".join((function.__doc__ or "").split())
        server.add_tool(function, name=name, description=summary, annotations=hints)
    return server

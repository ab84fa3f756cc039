"""The server's default project: a ``tools/call`` that leaves ``project`` out gets the server's.

``graphmem serve`` on the per-user store, started inside a git repository (or a project folder), sets
``Settings.project`` to it (:func:`graphmem.settings.project_of`), so that one store keeps each repository's
memories apart without the agent passing ``project`` on every call. A call that names a project keeps it;
``"project": null`` asks for every project. Only graphmem's own profiles get it: a seed dialect answers as the
system it stands in for.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from mcp.server.mcpserver import MCPServer

from graphmem.server.profiles import ToolTable

__all__ = ["DefaultProject", "add_default_project"]

_OWN_PROFILES = frozenset({"core", "full"})


class DefaultProject:
    """Server middleware: fill in ``project`` for the tools that take one, when the call leaves it out."""

    def __init__(self, project: str, tools: frozenset[str]) -> None:
        self.project, self.tools = project, tools

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params or {}
        arguments = params.get("arguments") or {}
        if ctx.method == "tools/call" and params.get("name") in self.tools and "project" not in arguments:
            ctx = dataclasses.replace(ctx, params={**params, "arguments": {**arguments, "project": self.project}})
        return await call_next(ctx)


def add_default_project(server: MCPServer[Any], table: ToolTable, profile: str, project: str | None) -> None:
    """Give ``server`` the default ``project`` for the tools of ``table`` that take one (own profiles only)."""
    if project is None or profile not in _OWN_PROFILES:
        return
    takes_project = frozenset(name for name, (function, _) in table.items()
                              if "project" in inspect.signature(function).parameters)
    server.middleware.append(DefaultProject(project, takes_project))

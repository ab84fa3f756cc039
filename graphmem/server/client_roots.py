"""The folders an MCP client declared through the ``roots`` capability, for tools that write files.

A brief may only land in a folder the operator allows (graphmem/service/learning/brief_roots.py); the
roots a client declares (the folders its user opened) are one such allowance. A tool takes them as a
parameter the SDK fills (``ClientRoots``: ``Resolve`` with the ``ListRoots`` marker), which asks the
client in whatever way the negotiated protocol allows (a request mid-call up to 2025-11-25, an
input request from 2026-07-28). A client without the capability declares nothing, and the tool then
writes only into the project's folder or ``lifecycle.brief_roots``. The SDK marks roots deprecated
(SEP-2577); clients still send them, so they are read while they exist.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import Context, Resolve
from mcp.server.mcpserver.resolve import ListRoots

from graphmem.service.learning.brief_roots import file_roots

__all__ = ["ClientRoots", "declared_roots"]


def _roots_if_declared(ctx: Context[Any, Any]) -> ListRoots | types.ListRootsResult:
    """Ask for the roots only when the client declared the capability (else the SDK refuses the call)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MCPDeprecationWarning: roots are deprecated by SEP-2577, still sent
        declared = ctx.session.check_client_capability(types.ClientCapabilities(roots=types.RootsCapability()))
    return ListRoots() if declared else types.ListRootsResult(roots=[])


ClientRoots = Annotated[types.ListRootsResult, Resolve(_roots_if_declared)]


def declared_roots(roots: types.ListRootsResult) -> list[Path]:
    """The local folders among the roots the client declared."""
    return file_roots([str(root.uri) for root in roots.roots])

"""``resources/subscribe`` for clients on the handshake protocols (2025-11-25 and earlier).

The MCP specification lets a server send ``notifications/resources/updated`` only for a resource the client
subscribed to, and only if it advertises ``resources: {subscribe: true}``. Serving ``resources/subscribe`` and
``resources/unsubscribe`` makes the SDK advertise it; :meth:`ResourceSubscriptions.subscribed` is the filter the
change notifier applies. Clients on 2026-07-28 subscribe with ``subscriptions/listen``, which the SDK serves and
filters by URI itself.
"""

from __future__ import annotations

import weakref
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

__all__ = ["ResourceSubscriptions"]


class ResourceSubscriptions:
    """The resource URIs each client connection subscribed to; forgotten with the connection."""

    def __init__(self) -> None:
        self._uris: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()

    @classmethod
    def serve(cls, server: MCPServer[Any]) -> ResourceSubscriptions:
        """Answer ``resources/subscribe`` and ``resources/unsubscribe`` on ``server``; the registry they fill."""
        subscriptions = cls()
        # MCPServer has no public hook for these two methods; its low-level server takes any request handler.
        lowlevel = server._lowlevel_server
        lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscriptions._subscribe)
        lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, subscriptions._unsubscribe)
        return subscriptions

    def subscribed(self, session: Any, uris: list[str]) -> list[str]:
        """The ``uris`` the client of ``session`` subscribed to, in order."""
        wanted = self._uris.get(_connection(session), set())
        return [uri for uri in uris if uri in wanted]

    async def _subscribe(self, ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        self._uris.setdefault(_connection(ctx.session), set()).add(str(params.uri))
        return EmptyResult()

    async def _unsubscribe(self, ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        self._uris.get(_connection(ctx.session), set()).discard(str(params.uri))
        return EmptyResult()


def _connection(session: Any) -> Any:
    """The client connection behind a request's session: the SDK builds a new session proxy for every request,
    and keeps the connection (the one object that lives as long as the client) private."""
    return getattr(session, "_connection", session)

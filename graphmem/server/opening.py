"""The service a server opens after it starts, so that ``initialize`` is answered first.

An agent client starts ``graphmem serve`` at every session and waits for ``initialize``. Opening the service
(importing the use cases, SQLAlchemy, numpy, scipy and networkx, then the store and its projection) took most of
the 3 s to that answer under load (docs/benchmarks.md, sections 7 and 7a). The server now starts with the MCP SDK
and its tool definitions only; the lifespan starts :class:`ServiceOpening`, which opens the service on a thread
of its own while the SDK answers ``initialize`` and ``tools/list``. :class:`ServiceGate` holds each call that
needs the service (``tools/call``, ``resources/read``) until it is open; if opening failed, each such call is
answered with the reason (a tool error, or a JSON-RPC error for a resource), never a hang or a traceback.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

if TYPE_CHECKING:
    from graphmem.service import MemoryService

__all__ = ["ServiceGate", "ServiceOpening"]

logger = logging.getLogger(__name__)
_INTERNAL_ERROR = -32603  # JSON-RPC: the server could not do what was asked
_NEEDS_SERVICE = frozenset({"tools/call", "resources/read"})


class ServiceOpening:
    """A ``MemoryService`` that ``open_service`` builds on a thread started by :meth:`start`.

    >>> opening = ServiceOpening(lambda: 1 / 0)
    >>> opening.start().join()
    >>> opening.failure
    'graphmem could not open its store: ZeroDivisionError: division by zero'
    """

    def __init__(self, open_service: Callable[[], MemoryService]) -> None:
        self._open = open_service
        self._opened: MemoryService | None = None
        self.failure: str | None = None
        self._done = threading.Event()

    @classmethod
    def of(cls, service: MemoryService) -> ServiceOpening:
        """An opening that is over: ``service`` is already open (tests share one)."""
        opening = cls(lambda: service)
        opening._settle()
        return opening

    def start(self) -> threading.Thread:
        """Open the service on a new thread; returns the thread."""
        thread = threading.Thread(target=self._settle, name="graphmem-open-service", daemon=True)
        thread.start()
        return thread

    def _settle(self) -> None:
        try:
            self._opened = self._open()
        except Exception as error:  # reported to every call that needs the service, and logged once here
            self.failure = f"graphmem could not open its store: {type(error).__name__}: {error}"
            logger.error("%s", self.failure, exc_info=True)
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        """Opened or failed."""
        return self._done.is_set()

    async def wait(self) -> None:
        """Until the service is open or has failed to open, without holding up the event loop."""
        if not self._done.is_set():
            await anyio.to_thread.run_sync(self._done.wait, abandon_on_cancel=True)

    @property
    def service(self) -> MemoryService:
        """The open service; a call made before :meth:`wait` returned, or after a failure, is an error."""
        if self._opened is None:
            raise RuntimeError(self.failure or "the service is still opening: await ServiceOpening.wait() first")
        return self._opened

    def close(self) -> None:
        """Wait for the opening to end, then close the service if it opened."""
        self._done.wait()
        if self._opened is not None:
            self._opened.close()


class ServiceGate:
    """Server middleware, outside graphmem's others (they read the service): a call that needs the service waits
    until it is open; if opening failed, the call is answered with the reason."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method not in _NEEDS_SERVICE:
            return await call_next(ctx)
        opening: ServiceOpening = ctx.lifespan_context.opening
        await opening.wait()
        if opening.failure is None:
            return await call_next(ctx)
        if ctx.method == "tools/call":
            return CallToolResult(content=[TextContent(type="text", text=opening.failure)], is_error=True)
        raise MCPError(_INTERNAL_ERROR, opening.failure)

"""The composition root of the MCP server: ``build_server(settings, tools=PROFILE) -> MCPServer``.

The service is built once per process, by a typed lifespan that starts opening it on a thread and yields at once
(:mod:`graphmem.server.opening`): the SDK answers ``initialize`` and ``tools/list`` from the tool definitions
alone, and calls that need the service wait for it. This module and the tool modules import no part of the
service that loads the store (SQLAlchemy, numpy, scipy, networkx, spaCy); ``tests/test_startup.py`` checks it.
Nothing registers itself at import time: the profile's tools are added here, by name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp_types import Tool
from pydantic import ValidationError

from graphmem.errors import InvalidInput
from graphmem.server.common import invalid_arguments
from graphmem.server.connection_sessions import add_connection_sessions
from graphmem.server.context import AppContext
from graphmem.server.default_project import add_default_project
from graphmem.server.export import GraphChangeNotifier, register_resources, write_tools
from graphmem.server.opening import ServiceGate, ServiceOpening
from graphmem.server.profiles import hidden_parameters, resources_of, tools_of
from graphmem.server.schema import compact_schema, inline_single_use, without
from graphmem.service.cancellation import CallBudget, budget
from graphmem.settings import Settings

if TYPE_CHECKING:
    from graphmem.service import MemoryService

__all__ = ["AppContext", "GraphmemServer", "build_server"]

INSTRUCTIONS = """graphmem is your persistent memory across sessions.
- Store decisions, errors, patterns, architecture notes and solutions with memory_store as you work.
- Start a task with memory_search (keyword + associative) to recall what earlier sessions learned.
- memory_associate finds memories related by concepts rather than words; mode="composition" assembles the
  fewest memories covering every need of a task, with gaps and conflicts.
- memory_open reads full memories by id or topic key. When a memory is wrong, memory_correct it (history
  is kept); when it no longer holds, memory_forget it.
- Hits carry notes when a memory was superseded, is contradicted or has a pending conflict."""


class GraphmemServer(MCPServer[AppContext]):
    """MCPServer whose ``tools/list`` carries compact schemas (:mod:`graphmem.server.schema`), without the
    advanced optional parameters a lean profile leaves out (they keep their defaults; ``full`` lists them)."""

    hidden: Mapping[str, frozenset[str]] = {}
    call_seconds: float | None = None  # a tool call's deadline (http.request_timeout_s): the work stops there
    _listed: list[Tool] | None = None

    async def list_tools(self) -> list[Tool]:
        # The listing is the same until a tool is added or removed, and compacting every schema cost
        # 0.3 ms of CPU in ``core`` and 2 ms in ``full`` (15 ms wall on a loaded machine): compact once.
        if self._listed is None:
            self._listed = [self._compacted(tool) for tool in await super().list_tools()]
        return list(self._listed)

    def _compacted(self, tool: Tool) -> Tool:
        hidden = self.hidden.get(tool.name, frozenset())
        return tool.model_copy(update={
            "input_schema": compact_schema(without(tool.input_schema, hidden)),
            # Output schemas are validated by clients on every result: no reference to resolve there.
            "output_schema": inline_single_use(compact_schema(without(tool.output_schema, hidden), output=True))})

    def add_tool(self, *args: Any, **kwargs: Any) -> None:
        self._listed = None
        super().add_tool(*args, **kwargs)

    def remove_tool(self, name: str) -> None:
        self._listed = None
        super().remove_tool(name)

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context[AppContext, Any] | None = None) -> Any:
        """The SDK's call, with arguments that fail the schema reported in a few short lines: its own
        message is pydantic's whole report (every field, the values, a URL each), which grows past
        2,000 characters when many fields are wrong.

        The call runs under a :class:`CallBudget` (service/cancellation.py) that is cancelled when the request
        is (``notifications/cancelled``, a closed HTTP stream) or its deadline passes: the SDK's worker thread
        is shielded from cancellation, so the tool's long loops stop at their next checkpoint instead."""
        call = CallBudget(self.call_seconds)
        try:
            with budget(call):
                return await _cancelling(call, super().call_tool(name, arguments, context))
        except ToolError as error:
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(invalid_arguments(name, cause)) from cause


async def _cancelling(call: CallBudget, work: Awaitable[Any]) -> Any:
    """Await ``work``; if the awaiting task is cancelled meanwhile, cancel ``call`` at once (the work's thread
    would only see the cancellation once it returned)."""
    async def watch() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            call.cancel()
            raise

    failure: Exception | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            result = await work
        except Exception as error:  # raised as itself below, not inside the task group's ExceptionGroup
            failure = error
        finally:
            group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return result


def build_server(settings: Settings, *, tools: str | None = None, service: MemoryService | None = None,
                 open_service: Callable[[Settings], MemoryService] | None = None) -> MCPServer[AppContext]:
    """Build the MCP server with the tools of profile ``tools`` (default ``settings.tools``).

    The running server opens its service with ``open_service(settings)`` (default: ``MemoryService(settings)``)
    on a thread, and closes it when it stops; ``service`` lets tests share an already-open service instead."""
    profile = tools or settings.tools
    try:
        table = tools_of(profile)
    except ValueError as error:
        raise InvalidInput(str(error)) from error
    live: list[ServiceOpening] = []

    @asynccontextmanager
    async def lifespan(_: MCPServer[AppContext]) -> AsyncIterator[AppContext]:
        opening = ServiceOpening.of(service) if service is not None else ServiceOpening(
            lambda: (open_service or _memory_service)(settings))
        if service is None:
            opening.start()
        live.append(opening)
        try:
            yield AppContext(opening=opening)
        finally:
            live.remove(opening)
            if service is None:
                opening.close()  # waits for an opening still under way, as the process ends

    instructions = INSTRUCTIONS if profile in {"core", "full"} else None
    bus = InMemorySubscriptionBus()  # ours, so the change notifier publishes on it without SDK internals
    server = GraphmemServer("graphmem", instructions=instructions, lifespan=lifespan,
                            version=_version(), subscriptions=bus)
    server.hidden = hidden_parameters(profile)
    server.call_seconds = settings.http.request_timeout_s
    for name, (function, hints) in table.items():
        summary = " ".join((function.__doc__ or "").split())  # no docstring indentation on the wire
        server.add_tool(function, name=name, description=summary, annotations=hints)
    register_resources(server, lambda: live[-1].service)
    seed_uris = tuple(uri for register_seed_resources in resources_of(profile)
                      for uri in register_seed_resources(server, lambda: live[-1].service))
    server.middleware.append(ServiceGate())  # first: the middleware after it reads the service
    server.middleware.append(GraphChangeNotifier(server, bus, write_tools(table), also=seed_uris))
    add_default_project(server, table, profile, settings.project)  # before the next: it reads the project
    add_connection_sessions(server, table, profile)
    return server


def _memory_service(settings: Settings) -> MemoryService:
    from graphmem.service import MemoryService  # here, on the opening thread: the import is most of the opening

    return MemoryService(settings)


def _version() -> str:
    from graphmem import __version__

    return __version__

"""Stdio where every request gets an answer: a guard in front of the MCP SDK's stdio reader.

The SDK's reader (``mcp.server.stdio.stdio_server``) decodes stdin with ``errors="replace"``, so
invalid UTF-8 silently becomes U+FFFD and is stored; and a line it cannot validate (malformed JSON,
lone surrogates, nesting deeper than pydantic-core's limit) is handed to the session as an
exception, which logs it and answers nothing, so the client waits forever. Rather than fork the
reader, graphmem reads the raw bytes itself and hands the SDK only frames it will accept:

- invalid UTF-8 → JSON-RPC ``-32700`` parse error (with the request's id when one can be read);
- not JSON, NaN/Infinity, nesting deeper than ``MAX_FRAME_DEPTH`` → ``-32700``;
- lone surrogates anywhere, or not a JSON-RPC message the SDK accepts → ``-32600`` invalid request,
  with the request's id;
- everything else goes to the SDK unchanged in meaning (re-serialized as canonical JSON).

Notifications (no id) that are valid get no answer, as JSON-RPC requires. What belongs upstream is
listed in docs/security.md.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

__all__ = ["MAX_FRAME_DEPTH", "FrameError", "check_frame", "serve_stdio"]

MAX_FRAME_DEPTH = 64  # far below pydantic-core's 200 and Python's recursion limit
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")\s*[,}]')  # a whole id, never a cut one


class FrameError(Exception):
    """A frame the SDK must not see; ``code`` and ``request_id`` make the JSON-RPC error."""

    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.code, self.request_id = code, request_id

    def response(self) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": self.request_id,
                           "error": {"code": self.code, "message": str(self)}})


def check_frame(raw: bytes) -> str:
    """One stdin line → the JSON text to hand the SDK, or FrameError with the answer to send."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FrameError(PARSE_ERROR, f"invalid UTF-8 at byte {error.start}; nothing was read",
                         _sniffed_id(raw)) from None
    try:
        message = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise FrameError(PARSE_ERROR, f"JSON nested deeper than {MAX_FRAME_DEPTH} levels", _sniffed_id(raw)) from None
    except ValueError as error:
        raise FrameError(PARSE_ERROR, f"parse error: {str(error)[:100]}", _sniffed_id(raw)) from None
    request_id = _id_of(message)
    _check_tree(message, request_id)
    try:
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except Exception as error:
        first = str(error).splitlines()[0][:100]
        raise FrameError(INVALID_REQUEST, f"invalid JSON-RPC message: {first}", request_id) from None
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _id_of(message: Any) -> Any:
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


def _sniffed_id(raw: bytes) -> Any:
    """The id of a frame that does not parse, when it can be read; else null (JSON-RPC 2.0 §5)."""
    match = _ID.search(raw)
    if match is None:
        return None
    try:
        return json.loads(match.group(1).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _check_tree(message: Any, request_id: Any) -> None:
    """Depth and lone surrogates, iteratively (a deep frame must not exhaust the stack here either)."""
    stack: list[tuple[Any, int]] = [(message, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_FRAME_DEPTH:
            raise FrameError(INVALID_REQUEST, f"message nested deeper than {MAX_FRAME_DEPTH} levels", request_id)
        if isinstance(node, dict):
            stack.extend((key, depth) for key in node)
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
        elif isinstance(node, str):
            _refuse_surrogate(node, request_id)


def _refuse_surrogate(text: str, request_id: Any) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise FrameError(INVALID_REQUEST, f"lone surrogate U+{ord(text[error.start]):04X} in the message; "
                         "send valid UTF-8 text", request_id) from None


class _LineWriter:
    """The one writer of stdout: whole lines under a lock, shared by the SDK and the guard."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream, self._lock = stream, threading.Lock()

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._write, text)

    def _write(self, text: str) -> None:
        with self._lock:
            self._stream.write(text.encode("utf-8"))
            self._stream.flush()

    async def flush(self) -> None:  # every write is flushed already
        return None


class _GuardedLines:
    """What the SDK's reader iterates: only frames it accepts; the guard answers the rest."""

    def __init__(self, stream: BinaryIO, writer: _LineWriter) -> None:
        self._stream, self._writer = stream, writer

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while raw := await anyio.to_thread.run_sync(self._stream.readline):
            if not raw.strip():
                continue
            try:
                yield check_frame(raw.strip())
            except FrameError as error:
                await self._writer.write(error.response() + "\n")


@contextmanager
def _claimed_stdio() -> Any:
    """Private copies of fds 0 and 1; while serving, fd 0 reads /dev/null and fd 1 goes to stderr, so
    a stray print in a handler or a child process cannot corrupt the wire (as the SDK's own claim)."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    try:
        with os.fdopen(wire_in, "rb", closefd=False) as reader, \
                os.fdopen(wire_out, "wb", closefd=False) as writer:
            yield reader, writer
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


async def _serve(server: MCPServer[Any], reader: BinaryIO, writer: BinaryIO) -> None:
    out = _LineWriter(writer)
    lines = _GuardedLines(reader, out)
    # The SDK's stdio_server accepts explicit streams; MCPServer.run_stdio_async does what follows
    # with its own streams, through the low-level server it keeps.
    async with stdio_server(stdin=lines, stdout=out) as (read_stream, write_stream):  # type: ignore[arg-type]
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def serve_stdio(server: MCPServer[Any]) -> None:
    """Run ``server`` over stdio behind the guard (graphmem serve)."""
    with _claimed_stdio() as (reader, writer):
        anyio.run(_serve, server, reader, writer)

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
- an ``id`` that is neither a string nor an integer (``1.5``, ``true``, ``[1]``, ``null``) → ``-32600``
  with ``id: null`` (a fractional number is echoed: JSON-RPC allows it, MCP does not). The SDK took such
  a frame for a notification and dropped it, a ``tools/call`` included;
- a method, tool or prompt name, or a resource URI, longer than the bounds below → ``-32600``: the SDK
  quotes them whole in its errors ("Method not found: …") and logs, 1 MB for a 1 MB method name;
- everything else goes to the SDK unchanged in meaning (re-serialized as canonical JSON).

A notification is never answered, as JSON-RPC requires: one that carries an ``id`` anyway
(``notifications/initialized`` with ``"id": 5``) goes on without it, and an invalid one is dropped with
one bounded line on stderr. ``check_message`` is shared with HTTP (http_security.py), so both transports
answer alike. What belongs upstream is listed in docs/security.md.
"""

from __future__ import annotations

import json
import logging
import math
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

__all__ = ["MAX_FRAME_DEPTH", "FrameError", "Unanswered", "bound_log_lines", "check_frame", "check_message", "quoted",
           "serve_stdio"]

MAX_FRAME_DEPTH = 64  # far below pydantic-core's 200 and Python's recursion limit
# The longest MCP method is 36 characters and tool names are at most 128 (the spec's guidance); URIs of
# graphmem's resources are under 100. These bounds leave room and keep any quoted echo small.
MAX_METHOD_CHARS, MAX_NAME_CHARS, MAX_URI_CHARS = 200, 300, 4_096
_QUOTE_CHARS = 100
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


class Unanswered(Exception):
    """A notification the SDK must not see; a notification gets no answer, so it is only logged."""


def quoted(value: Any) -> str:
    """``value`` as it may appear in an error or a log line: at most 100 characters, then its size."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return repr(text) if len(text) <= _QUOTE_CHARS else f"{text[:_QUOTE_CHARS]!r}… ({len(text)} characters)"


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
        raise FrameError(PARSE_ERROR, f"parse error: {str(error)[:100]}", _lenient_id(text, raw)) from None
    return json.dumps(check_message(message), ensure_ascii=False, separators=(",", ":"))


def check_message(message: Any) -> Any:
    """A parsed JSON-RPC message the SDK may see (a notification's stray id removed), or why not.

    Raises ``FrameError`` (answer it) or ``Unanswered`` (a notification: log it, answer nothing).
    """
    notification = isinstance(message, dict) and isinstance(message.get("method"), str) and (
        "id" not in message or message["method"].startswith("notifications/"))
    if notification and "id" in message:
        message = {key: value for key, value in message.items() if key != "id"}
    request_id = _id_of(message)
    try:
        _check_id(message)
        _check_tree(message, request_id)
        _check_bounds(message, request_id)
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except FrameError as error:
        if notification:
            raise Unanswered(str(error)) from None
        raise
    except Exception as error:
        first = str(error).splitlines()[0][:_QUOTE_CHARS]
        if notification:
            raise Unanswered(f"invalid notification: {first}") from None
        raise FrameError(INVALID_REQUEST, f"invalid JSON-RPC message: {first}", request_id) from None
    return message


def _check_id(message: Any) -> None:
    if not isinstance(message, dict) or "method" not in message or "id" not in message or _id_of(message) is not None:
        return  # a response (no method) answers the server, and is never answered itself
    value = message["id"]
    # JSON-RPC 2.0 §5: an id that cannot be used gets null; a fractional number is a JSON-RPC id, so it is
    # echoed, but MCP requires a string or an integer.
    echoed = value if isinstance(value, float) and math.isfinite(value) else None
    raise FrameError(INVALID_REQUEST, f"id {quoted(value)} must be a string or an integer (MCP)", echoed)


def _check_bounds(message: Any, request_id: Any) -> None:
    if not isinstance(message, dict):
        return
    method = message.get("method")
    if isinstance(method, str) and len(method) > MAX_METHOD_CHARS:
        raise FrameError(INVALID_REQUEST, f"method {quoted(method)} is longer than {MAX_METHOD_CHARS}", request_id)
    params = message.get("params")
    if not isinstance(params, dict):
        return
    for key, limit in (("name", MAX_NAME_CHARS), ("uri", MAX_URI_CHARS)):
        value = params.get(key)
        if isinstance(value, str) and len(value) > limit:
            raise FrameError(INVALID_REQUEST, f"params.{key} {quoted(value)} is longer than {limit}", request_id)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _id_of(message: Any) -> Any:
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


def _lenient_id(text: str, raw: bytes) -> Any:
    """The id of a frame refused for NaN or Infinity: its own top-level id, read by a parser that takes them.

    Sniffing the bytes finds the first ``"id"`` anywhere, and a tool argument named ``id`` comes before the
    request's own when the id is the last key: the fuzzer's call 1508 (seed 2025) was answered with its
    argument's id and its client waited forever.
    """
    try:
        return _id_of(json.loads(text))
    except (ValueError, RecursionError):
        return _sniffed_id(raw)


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


class _BoundedRecords(logging.Filter):
    """Cut every log line to a bounded size: the SDK logs request parts (a resource URI) at INFO whole,
    440 KB of stderr per request for a 100,000-character URI, and a client that does not drain stderr
    then blocks the server."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if len(text) > _MAX_LOG_CHARS:
            record.msg, record.args = f"{text[:_MAX_LOG_CHARS]}… ({len(text)} characters)", None
        return True


_MAX_LOG_CHARS = 1_000


def bound_log_lines() -> None:
    """Install the bound on every handler of the root logger (where the SDK's records end up)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(existing, _BoundedRecords) for existing in handler.filters):
            handler.addFilter(_BoundedRecords())


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
            except Unanswered as dropped:
                print(f"graphmem: notification dropped: {dropped}", file=sys.stderr)


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
    bound_log_lines()
    with _claimed_stdio() as (reader, writer):
        anyio.run(_serve, server, reader, writer)

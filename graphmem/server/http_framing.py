"""What streamable HTTP must refuse before the SDK sees a request: framing tricks and slow headers.

- ``Content-Length`` together with ``Transfer-Encoding`` is the request-smuggling shape RFC 9112 §6.1
  tells a server to reject: 400.
- ``Host``, ``Origin`` and ``Authorization`` must appear at most once: with two, one proxy may check
  the first and graphmem the last. 400.
- The body is read whole (it is at most ``http.max_body_bytes``) before the SDK runs, so a chunked
  body over the limit is a 413 rather than the 500 the SDK gave when its reader failed mid-request.
- The JSON-RPC message in a POST gets the same checks as on stdio (stdio_guard.check_message): an odd
  id is answered ``-32600``, a notification is never answered (202, no body), and an oversized name or
  URI is refused with a bounded quote.
- ``HeaderTimeoutProtocol`` closes a connection whose request line and headers have not arrived within
  ``http.header_timeout_s``: uvicorn has a keep-alive timeout but none for headers, so 100 slow clients
  held 100 connections for 90 s.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import h11
from starlette.types import Message, Receive
from uvicorn.protocols.http.h11_impl import H11Protocol

from graphmem.server.stdio_guard import FrameError, Unanswered, check_message

__all__ = ["HeaderTimeoutProtocol", "framing_refusal", "read_body", "rpc_refusal"]

_SINGLE = (b"host", b"origin", b"authorization")


def framing_refusal(raw_headers: Sequence[tuple[bytes, bytes]]) -> str | None:
    """Why these headers are refused (400), or ``None``."""
    names = [name.lower() for name, _ in raw_headers]
    if b"content-length" in names and b"transfer-encoding" in names:
        return "Content-Length together with Transfer-Encoding is refused (RFC 9112 section 6.1)"
    doubled = [name.decode() for name in _SINGLE if names.count(name) > 1]
    return f"{', '.join(doubled)} given more than once; send each once" if doubled else None


async def read_body(receive: Receive, limit: int) -> list[Message] | None:
    """The request's body messages, read whole; ``None`` once more than ``limit`` bytes arrived."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages  # the client went away; the app sees the disconnect
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


def rpc_refusal(body: bytes) -> tuple[int, bytes | None, bytes] | None:
    """(status, JSON answer or none, body to pass on) when the message needs graphmem's answer; else
    ``None``, or the body rewritten (a notification's stray id removed) with status 0."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the SDK answers a parse error itself, with a bounded message
    try:
        checked = check_message(message)
    except FrameError as error:
        return 400, error.response().encode("utf-8"), body
    except Unanswered:
        return 202, None, body
    if checked is not message:
        return 0, None, json.dumps(checked, ensure_ascii=False).encode("utf-8")
    return None


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, plus a deadline for each request's line and headers."""

    header_timeout_s = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # the request line and headers are in
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request on this keep-alive connection gets its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def header_timeout_protocol(seconds: float) -> type[Any]:
    """``HeaderTimeoutProtocol`` with this server's deadline (uvicorn takes a protocol class)."""
    return type("GraphmemH11Protocol", (HeaderTimeoutProtocol,), {"header_timeout_s": seconds})

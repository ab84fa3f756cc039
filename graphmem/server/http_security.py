"""Streamable HTTP that is safe by default: who may bind, who may call, and how much one call may ask.

Following the MCP specification's security guidance for streamable HTTP (transports, "Security
Warning"): validate ``Origin`` on every request (DNS rebinding), bind to localhost unless told
otherwise, and authenticate every connection when the server is reachable from elsewhere.

- A bind address other than loopback needs ``--allow-remote`` **and** a bearer token
  (``GRAPHMEM_HTTP_TOKEN`` or ``http.token_file``); without both the server refuses to start.
- With a token configured, every request needs ``Authorization: Bearer <token>``, compared in
  constant time (``hmac.compare_digest``), else 401.
- ``Host`` and ``Origin`` are checked against an allow-list for every bind address (403). Only the
  server's own host:port is built in, not "any localhost port": another local web page is a
  different origin.
- The body is limited per request (413, chunked or not), and a request not answered within
  ``http.request_timeout_s`` gets a JSON-RPC error instead of holding its client forever. Framing
  tricks (``Content-Length`` with chunked encoding, a doubled ``Host``/``Origin``/``Authorization``),
  odd JSON-RPC ids, notifications and slow headers are handled in http_framing.py. Tool
  functions already run in worker threads (the SDK's ``anyio.to_thread``), so a slow call does not
  stop the event loop from serving other clients.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.errors import InvalidInput
from graphmem.server.http_framing import framing_refusal, header_timeout_protocol, read_body, rpc_refusal
from graphmem.server.stdio_guard import bound_log_lines
from graphmem.settings import HttpSettings

__all__ = ["HttpPolicy", "SecureHttpApp", "http_policy", "is_loopback", "serve_http"]

TOKEN_ENV = "GRAPHMEM_HTTP_TOKEN"
_MIN_TOKEN_CHARS = 16  # a guessable token is no authentication: refuse short ones at start


@dataclass(frozen=True, slots=True)
class HttpPolicy:
    """What the middleware enforces; built once at start from the bind address and settings."""

    allowed_hosts: frozenset[str]
    allowed_origins: frozenset[str]
    token: bytes | None
    max_body_bytes: int
    request_timeout_s: float


def is_loopback(host: str) -> bool:
    """``127.0.0.1``, ``::1``, ``localhost`` and the rest of 127/8.

    >>> is_loopback("localhost"), is_loopback("0.0.0.0"), is_loopback("::1")
    (True, False, True)
    """
    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_policy(settings: HttpSettings, host: str, port: int, *, allow_remote: bool = False,
                environ: Mapping[str, str] | None = None) -> HttpPolicy:
    """Check the bind address against the flag and token; build the allow-lists."""
    token = _read_token(settings, os.environ if environ is None else environ)
    if not is_loopback(host):
        if not allow_remote:
            raise InvalidInput(f"--host {host} listens beyond this machine; pass --allow-remote and set a bearer "
                               f"token ({TOKEN_ENV} or GRAPHMEM_HTTP__TOKEN_FILE) to do that on purpose")
        if token is None:
            raise InvalidInput(f"--host {host} with --allow-remote needs a bearer token: set {TOKEN_ENV} or "
                               "GRAPHMEM_HTTP__TOKEN_FILE (see docs/security.md)")
    names = ["127.0.0.1", "localhost", "[::1]"]
    if not is_loopback(host) and host not in {"0.0.0.0", "::"}:
        names.append(f"[{host}]" if ":" in host else host)
    hosts = {f"{name}:{port}" for name in names} | set(settings.allowed_hosts)
    origins = {f"{scheme}://{name}:{port}" for name in names for scheme in ("http", "https")}
    origins |= set(settings.allowed_origins)
    return HttpPolicy(allowed_hosts=frozenset(h.casefold() for h in hosts),
                      allowed_origins=frozenset(o.casefold().rstrip("/") for o in origins),
                      token=token, max_body_bytes=settings.max_body_bytes,
                      request_timeout_s=settings.request_timeout_s)


def _read_token(settings: HttpSettings, environ: Mapping[str, str]) -> bytes | None:
    raw = environ.get(TOKEN_ENV)
    if raw is None and settings.token_file:
        try:
            raw = Path(settings.token_file).expanduser().read_text(encoding="utf-8").splitlines()[0]
        except (OSError, IndexError, UnicodeDecodeError) as error:
            raise InvalidInput(f"cannot read the bearer token from {settings.token_file}: {error}") from None
    if raw is None:
        return None
    token = raw.strip()
    if len(token) < _MIN_TOKEN_CHARS:
        raise InvalidInput(f"the bearer token is {len(token)} characters; use at least {_MIN_TOKEN_CHARS} "
                           "(for example: python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return token.encode("utf-8")


class SecureHttpApp:
    """ASGI middleware in front of the SDK's streamable HTTP app: host, origin, token, size, time."""

    def __init__(self, app: ASGIApp, policy: HttpPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        framing = framing_refusal(scope["headers"])
        if framing is not None:
            await _plain(send, 400, framing)
            return
        headers = {key.decode("latin-1").casefold(): value.decode("latin-1") for key, value in scope["headers"]}
        refusal = self._refusal(headers)
        if refusal is not None:
            await _plain(send, *refusal)
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.policy.max_body_bytes:
            await _plain(send, 413, f"request body over {self.policy.max_body_bytes} bytes")
            return
        await self._bounded(scope, receive, send)

    def _refusal(self, headers: dict[str, str]) -> tuple[int, str, dict[str, str]] | None:
        if headers.get("host", "").casefold() not in self.policy.allowed_hosts:
            return 403, "Host not allowed (http.allowed_hosts)", {}
        origin = headers.get("origin")
        if origin is not None and origin.casefold().rstrip("/") not in self.policy.allowed_origins:
            return 403, "Origin not allowed (http.allowed_origins)", {}
        if self.policy.token is not None and not _token_matches(headers.get("authorization", ""), self.policy.token):
            return 401, "missing or wrong bearer token", {"www-authenticate": 'Bearer realm="graphmem"'}
        return None

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body whole (counted, so a chunked or false-length body gets 413), check its JSON-RPC
        message, then run the app on it within the time bound."""
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            with anyio.fail_after(self.policy.request_timeout_s):
                body = await read_body(receive, self.policy.max_body_bytes)
                if body is None:
                    await _plain(send, 413, f"request body over {self.policy.max_body_bytes} bytes")
                    return
                replay = await self._checked(scope, body, receive, send)
                if replay is not None:
                    await self.app(scope, replay, tracking_send)
        except TimeoutError:
            if not started:
                await _json_error(send, 504, -32001, f"request timed out after {self.policy.request_timeout_s:g} s")

    async def _checked(self, scope: Scope, body: list[Message], receive: Receive, send: Send) -> Receive | None:
        """The receive the app reads the buffered body from, or ``None`` once graphmem answered itself."""
        if scope.get("method") == "POST":
            payload = b"".join(message.get("body", b"") for message in body if message["type"] == "http.request")
            refusal = rpc_refusal(payload)
            if refusal is not None:
                status, answer, rewritten = refusal
                if status == 202:
                    await _raw(send, 202, b"", b"text/plain; charset=utf-8")
                    return None
                if answer is not None:
                    await _raw(send, status, answer, b"application/json")
                    return None
                body = [{"type": "http.request", "body": rewritten, "more_body": False}]
        return _replaying(body, receive)


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    """The buffered body first, then the client's own messages (its disconnect stops the work)."""
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()
    return replay


async def _raw(send: Send, status: int, body: bytes, content_type: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type)]})
    await send({"type": "http.response.body", "body": body})


def _token_matches(header: str, token: bytes) -> bool:
    scheme, _, presented = header.partition(" ")
    # compare_digest takes constant time for equal-length inputs and does not stop at the first
    # differing byte; comparing a fixed-size value keeps the length from leaking either.
    return scheme.casefold() == "bearer" and hmac.compare_digest(presented.strip().encode("utf-8"), token)


async def _plain(send: Send, status: int, text: str, extra: dict[str, str] | None = None) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    headers += [(key.encode(), value.encode()) for key, value in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text.encode("utf-8")})


async def _json_error(send: Send, status: int, code: int, message: str) -> None:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": json.dumps(body).encode("utf-8")})


def serve_http(build_server: Callable[[], Any], settings: HttpSettings, host: str, port: int, *,
               allow_remote: bool = False) -> None:
    """Run ``server`` over streamable HTTP behind ``SecureHttpApp`` (graphmem serve --transport http)."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    policy = http_policy(settings, host, port, allow_remote=allow_remote)  # refuse before loading anything
    server = build_server()
    # The SDK's own Host/Origin check is switched off: SecureHttpApp applies one allow-list to every
    # bind address (the SDK's applies only on loopback, and allows any localhost port).
    app = server.streamable_http_app(host=host, max_request_body_size=policy.max_body_bytes,
                                     transport_security=TransportSecuritySettings(
                                         enable_dns_rebinding_protection=False))
    bound_log_lines()
    uvicorn.run(SecureHttpApp(app, policy), host=host, port=port, log_level="warning",
                http=header_timeout_protocol(settings.header_timeout_s))

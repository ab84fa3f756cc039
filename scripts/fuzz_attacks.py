"""The attacks of issue 25, as generators the fuzzer runs after its schema-driven calls.

Each attack is a named list of steps against a live server, and each step checks one promise of
docs/security.md; a broken promise becomes a line of ``FuzzReport.violations``:

- ``maximal``: memories at the documented maxima (50,000 characters of about 6,000 distinct words),
  then composition (a short and a 10,000-character query), recall, the conflict scan, the export (a default
  and a largest page) and a 10,000-character search, each of which must answer within ``BOUND_S`` and in at
  most ``MAX_ANSWER_BYTES``;
- ``punctuation``: 50,000-character runs of ``$``, ``(``, ``#`` and ``_`` stored and searched (the
  tokenizer was quadratic in them);
- ``huge note``: a 500,000-character capture, refused (over 50,000 characters) within ``BOUND_S``;
- ``odd ids``: ``1.5``, ``true``, ``null``, ``[1]``, ``{}`` ids get ``-32600``; notifications that carry
  an id get no answer (the next request's answer must come first);
- over HTTP only, ``framing``: doubled ``Authorization``/``Origin``/``Host`` and ``Content-Length`` with
  chunked encoding get 400, a chunked body over the limit 413, and a connection that never finishes its
  headers is closed.
"""

from __future__ import annotations

import json
import random
import socket
import time
from collections.abc import Callable
from typing import Any

__all__ = ["BOUND_S", "MAX_ANSWER_BYTES", "http_framing_attacks", "message_attacks"]

BOUND_S = 5.0  # issue 25: every call on a store of maximal memories answers within 5 s
MAX_ANSWER_BYTES = 1_000_000  # docs/security.md, "Answer sizes": the largest answer is an export page
_SYLLABLES = ["ka", "lo", "mi", "ne", "tu", "ra", "shi", "pe", "do", "vu", "ze", "gi", "fo", "ha", "ju", "ry"]
Request = Callable[[dict[str, Any]], "dict[str, Any] | None"]


def maximal_note(rng: random.Random, lead: str) -> str:
    """A note at the content maximum, of about 6,000 distinct made-up words."""
    words = {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(3, 5))) for _ in range(9_000)}
    return (lead + " " + " ".join(sorted(words)))[:50_000]


def _short(arguments: dict[str, Any]) -> str:
    return json.dumps({k: (v if not isinstance(v, str) or len(v) < 40 else f"<{len(v):,} chars>")
                       for k, v in arguments.items()})


def _tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _timed(request: Request, message: dict[str, Any], what: str, violations: list[str]) -> dict[str, Any] | None:
    started = time.monotonic()
    answer = request(message)
    seconds = time.monotonic() - started
    if answer is None:
        violations.append(f"{what}: no answer")
    elif seconds > BOUND_S:
        violations.append(f"{what}: answered after {seconds:.1f} s (bound {BOUND_S:g} s)")
    return answer


def message_attacks(request: Request, exchange: Callable[[bytes], Any], rng: random.Random, *,
                    over_http: bool, maximal: int = 12) -> list[str]:
    """Run the attacks that go through JSON-RPC messages; the broken promises, one line each.

    ``exchange`` sends one raw frame and returns the next answer (not a server notification).
    """
    violations: list[str] = []
    for index in range(maximal):
        request(_tool("memory_store", content=maximal_note(rng, f"Always deploy service {index} with tool {index}."),
                      kind="decision"))
    request(_tool("memory_store", content="Never deploy a service on Fridays", kind="decision"))
    long = maximal_note(rng, "deploy service tool")[:10_000]
    for name, arguments in (("memory_associate", {"query": "deploy service tool", "mode": "composition"}),
                            ("memory_associate", {"query": long, "mode": "composition", "max_results": 100}),
                            ("memory_associate", {"query": long, "max_results": 100, "detail": "full"}),
                            ("memory_scan_conflicts", {}), ("memory_export", {}),
                            ("memory_export", {"limit": 500, "max_content_chars": 5_000}),
                            ("memory_search", {"query": long, "limit": 100, "detail": "full"})):
        what = f"maximal store: {name} {_short(arguments)}"
        answer = _timed(request, _tool(name, **arguments), what, violations)
        if answer is not None and len(json.dumps(answer)) > MAX_ANSWER_BYTES:
            violations.append(f"{what}: answered {len(json.dumps(answer)):,} bytes (bound {MAX_ANSWER_BYTES:,})")
    for run in ("$", "(", "#", "_"):
        _timed(request, _tool("memory_store", content="price " + run * 50_000), f"punctuation run {run!r}", violations)
    _timed(request, _tool("memory_capture", content="## Decisions\n- " + "x " * 250_000), "huge note capture",
           violations)
    for odd in (1.5, True, None, [1], {}):
        frame = json.dumps({"jsonrpc": "2.0", "id": odd, "method": "tools/call",
                            "params": {"name": "memory_status", "arguments": {}}}).encode()
        answer = exchange(frame)
        if answer is None or (answer.get("error") or {}).get("code") != -32600:
            violations.append(f"odd id {json.dumps(odd)}: answered {str(answer)[:120]}")
    notification = b'{"jsonrpc":"2.0","id":"n1","method":"notifications/initialized"}'
    if over_http:
        answer = exchange(notification)
        if not answer or answer.get("http_status") != 202 or answer.get("text"):
            violations.append(f"notification with an id was answered: {str(answer)[:120]}")
    else:
        first = exchange(notification + b'\n{"jsonrpc":"2.0","id":"after","method":"ping"}')
        if first is None or first.get("id") != "after":
            violations.append(f"notification with an id was answered: {str(first)[:120]}")
    return violations


def _raw_http(port: int, head: list[str], body: bytes = b"", timeout: float = 30.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        try:
            return connection.recv(65536)
        except TimeoutError:
            return b""


def http_framing_attacks(port: int, token: str, max_body: int = 1_048_576, header_timeout_s: float = 10.0) -> list[str]:
    """Framing tricks against a live HTTP server; the broken promises, one line each."""
    violations: list[str] = []
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    base = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Authorization: Bearer {token}",
            "Accept: application/json, text/event-stream", "Content-Type: application/json"]
    doubled = {"Authorization": "Bearer wrong-token-0123456789", "Origin": "http://evil.example",
               "Host": "attacker.example"}
    for name, wrong in doubled.items():
        head = [line for line in base if not line.startswith(f"{name}:")]
        right = next((line for line in base if line.startswith(f"{name}:")), f"{name}: http://127.0.0.1:{port}")
        head += [f"{name}: {wrong}", right, f"Content-Length: {len(body)}"]
        if not _raw_http(port, head, body).startswith(b"HTTP/1.1 400"):
            violations.append(f"doubled {name} was not refused with 400")
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    if not _raw_http(port, [*base, "Transfer-Encoding: chunked", f"Content-Length: {len(chunked)}"],
                     chunked).startswith(b"HTTP/1.1 400"):
        violations.append("Content-Length with chunked encoding was not refused with 400")
    big = b"x" * (max_body + 1)
    if not _raw_http(port, [*base, "Transfer-Encoding: chunked"],
                     f"{len(big):x}\r\n".encode() + big + b"\r\n0\r\n\r\n").startswith(b"HTTP/1.1 413"):
        violations.append("a chunked body over the limit was not refused with 413")
    with socket.create_connection(("127.0.0.1", port), timeout=header_timeout_s + 20) as slow:
        slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")
        started = time.monotonic()
        try:
            closed = slow.recv(1024) == b""
        except TimeoutError:
            closed = False
        if not closed or time.monotonic() - started > header_timeout_s + 5:
            violations.append("a connection that never finished its headers was not closed")
    return violations

"""Streamable HTTP is safe by default: the real server process refuses strangers and big bodies."""

from __future__ import annotations

import json
import subprocess

import httpx
import pytest

from tests.server.test_transports import GRAPHMEM, _env, _free_port, _wait_for_port

TOKEN = "team-token-0123456789abcdef"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("http")
    port = _free_port()
    env = _env(tmp_path) | {"GRAPHMEM_HTTP_TOKEN": TOKEN, "GRAPHMEM_HTTP__MAX_BODY_BYTES": "4096",
                            "GRAPHMEM_HTTP__ALLOWED_ORIGINS": "https://team.example"}
    process = subprocess.Popen([GRAPHMEM, "serve", "--create", "--transport", "http", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)


def _post(port: int, body: bytes | dict, **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    merged = {**ACCEPT, "authorization": f"Bearer {TOKEN}", "host": f"127.0.0.1:{port}", **headers}
    return httpx.post(f"http://127.0.0.1:{port}/mcp", content=content, headers=merged, timeout=30)


def _result(response: httpx.Response) -> dict:
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def test_a_missing_or_wrong_token_gets_401_with_a_bearer_challenge(served):
    assert _post(served, INIT, authorization="").status_code == 401
    wrong = _post(served, INIT, authorization="Bearer " + TOKEN[:-1] + "x")
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("origin", ["http://evil.example", "http://localhost:1", "null"])
def test_a_foreign_origin_gets_403_even_with_the_token(served, origin):
    assert _post(served, INIT, origin=origin).status_code == 403


def test_a_foreign_host_gets_403(served):
    assert _post(served, INIT, host="attacker.example").status_code == 403


def test_an_oversized_body_gets_413(served):
    assert _post(served, {**INIT, "pad": "x" * 5000}).status_code == 413


def test_a_good_call_with_the_token_and_an_allowed_origin_works(served):
    first = _post(served, INIT, origin="https://team.example")
    assert first.status_code == 200 and _result(first)["result"]["serverInfo"]["name"] == "graphmem"
    session = {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    _post(served, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **session)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "memory_store", "arguments": {"content": "deploy key AKIAIOSFODNN7EXAMPLE"}}}
    stored = _result(_post(served, call, **session))["result"]["structuredContent"]
    assert stored["redacted"] == {"aws-access-key": 1}


@pytest.mark.parametrize(("flags", "env", "message"), [
    (["--host", "0.0.0.0"], {}, "--allow-remote"),
    (["--host", "0.0.0.0", "--allow-remote"], {}, "needs a bearer token"),
    (["--host", "0.0.0.0", "--allow-remote"], {"GRAPHMEM_HTTP_TOKEN": "short"}, "at least 16"),
])
def test_a_non_loopback_bind_needs_the_flag_and_a_token(tmp_path, flags, env, message):
    done = subprocess.run([GRAPHMEM, "serve", "--create", "--transport", "http", "--port", str(_free_port()), *flags],
                          check=False, env=_env(tmp_path) | env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def _raw_request(port: int, head: bytes, body: bytes = b"", *, timeout: float = 30) -> bytes:
    """One request written by hand (httpx will not send doubled or contradictory framing headers)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(head + body)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks) and len(b"".join(chunks)) > 12:
                break
        return b"".join(chunks)


def _head(port: int, *lines: str) -> bytes:
    base = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Authorization: Bearer {TOKEN}",
            "Accept: application/json, text/event-stream", "Content-Type: application/json", *lines]
    return ("\r\n".join(base) + "\r\n\r\n").encode()


def test_a_chunked_body_over_the_limit_gets_413(served):
    chunk = b"x" * 8192
    body = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n0\r\n\r\n"
    answer = _raw_request(served, _head(served, "Transfer-Encoding: chunked"), body)
    assert answer.startswith(b"HTTP/1.1 413")


def test_content_length_with_chunked_encoding_gets_400(served):
    body = b"2\r\n{}\r\n0\r\n\r\n"
    answer = _raw_request(served, _head(served, "Transfer-Encoding: chunked", f"Content-Length: {len(body)}"), body)
    assert answer.startswith(b"HTTP/1.1 400")


@pytest.mark.parametrize("name", ["Authorization", "Origin", "Host"])
def test_a_doubled_authorization_origin_or_host_gets_400(served, name):
    body = json.dumps(INIT).encode()
    # A wrong value first and the right one last: the shape that passed before.
    wrong, right = {"Authorization": ("Bearer wrong-token-0123456789", f"Bearer {TOKEN}"),
                    "Origin": ("http://evil.example", "https://team.example"),
                    "Host": ("attacker.example", f"127.0.0.1:{served}")}[name]
    lines = ["POST /mcp HTTP/1.1", f"Host: 127.0.0.1:{served}", f"Authorization: Bearer {TOKEN}",
             "Accept: application/json, text/event-stream", "Content-Type: application/json",
             f"Content-Length: {len(body)}"]
    lines = [line for line in lines if not line.startswith(f"{name}:")] + [f"{name}: {wrong}", f"{name}: {right}"]
    answer = _raw_request(served, ("\r\n".join(lines) + "\r\n\r\n").encode(), body)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]


@pytest.mark.parametrize(("request_id", "echoed"), [(1.5, 1.5), (True, None), (None, None), ([1], None)])
def test_an_odd_id_over_http_gets_invalid_request(served, request_id, echoed):
    response = _post(served, {**INIT, "id": request_id})
    assert response.status_code == 400 and response.json()["error"]["code"] == -32600
    assert response.json()["id"] == echoed


def test_a_notification_over_http_is_never_answered_even_with_an_id(served):
    first = _post(served, INIT)
    session = {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    for body in ({"jsonrpc": "2.0", "id": 7, "method": "notifications/initialized"},
                 {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}):
        response = _post(served, body, **session)
        assert response.status_code == 202 and response.content == b""


def test_a_long_method_over_http_is_refused_with_a_bounded_quote(served):
    response = _post(served, {"jsonrpc": "2.0", "id": 8, "method": "m" * 3000})
    assert response.status_code == 400 and len(response.content) < 400


def test_a_connection_that_never_finishes_its_headers_is_closed(tmp_path):
    import socket
    import time

    port = _free_port()
    env = _env(tmp_path) | {"GRAPHMEM_HTTP__HEADER_TIMEOUT_S": "1"}
    process = subprocess.Popen([GRAPHMEM, "serve", "--create", "--transport", "http", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port, process)
        with socket.create_connection(("127.0.0.1", port), timeout=20) as slow:
            slow.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")
            started = time.monotonic()
            assert slow.recv(1024) == b""  # closed by the server, not by our own timeout
            assert time.monotonic() - started < 10
    finally:
        process.terminate()
        process.wait(timeout=20)

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

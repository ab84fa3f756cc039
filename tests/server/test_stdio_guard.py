"""Every stdio request with an id gets an answer; bad bytes are refused, never stored altered."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest

from graphmem.server.stdio_guard import INVALID_REQUEST, PARSE_ERROR, FrameError, check_frame
from tests.server.test_transports import GRAPHMEM, _env


def _call(request_id: object, content: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": "memory_store", "arguments": {"content": content}}}).encode()


MALFORMED = [
    (_call(11, "x").replace(b'"x"', b'"caf\xc3\x28"'), PARSE_ERROR, 11),  # invalid UTF-8
    (_call(12, "x").replace(b'"x"', b'"\\ud800"'), INVALID_REQUEST, 12),  # lone surrogate
    (_call(13, "x").replace(b'"x"', b"[" * 300 + b"1" + b"]" * 300), INVALID_REQUEST, 13),
    (b'{"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": {', PARSE_ERROR, 14),
    (b'{"jsonrpc": "2.0", "id": 15, "method": "ping", "params": {"x": NaN}}', PARSE_ERROR, 15),
    (b'{"jsonrpc": "2.0", "id": 16}', INVALID_REQUEST, 16),
    (b"[" * 100_000, PARSE_ERROR, None),
    (b"not json at all", PARSE_ERROR, None),
]


@pytest.mark.parametrize(("frame", "code", "request_id"), MALFORMED)
def test_a_bad_frame_becomes_a_json_rpc_error_with_its_id(frame, code, request_id):
    with pytest.raises(FrameError) as caught:
        check_frame(frame)
    answer = json.loads(caught.value.response())
    assert answer["error"]["code"] == code and answer["id"] == request_id
    assert len(answer["error"]["message"]) < 200


def test_a_good_frame_passes_unchanged_in_meaning():
    frame = _call(1, "café ☕")
    assert json.loads(check_frame(frame)) == json.loads(frame)


def test_the_real_server_answers_every_request_over_stdio(tmp_path):
    process = subprocess.Popen([GRAPHMEM, "serve", "--create"], env=_env(tmp_path), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers: dict[object, dict] = {}
    wanted = {1, 2, *(request_id for _, _, request_id in MALFORMED if request_id is not None)}
    done = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            message = json.loads(line)
            answers.setdefault(message.get("id"), message)
            if wanted <= answers.keys() and None in answers:
                done.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    lines = [json.dumps(init).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
             *(frame for frame, _, _ in MALFORMED), _call(2, "stdio guard works")]
    assert process.stdin is not None
    process.stdin.write(b"\n".join(lines) + b"\n")
    process.stdin.flush()
    try:
        assert done.wait(timeout=120), f"unanswered: {wanted - answers.keys()}"
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert answers[2]["result"]["structuredContent"]["duplicate"] is False
    assert answers[11]["error"]["code"] == PARSE_ERROR and "UTF-8" in answers[11]["error"]["message"]

"""Every stdio request with an id gets an answer; bad bytes are refused, never stored altered."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest

from graphmem.server.stdio_guard import INVALID_REQUEST, PARSE_ERROR, FrameError, Unanswered, check_frame
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


@pytest.mark.parametrize(("request_id", "echoed"), [(1.5, 1.5), (True, None), ([1], None), (None, None),
                                                   ({"a": 1}, None)])
def test_an_id_that_is_neither_string_nor_integer_gets_invalid_request(request_id, echoed):
    with pytest.raises(FrameError) as caught:
        check_frame(_call(request_id, "x"))
    answer = json.loads(caught.value.response())
    assert answer["error"]["code"] == INVALID_REQUEST and answer["id"] == echoed


def test_a_notification_is_never_answered_even_with_an_id_or_when_invalid():
    with_id = b'{"jsonrpc": "2.0", "id": 5, "method": "notifications/initialized"}'
    assert json.loads(check_frame(with_id)) == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    with pytest.raises(Unanswered):
        check_frame(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}')
    with pytest.raises(Unanswered):
        check_frame(json.dumps({"jsonrpc": "2.0", "method": "x" * 1_000_000}).encode())


@pytest.mark.parametrize("params", [{"name": "t" * 100_000}, {"uri": "graphmem://" + "u" * 100_000}])
def test_oversized_names_and_uris_are_refused_with_a_bounded_quote(params):
    frame = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": params}).encode()
    with pytest.raises(FrameError) as caught:
        check_frame(frame)
    assert len(caught.value.response()) < 400 and "characters" in str(caught.value)


def test_the_real_server_answers_odd_ids_ignores_notifications_and_quotes_briefly(tmp_path):
    process = subprocess.Popen([GRAPHMEM, "serve", "--create"], env=_env(tmp_path), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    lines = [json.dumps(init).encode(), b'{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}',
             _call(1.5, "odd"), _call(True, "odd"), _call(None, "odd"), _call([1], "odd"),
             json.dumps({"jsonrpc": "2.0", "id": 30, "method": "m" * 1_000_000}).encode(),
             json.dumps({"jsonrpc": "2.0", "id": 31, "method": "resources/read",
                         "params": {"uri": "graphmem://memory/" + "u" * 100_000}}).encode(),
             b'{"jsonrpc":"2.0","id":6,"method":"notifications/cancelled","params":{"requestId":"x"}}',
             _call(3, "the last call")]
    received: list[bytes] = []
    done = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            received.append(line)
            if json.loads(line).get("id") == 3:
                done.set()
                return

    threading.Thread(target=read, daemon=True).start()
    assert process.stdin is not None
    process.stdin.write(b"\n".join(lines) + b"\n")
    process.stdin.flush()
    try:
        assert done.wait(timeout=120), received
    finally:
        process.stdin.close()
        stderr = process.stderr.read() if process.stderr else b""
        process.wait(timeout=30)
    answers = [json.loads(line) for line in received]
    ids = [answer.get("id") for answer in answers if "result" in answer or "error" in answer]  # not notifications
    assert 5 not in ids and 6 not in ids and 1.5 in ids and ids.count(None) == 3 and {30, 31} <= set(ids)
    assert all(len(line) < 1_000 for line in received[1:])
    assert len(stderr) < 20_000


def test_a_nan_frame_is_answered_with_its_own_id_not_an_argument_named_id():
    frame = b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "memory_correct", "arguments": ' \
            b'{"reason": {"id": "Infinity", "x": -Infinity}}}, "id": 1508}'
    with pytest.raises(FrameError) as caught:
        check_frame(frame)
    assert json.loads(caught.value.response())["id"] == 1508

"""A caller that gives up stops the work: a cancelled request (the client's ``notifications/cancelled``) and a
call past its deadline stop the tool's worker thread at its next checkpoint (service/cancellation.py)."""

from __future__ import annotations

import threading
import time

import anyio
import pytest
from mcp import Client

from graphmem import Settings
from graphmem.server import build_server
from graphmem.service.cancellation import CallBudget, Cancelled, budget, checkpoint

pytestmark = pytest.mark.anyio


class Loop:
    """A tool body that works until it is told to stop, checking for cancellation like the real loops do."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped = threading.Event()
        self.steps = 0
        self.error: BaseException | None = None

    def __call__(self, *args: object, **kwargs: object) -> object:
        self.started.set()
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                checkpoint()
                self.steps += 1
                time.sleep(0.01)
            raise AssertionError("never cancelled")
        except Cancelled as error:
            self.error = error
            raise
        finally:
            self.stopped.set()


async def test_a_request_the_client_cancels_stops_its_worker_thread(service, settings, monkeypatch):
    loop = Loop()
    monkeypatch.setattr(service.exports, "page", loop)
    async with Client(build_server(settings, tools="full", service=service)) as client:
        with anyio.move_on_after(1.0):  # the client gives up: it sends notifications/cancelled
            await client.call_tool("memory_export", {})
        assert loop.started.is_set()
        assert await anyio.to_thread.run_sync(loop.stopped.wait, 10), "the work went on after the cancel"
        assert isinstance(loop.error, Cancelled) and "cancelled" in str(loop.error)
        monkeypatch.undo()
        after = await client.call_tool("memory_status", {})
        assert not after.is_error  # the server goes on serving


async def test_a_call_past_its_deadline_stops_and_says_so(service, settings, monkeypatch):
    loop = Loop()
    monkeypatch.setattr(service.exports, "page", loop)
    # The deadline is http.request_timeout_s: an HTTP client has its 504 by then, and the work stops with it.
    short = Settings.load(db=settings.db, environ={"GRAPHMEM_HTTP__REQUEST_TIMEOUT_S": "0.5"})
    server = build_server(short, tools="full", service=service)
    async with Client(server) as client:
        started = time.monotonic()
        result = await client.call_tool("memory_export", {})
    assert result.is_error and "past the call's deadline" in result.content[0].text
    assert time.monotonic() - started < 10 and loop.stopped.is_set()


def test_the_long_loops_stop_at_their_checkpoints(service):
    for index in range(3):
        service.store(f"Always deploy the payments service with tool{index} on weekdays", kind="decision")
    service.store("Never deploy the payments service on Fridays", kind="decision")
    given_up = CallBudget()
    given_up.cancel()
    calls = [lambda: service.associate("payments service deploy", mode="composition"),
             service.conflicts.scan, service.exports.page,
             lambda: service.capture.markdown("## Decisions\n- Use Redis for sessions\n- Keep the queue small\n")]
    for call in calls:
        with budget(given_up), pytest.raises(Cancelled):
            call()
    assert service.repository.counts()["memories"] == 4  # the capture wrote nothing
    checkpoint()  # outside a call: no budget, nothing raised

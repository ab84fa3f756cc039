"""Cooperative cancellation of one call: a caller that gives up stops the work.

The MCP SDK runs a synchronous tool in a worker thread (``anyio.to_thread.run_sync``) and shields it: a
``notifications/cancelled``, or an HTTP client gone after its 504, cancels the request's task, but the
thread runs on to the end (issue 25: RSS reached 4 GB five minutes after the 504s). A thread cannot be
stopped from outside, so the server gives every call a :class:`CallBudget` in a context variable (the
worker thread runs in a copy of the caller's context) and cancels it when the request is cancelled or
its deadline passes; the long loops (composition, the conflict scan, the export page, capture) call
:func:`checkpoint`, which raises :class:`Cancelled` and so unwinds the call, its transaction rolled back.

Outside a call (the CLI, the Python API, tests) there is no budget and :func:`checkpoint` costs one
context-variable read.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from graphmem.errors import GraphmemError

__all__ = ["CallBudget", "Cancelled", "budget", "checkpoint", "current"]


class Cancelled(GraphmemError):
    """The caller gave up (cancelled request, closed connection) or the call's deadline passed."""


class CallBudget:
    """One call's cancellation flag and deadline (``time.monotonic`` seconds), shared across threads."""

    def __init__(self, seconds: float | None = None) -> None:
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self._cancelled = threading.Event()
        self.reason = ""

    def cancel(self, reason: str = "the request was cancelled") -> None:
        if not self._cancelled.is_set():
            self.reason = reason
            self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` once the call is cancelled or past its deadline."""
        if self._cancelled.is_set():
            raise Cancelled(f"call stopped: {self.reason}")
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.cancel("past the call's deadline")
            raise Cancelled(f"call stopped: {self.reason}")

    def remaining(self) -> float | None:
        """Seconds left before the deadline (``None``: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()


_CURRENT: contextvars.ContextVar[CallBudget | None] = contextvars.ContextVar("graphmem_call_budget", default=None)


def current() -> CallBudget | None:
    """The running call's budget, if any."""
    return _CURRENT.get()


def checkpoint() -> None:
    """Stop here if the running call was cancelled (a no-op outside a call)."""
    found = _CURRENT.get()
    if found is not None:
        found.check()


@contextmanager
def budget(call: CallBudget) -> Iterator[CallBudget]:
    """Run the block (and the worker threads it starts, which copy the context) under ``call``."""
    token = _CURRENT.set(call)
    try:
        yield call
    finally:
        _CURRENT.reset(token)

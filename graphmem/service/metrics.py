"""Per-operation timing and counters, persisted across restarts, with a reset.

:func:`measured` marks each timed use case where it is defined; the recorder is built once at the
composition root. Counts gather in memory and reach the ``metric``
table at most ``Settings.lifecycle.metrics_flush_s`` later (and on close), so a search does not pay a
database write. Latencies go into fixed buckets, which add exactly across processes and restarts and
still give p50/p95.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from graphmem.core.time import from_ms
from graphmem.errors import StorageError
from graphmem.store.metrics_store import MetricTotals, add_totals, load_totals, merge_totals, reset_totals
from graphmem.store.repository import Repository

__all__ = ["BUCKETS_MS", "MetricSummary", "MetricsRecorder", "measured", "percentile"]

_Method = TypeVar("_Method", bound=Callable[..., Any])

# Upper bounds (ms) of the latency buckets; the last one catches everything slower.
BUCKETS_MS: tuple[float, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, math.inf)


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """Counters and latency of one operation, across restarts until reset."""

    operation: str
    calls: int
    errors: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    max_ms: float
    total_ms: float
    first_at: str
    last_at: str



class MetricsRecorder:
    """Counts calls, errors and latency per operation name."""

    def __init__(self, repository: Repository, flush_s: float) -> None:
        self.repository = repository
        self.flush_s = flush_s
        self._pending: dict[str, MetricTotals] = {}
        self._lock = threading.Lock()
        self._last_flush = time.monotonic()
        self._held = 0  # while above zero no flush runs (see :meth:`held`)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Keep counts pending for the block: a flush is its own transaction, and inside one open write
        (``UnitOfWork.atomic``) SQLite would make it wait for the lock that very write holds."""
        with self._lock:
            self._held += 1
        try:
            yield
        finally:
            with self._lock:
                self._held -= 1

    @contextmanager
    def measure(self, operation: str) -> Iterator[None]:
        """Time the block; an exception counts as an error and propagates unchanged."""
        started = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            self.record(operation, (time.perf_counter() - started) * 1000.0, ok=ok)

    def record(self, operation: str, elapsed_ms: float, *, ok: bool) -> None:
        now_ms = time.time_ns() // 1_000_000
        buckets = tuple(int(i == _bucket(elapsed_ms)) for i in range(len(BUCKETS_MS)))
        delta = MetricTotals(operation, 1, 0 if ok else 1, elapsed_ms, elapsed_ms, buckets, now_ms, now_ms)
        with self._lock:
            self._merge_pending(delta)
            due = not self._held and time.monotonic() - self._last_flush >= self.flush_s
        if due:
            self.flush()

    def flush(self) -> bool:
        """Add the pending counts to the database; on a storage error they stay pending for the next try."""
        with self._lock:
            pending, self._pending = list(self._pending.values()), {}
            self._last_flush = time.monotonic()
        if not pending:
            return True
        try:
            with self.repository.write_transaction() as session:
                add_totals(session, pending)
        except StorageError:
            # Metrics must never fail the call they measure: keep the counts and retry at the next flush.
            with self._lock:
                for delta in pending:
                    self._merge_pending(delta)
            return False
        return True

    def _merge_pending(self, delta: MetricTotals) -> None:
        current = self._pending.get(delta.operation)
        self._pending[delta.operation] = delta if current is None else merge_totals(current, delta)

    def snapshot(self) -> tuple[MetricSummary, ...]:
        """Stored totals plus what is still pending, by operation name."""
        with self.repository.transaction(primary=True) as session:  # flushes bump no generation
            totals = load_totals(session)
        with self._lock:
            for operation, delta in self._pending.items():
                totals[operation] = merge_totals(totals[operation], delta) if operation in totals else delta
        return tuple(_summary(totals[name]) for name in sorted(totals))

    def reset(self) -> None:
        """Forget every count, stored and pending."""
        with self._lock:
            self._pending = {}
        with self.repository.write_transaction() as session:
            reset_totals(session)


def measured(operation: str) -> Callable[[_Method], _Method]:
    """Decorate a use-case method so its calls are counted and timed as ``operation`` by the recorder
    its object holds in ``self.metrics`` (the one built at the composition root)."""
    def decorate(method: _Method) -> _Method:
        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            with self.metrics.measure(operation):
                return method(self, *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def percentile(buckets: Sequence[int], fraction: float, max_ms: float) -> float:
    """The bucket upper bound below which ``fraction`` of the calls fell (never above the max).

    >>> percentile([0, 3, 1] + [0] * 11, 0.5, 4.2)
    2.0
    """
    calls = sum(buckets)
    if calls == 0:
        return 0.0
    seen = 0
    for bound, count in zip(BUCKETS_MS, buckets, strict=False):
        seen += count
        if seen >= fraction * calls:
            return float(min(bound, max_ms))
    return float(max_ms)


def _bucket(elapsed_ms: float) -> int:
    return next(i for i, bound in enumerate(BUCKETS_MS) if elapsed_ms <= bound)


def _summary(totals: MetricTotals) -> MetricSummary:
    mean = totals.total_ms / totals.calls if totals.calls else 0.0
    return MetricSummary(
        operation=totals.operation, calls=totals.calls, errors=totals.errors, mean_ms=round(mean, 3),
        p50_ms=round(percentile(totals.buckets, 0.5, totals.max_ms), 3),
        p95_ms=round(percentile(totals.buckets, 0.95, totals.max_ms), 3), max_ms=round(totals.max_ms, 3),
        total_ms=round(totals.total_ms, 3), first_at=from_ms(totals.first_at).isoformat(),
        last_at=from_ms(totals.last_at).isoformat())

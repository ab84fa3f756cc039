"""Persistent per-operation metrics: totals are added, never overwritten, so several processes and
restarts sum exactly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from sqlalchemy import delete
from sqlmodel import Session, select

from graphmem.store.tables import MetricRow

__all__ = ["MetricTotals", "add_totals", "load_totals", "merge_totals", "reset_totals"]


@dataclass(frozen=True, slots=True)
class MetricTotals:
    """Counters of one operation; ``buckets`` counts calls per latency bucket."""

    operation: str
    calls: int
    errors: int
    total_ms: float
    max_ms: float
    buckets: tuple[int, ...]
    first_at: int
    last_at: int


def load_totals(session: Session) -> dict[str, MetricTotals]:
    return {row.operation: _totals(row) for row in session.exec(select(MetricRow))}


def add_totals(session: Session, deltas: Sequence[MetricTotals]) -> None:
    """Add ``deltas`` to the stored totals in one transaction."""
    for delta in deltas:
        row = session.get(MetricRow, delta.operation)
        if row is None:
            session.add(MetricRow(**{**asdict(delta), "buckets": list(delta.buckets)}))
            continue
        merged = merge_totals(_totals(row), delta)
        row.calls, row.errors, row.total_ms = merged.calls, merged.errors, merged.total_ms
        row.max_ms, row.buckets, row.last_at = merged.max_ms, list(merged.buckets), merged.last_at
        row.first_at = merged.first_at
        session.add(row)


def reset_totals(session: Session) -> None:
    session.execute(delete(MetricRow))


def merge_totals(a: MetricTotals, b: MetricTotals) -> MetricTotals:
    """The totals of both, as if every call had been counted once."""
    width = max(len(a.buckets), len(b.buckets))
    buckets = tuple((a.buckets[i] if i < len(a.buckets) else 0) + (b.buckets[i] if i < len(b.buckets) else 0)
                    for i in range(width))
    return MetricTotals(a.operation, a.calls + b.calls, a.errors + b.errors, a.total_ms + b.total_ms,
                        max(a.max_ms, b.max_ms), buckets, min(a.first_at, b.first_at),
                        max(a.last_at, b.last_at))


def _totals(row: MetricRow) -> MetricTotals:
    return MetricTotals(row.operation, row.calls, row.errors, row.total_ms, row.max_ms, tuple(row.buckets),
                        row.first_at, row.last_at)

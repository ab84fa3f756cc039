"""Instants as the store keeps them: epoch milliseconds, and aware UTC datetimes at every other layer.

Pure conversions with no I/O, so every layer (core, store, service) converts the same way without
importing the store; ``graphmem.store.convert`` re-exports them for the row converters.

>>> from_ms(to_ms(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))).isoformat()
'2026-01-02T03:04:05+00:00'
>>> to_ms(datetime(1970, 1, 1, 0, 0, 1))  # naive input is taken as UTC
1000
"""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["MS_PER_DAY", "MS_PER_HOUR", "from_ms", "to_ms"]

MS_PER_HOUR = 3_600_000
MS_PER_DAY = 24 * MS_PER_HOUR


def to_ms(instant: datetime) -> int:
    """Aware datetime → epoch milliseconds (naive input is taken as UTC)."""
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=UTC)
    return int(instant.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    """Epoch milliseconds → aware UTC datetime."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)

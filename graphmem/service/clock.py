"""The service clock: epoch milliseconds now (tests replace ``now_ms`` to step through days)."""

from __future__ import annotations

import time

__all__ = ["Clock"]


class Clock:
    """Wall-clock time in UTC epoch milliseconds."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch.

        >>> Clock().now_ms() > 1_700_000_000_000
        True
        """
        return time.time_ns() // 1_000_000

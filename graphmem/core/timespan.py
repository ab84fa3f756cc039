"""Durations as people (and KiroGraph's prune) write them: ``12h``, ``90d``, ``2w``, ``6m``, ``1y``."""

from __future__ import annotations

import re

__all__ = ["DURATION_UNITS", "parse_duration_hours"]

# A month is 30 days and a year 365: prune windows are coarse, and fixed lengths keep
# "older than 6m" the same cut on every day of the year.
DURATION_UNITS: dict[str, float] = {"h": 1.0, "d": 24.0, "w": 168.0, "m": 720.0, "y": 8760.0}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([hdwmy])\s*$", re.IGNORECASE)


def parse_duration_hours(text: str) -> float:
    """``"90d"`` → 2160.0 hours. Raises ``ValueError`` with the accepted forms.

    >>> parse_duration_hours("90d"), parse_duration_hours("2w"), parse_duration_hours("12h")
    (2160.0, 336.0, 12.0)
    >>> parse_duration_hours("6m") / 24
    180.0
    """
    match = _DURATION.match(text) if isinstance(text, str) else None
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(f"duration {text!r} is not a positive number with a unit h, d, w, m (30 d) or y "
                         "(365 d), e.g. 90d, 2w, 6m, 12h")
    return float(match.group(1)) * DURATION_UNITS[match.group(2).lower()]

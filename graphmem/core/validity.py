"""Validity in time: when a replaced memory or fact stops holding.

Every memory and fact holds over ``[valid_from, valid_to)``; ``valid_to = None`` means "still holds".
These rules are shared by judged ``supersedes`` relations, topic-key upserts and temporal facts, so
an ``as_of`` query reads one consistent history whichever way a replacement was recorded.
"""

from __future__ import annotations

from datetime import datetime

__all__ = ["holds_at", "superseded_until"]


def holds_at(valid_from: datetime, valid_to: datetime | None, instant: datetime) -> bool:
    """Whether ``[valid_from, valid_to)`` contains ``instant``."""
    return valid_from <= instant and (valid_to is None or instant < valid_to)


def superseded_until(old_from: datetime, old_to: datetime | None, new_from: datetime,
                     now: datetime) -> datetime:
    """The ``valid_to`` a replaced memory gets: the replacement's ``valid_from``.

    The old memory held until its replacement began. When the replacement claims to begin no later
    than the old one (a back-dated or mis-ordered record), the old one is closed at ``now`` instead,
    so its interval never ends before it starts. An earlier ``valid_to`` already set is kept: a
    memory that had stopped holding does not start holding again because something replaced it.

    >>> from datetime import UTC
    >>> t = lambda day: datetime(2026, 1, day, tzinfo=UTC)
    >>> superseded_until(t(1), None, t(5), now=t(9)).day, superseded_until(t(5), None, t(1), now=t(9)).day
    (5, 9)
    >>> superseded_until(t(1), t(3), t(5), now=t(9)).day
    3
    """
    end = new_from if new_from > old_from else max(now, old_from)
    return end if old_to is None else min(old_to, end)

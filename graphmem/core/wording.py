"""Counts in words: ``counted(1, "memory")`` is "1 memory", ``counted(2, "memory")`` is "2 memories"."""

from __future__ import annotations

__all__ = ["counted"]

_IRREGULAR = {"memory": "memories", "query": "queries", "entry": "entries", "was": "were"}


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` followed by ``singular`` or its plural.

    >>> counted(1, "memory"), counted(0, "memory"), counted(3, "call"), counted(2, "analysis", "analyses")
    ('1 memory', '0 memories', '3 calls', '2 analyses')
    """
    word = singular if count == 1 else (plural or _IRREGULAR.get(singular, singular + "s"))
    return f"{count} {word}"

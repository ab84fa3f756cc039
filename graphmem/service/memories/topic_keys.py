"""Suggesting a topic key: the deterministic ``kind/slug`` a memory is stored and addressed under.

A topic key names a memory (``open``, ``history``, the upsert on ``store``), so suggesting one is a
memories use case; the slugging itself is pure (:func:`graphmem.core.topic_keys.suggest_topic_key`).
"""

from __future__ import annotations

from graphmem.core.topic_keys import suggest_topic_key
from graphmem.errors import InvalidInput
from graphmem.service.validation import check_kind, check_text

__all__ = ["suggest_key"]


def suggest_key(kind: str, title: str) -> str:
    """A deterministic ``kind/slug`` of the title's first six words (non-ASCII letters kept).

    >>> suggest_key("decision", "Use Redis for session storage")
    'decision/use-redis-for-session-storage'
    """
    check_kind(kind)
    title = check_text("title", title, 2_000, required=True) or ""
    try:
        return suggest_topic_key(kind, title)
    except ValueError as error:
        raise InvalidInput(str(error)) from None

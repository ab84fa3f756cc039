"""Merging a cluster's memories into one: every unique statement kept once, repeats dropped.

A statement is a sentence (split at ``.``, ``;``, ``!``, ``?`` followed by a space). Two statements are
the same when their normalized words (casefolded, punctuation removed) are equal, or one's words
are a contiguous part of the other's; the longer one is kept, in the place the first one stood.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MergedText", "merge_statements", "split_statements"]

_BOUNDARY = re.compile(r"(?<=[.;!?])\s+")
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class MergedText:
    content: str
    kept: tuple[str, ...]
    dropped: tuple[str, ...]


def split_statements(text: str) -> list[str]:
    """Sentences of ``text`` (trailing separators kept off).

    >>> split_statements("Use Redis. Sessions expire after 30 min; refresh on use.")
    ['Use Redis.', 'Sessions expire after 30 min;', 'refresh on use.']
    """
    return [part.strip() for part in _BOUNDARY.split(text.strip()) if part.strip()]


def _words(statement: str) -> str:
    return " ".join(_WORD.findall(statement.casefold()))


def merge_statements(contents: Sequence[str]) -> MergedText:
    """One text with every distinct statement of ``contents`` once, in first-seen order.

    >>> merged = merge_statements(["Use Redis for sessions. TTL is 30 minutes.",
    ...                            "use redis for sessions!", "TTL is 30 minutes, sliding."])
    >>> merged.content
    'Use Redis for sessions. TTL is 30 minutes, sliding.'
    >>> merged.dropped
    ('use redis for sessions!', 'TTL is 30 minutes.')
    """
    kept: list[tuple[str, str]] = []  # (statement, its words)
    dropped: list[str] = []
    for content in contents:
        for statement in split_statements(content):
            words = _words(statement)
            same = next((i for i, (_, seen) in enumerate(kept) if _contains(seen, words) or _contains(words, seen)),
                        None)
            if same is None:
                kept.append((statement, words))
            elif len(words) > len(kept[same][1]):
                dropped.append(kept[same][0])
                kept[same] = (statement, words)
            else:
                dropped.append(statement)
    statements = [_closed(statement) for statement, _ in kept]
    return MergedText(" ".join(statements), tuple(s for s, _ in kept), tuple(dropped))


def _contains(outer: str, inner: str) -> bool:
    return bool(inner) and f" {inner} " in f" {outer} "


def _closed(statement: str) -> str:
    return statement if statement[-1] in ".;!?" else statement + "."

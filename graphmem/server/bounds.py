"""The maximum size of a recall answer: what ``memory_search`` and ``memory_associate`` echo is capped here,
at the MCP boundary, and every cut is named in the answer's ``truncated`` list (docs/security.md, "Answer
sizes"). The service's results stay whole for the CLI and the Python API.

A 10,000-character search on a store of maximal memories answered 640 KB, composition 830 KB (issue 25):
the hits' full text and the query's 1,500 concepts, echoed. Now a hit shows at most ``HIT_CHARS``
characters, and the hits of one answer share ``ANSWER_CHARS`` (never fewer than ``MIN_HIT_CHARS`` each);
``memory_open`` reads a memory whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

__all__ = ["ANSWER_CHARS", "CONCEPTS_SHOWN", "CONFLICTS_SHOWN", "ECHO_SHOWN", "HIT_CHARS", "MIN_HIT_CHARS",
           "NOTES_SHOWN", "REASON_CHARS", "Cuts"]

HIT_CHARS = 4_000  # a hit's content
ANSWER_CHARS = 100_000  # the content of all the hits of one answer
MIN_HIT_CHARS = 500
ECHO_SHOWN = 64  # query concepts, seed nodes, unmatched concepts echoed
CONCEPTS_SHOWN = 32  # concepts of one hit
NOTES_SHOWN = 10  # notes of one hit
CONFLICTS_SHOWN = 50  # conflicts of a composition
REASON_CHARS = 300  # a conflict's reason (a relation's reason may hold 10,000 characters)

T = TypeVar("T")


class Cuts:
    """The cuts made to one answer: each line of ``truncated`` names a cap and what it cut."""

    def __init__(self, hits: int) -> None:
        self.hit_chars = max(MIN_HIT_CHARS, min(HIT_CHARS, ANSWER_CHARS // max(hits, 1)))
        self._per_hit: dict[str, int] = {}  # a cap applied hit by hit → how many hits it cut
        self._lines: list[str] = []

    def content(self, value: str) -> str:
        """A hit's content, cut to its share of the answer."""
        return self.text(value, self.hit_chars, f"content cut to {self.hit_chars:,} characters (memory_open "
                                                "reads it whole)")

    def text(self, value: str, limit: int, what: str) -> str:
        if len(value) <= limit:
            return value
        self._per_hit[what] = self._per_hit.get(what, 0) + 1
        return value[:limit] + "…"

    def per_hit(self, values: Sequence[T], limit: int, what: str) -> list[T]:
        """A hit's list, at most ``limit`` long."""
        if len(values) > limit:
            self._per_hit[f"{what}: at most {limit} a hit"] = self._per_hit.get(f"{what}: at most {limit} a hit", 0) + 1
        return list(values[:limit])

    def echo(self, values: Sequence[T], limit: int, what: str) -> list[T]:
        """An answer's list, at most ``limit`` long."""
        if len(values) > limit:
            self._lines.append(f"{what}: the first {limit} of {len(values):,}")
        return list(values[:limit])

    def also(self, lines: Sequence[str]) -> None:
        """Cuts the service made (composition's caps)."""
        self._lines.extend(lines)

    def notes(self) -> list[str]:
        return [*self._lines, *(f"{what} ({count} cut)" for what, count in self._per_hit.items())]

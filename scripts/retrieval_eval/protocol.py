"""The interface a retriever implements to be evaluated."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from .data import Passage


@runtime_checkable
class Retriever(Protocol):
    """Anything that can index a passage pool and rank passage titles for a question.

    ``retrieve`` returns titles, best first. The harness deduplicates them (first occurrence wins), so a
    retriever that ranks two passages sharing a title does not get credit twice.
    """

    name: str

    def index(self, passages: Sequence[Passage]) -> None: ...

    def retrieve(self, question: str, k: int) -> list[str]: ...


@runtime_checkable
class SetRetriever(Retriever, Protocol):
    """A retriever that can also answer with a variable-size set (composition mode)."""

    def retrieve_set(self, question: str) -> list[str]: ...


def dedupe(titles: Iterable[str]) -> list[str]:
    """Drop repeated titles, keeping the first occurrence and the order."""
    seen: set[str] = set()
    out: list[str] = []
    for title in titles:
        if title not in seen:
            seen.add(title)
            out.append(title)
    return out

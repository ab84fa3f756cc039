"""Value types produced by concept extraction."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

__all__ = ["ConceptKind", "ConceptMention", "CooccurrenceWindow", "ParsedObservation"]

ConceptKind = Literal["term", "phrase", "identifier", "entity", "part"]
CooccurrenceWindow = Literal["sentence", "document"]


@dataclass(frozen=True, slots=True)
class ConceptMention:
    """One concept found in a text, aggregated over all of its occurrences.

    Attributes
    ----------
    key : str
        Normalized concept name: lemma-based and case-folded for words; identifiers keep their punctuation.
    surface : str
        First surface form seen in the text.
    kind : {"term", "phrase", "identifier", "entity", "part"}
        The strongest role the concept played in the text.
    weight : float
        Salience in (0, 1].
    start, end : int
        Character span of the first occurrence.
    sentence : int
        Index of the sentence of the first occurrence.
    count : int
        Number of occurrences in the text.
    parts : tuple of str
        Keys of component concepts (identifier parts, phrase words); each is also its own mention.
    """

    key: str
    surface: str
    kind: ConceptKind
    weight: float
    start: int
    end: int
    sentence: int
    count: int
    parts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedObservation:
    """The concepts of one text.

    Attributes
    ----------
    text : str
        The parsed text.
    mentions : tuple of ConceptMention
        Deduplicated by key, ordered by first occurrence.
    sentence_count : int
        Number of sentences.
    sentence_keys : tuple of tuple of str
        The keys occurring in each sentence, in sentence order. Optional for hand-built values: when empty,
        each mention counts only in the sentence of its first occurrence.
    """

    text: str
    mentions: tuple[ConceptMention, ...]
    sentence_count: int
    sentence_keys: tuple[tuple[str, ...], ...] = ()

    def keys(self) -> tuple[str, ...]:
        """Return the concept keys in mention order."""
        return tuple(mention.key for mention in self.mentions)

    def cooccurring_pairs(self, window: CooccurrenceWindow = "sentence") -> list[tuple[str, str, float]]:
        """Return each pair of concepts that occur together, with a weight in (0, 1].

        Parameters
        ----------
        window : {"sentence", "document"}
            ``"sentence"`` pairs concepts sharing a sentence; ``"document"`` pairs every two concepts.

        Returns
        -------
        list of (str, str, float)
            ``(key_a, key_b, weight)`` with ``key_a < key_b``, sorted, each pair once. A concept is never
            paired with its own parts or with a phrase it is a word-aligned piece of ("webhook handler" with
            "webhook", "new york" with "new york city"): that link is containment, not evidence.

        Notes
        -----
        The weight is a noisy-OR over shared windows, ``1 - (1 - g) ** n``, where ``g`` is the geometric mean
        of the two saliences and ``n`` the number of windows they share: bounded by 1, monotone in the
        evidence, and equal to ``g`` for a single shared window.

        Examples
        --------
        >>> a = ConceptMention("cache", "cache", "term", 0.64, 0, 5, 0, 1)
        >>> b = ConceptMention("redis", "Redis", "entity", 1.0, 9, 14, 0, 1)
        >>> ParsedObservation("cache in Redis", (a, b), 1).cooccurring_pairs()
        [('cache', 'redis', 0.8)]
        """
        by_key = {mention.key: mention for mention in self.mentions}
        shared: dict[tuple[str, str], int] = {}
        for keys in self._windows(window):
            for key_a, key_b in combinations(sorted(set(keys)), 2):
                shared[(key_a, key_b)] = shared.get((key_a, key_b), 0) + 1
        contained = _containment(self.mentions)
        pairs = []
        for (key_a, key_b), evidence in sorted(shared.items()):
            if _contains(key_a, key_b, contained) or _contains(key_b, key_a, contained):
                continue
            salience = math.sqrt(by_key[key_a].weight * by_key[key_b].weight)
            pairs.append((key_a, key_b, round(1.0 - (1.0 - salience) ** evidence, 6)))
        return pairs

    def _windows(self, window: CooccurrenceWindow) -> Iterable[Iterable[str]]:
        if window == "document":
            return [self.keys()]
        if window != "sentence":
            raise ValueError(f"window must be 'sentence' or 'document', not {window!r}")
        if self.sentence_keys:
            return self.sentence_keys
        by_sentence: dict[int, list[str]] = {}
        for mention in self.mentions:
            by_sentence.setdefault(mention.sentence, []).append(mention.key)
        return by_sentence.values()


def _contains(outer: str, inner: str, contained: dict[str, set[str]]) -> bool:
    return inner in contained.get(outer, ()) or f" {inner} " in f" {outer} "


def _containment(mentions: Iterable[ConceptMention]) -> dict[str, set[str]]:
    """Map each key to all keys it contains, transitively ("npm run build:worker" contains "worker")."""
    direct = {mention.key: mention.parts for mention in mentions}
    closure: dict[str, set[str]] = {}
    for key, parts in direct.items():
        seen: set[str] = set()
        stack = list(parts)
        while stack:
            part = stack.pop()
            if part not in seen and part != key:
                seen.add(part)
                stack.extend(direct.get(part, ()))
        closure[key] = seen
    return closure

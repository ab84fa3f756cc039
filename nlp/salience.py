"""Merge raw concept occurrences into one weighted mention per key.

Salience is a product of independent factors, each in (0, 1]:

- **kind**: identifiers and names are the most specific handles an agent will search for, phrases are more
  specific than single words, and identifier parts are weak evidence on their own;
- **position**: a leading title line is what the passage is about, so the names in it (and an opening topic,
  "Python is ...") get full salience and its other concepts a full position factor; otherwise earlier
  sentences weigh more, as in lead-based summarization baselines, with a floor so late mentions still count;
- **head**: the last word of a phrase ("handler" in "webhook handler") names what the phrase is about;
- **repeats**: each repeat adds half of the remaining gap, so counts saturate instead of rewarding long texts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from nlp.types import ConceptKind, ConceptMention

__all__ = ["KIND_RANK", "MergedMentions", "Occurrence", "aggregate_mentions", "salience"]

KIND_RANK: dict[str, int] = {"identifier": 0, "entity": 1, "phrase": 2, "term": 3, "part": 4}
_KIND_WEIGHT: dict[str, float] = {"identifier": 1.0, "entity": 1.0, "phrase": 0.9, "term": 0.7, "part": 0.45}
_HEAD_BONUS = 1.2
_FIRST_SENTENCE = 0.9  # the first sentence is strong, but a title line (1.0) is stronger
_SENTENCE_DECAY = 0.15  # per later sentence: 0.9, 0.78, 0.69, 0.62, ...
_POSITION_FLOOR = 0.5
_SINGLE_OCCURRENCE = 0.8  # repeats lift this toward 1: 0.8, 0.9, 0.95, ...


_SALIENCE_CACHE: dict[tuple[str, int, int, bool, bool], float] = {}


class Occurrence(NamedTuple):
    """One occurrence of a concept candidate, before merging by key."""

    key: str
    surface: str
    kind: ConceptKind
    start: int
    end: int
    sentence: int
    is_head: bool = False
    is_title: bool = False
    parts: tuple[str, ...] = ()


def salience(kind: ConceptKind, sentence: int, count: int, is_head: bool, is_title: bool) -> float:
    """Return the salience of a concept in (0, 1].

    Parameters
    ----------
    kind : ConceptKind
        The concept's strongest kind in the text.
    sentence : int
        The earliest sentence it occurs in.
    count : int
        Its number of occurrences.
    is_head : bool
        Whether it is the last word of a phrase somewhere in the text.
    is_title : bool
        Whether it occurs in the title line or is the opening topic.

    Examples
    --------
    >>> salience("entity", 0, 1, False, True)
    1.0
    >>> salience("term", 0, 1, False, True)
    0.56
    >>> salience("term", 0, 1, True, False) > salience("term", 0, 1, False, False)
    True
    """
    cache_key = (kind, sentence, count, is_head, is_title)
    cached = _SALIENCE_CACHE.get(cache_key)
    if cached is None:
        position = (
            1.0 if is_title else max(_POSITION_FLOOR, _FIRST_SENTENCE / (1.0 + _SENTENCE_DECAY * sentence))
        )
        repeats = _SINGLE_OCCURRENCE + (1.0 - _SINGLE_OCCURRENCE) * (1.0 - 0.5 ** (count - 1))
        head = _HEAD_BONUS if is_head else 1.0
        cached = round(min(1.0, _KIND_WEIGHT[kind] * position * repeats * head), 6)
        if is_title and kind == "entity":
            cached = 1.0
        if len(_SALIENCE_CACHE) < 10_000:  # few distinct inputs occur; the bound guards pathological texts
            _SALIENCE_CACHE[cache_key] = cached
    return cached


class MergedMentions(NamedTuple):
    """Mentions in order of first occurrence, and the keys found in each sentence (in the same order)."""

    mentions: tuple[ConceptMention, ...]
    sentence_keys: tuple[tuple[str, ...], ...]


_Ranked = tuple[tuple[int, int, int, str], ConceptMention, Iterable[int]]


def aggregate_mentions(occurrences: Iterable[Occurrence], sentence_count: int) -> MergedMentions:
    """Merge occurrences by key into mentions ordered by first occurrence.

    Parameters
    ----------
    occurrences : iterable of Occurrence
        Every candidate found in one text, in any order.
    sentence_count : int
        Number of sentences of the text.

    Returns
    -------
    MergedMentions
        One mention per key, sorted by (start, longer span first, stronger kind, key), so the order is
        deterministic; and per sentence the keys occurring in it, in that same order.
    """
    groups: dict[str, list[Occurrence]] = {}
    for occurrence in occurrences:
        group = groups.get(occurrence.key)
        if group is None:
            groups[occurrence.key] = [occurrence]
        else:
            group.append(occurrence)
    # Sorting on plain tuples keeps the comparison in C; keys are unique, so mentions are never compared.
    ranked = sorted(
        _single(group[0]) if len(group) == 1 else _merge(key, group) for key, group in groups.items()
    )
    per_sentence: list[list[str]] = [[] for _ in range(sentence_count)]
    for _, mention, sentences in ranked:
        for sentence in sentences:
            per_sentence[sentence].append(mention.key)
    return MergedMentions(
        tuple(mention for _, mention, _ in ranked), tuple(tuple(keys) for keys in per_sentence)
    )


def _single(occurrence: Occurrence) -> _Ranked:
    """The common case: a key seen once."""
    key, surface, kind, start, end, sentence, is_head, is_title, parts = occurrence
    if parts and key in parts:  # a one-word name lists itself as its word
        parts = tuple(part for part in parts if part != key)
    weight = _SALIENCE_CACHE.get((kind, sentence, 1, is_head, is_title)) or salience(
        kind, sentence, 1, is_head, is_title
    )
    mention = ConceptMention(key, surface, kind, weight, start, end, sentence, 1, parts)
    return (start, start - end, KIND_RANK[kind], key), mention, (sentence,)


def _merge(key: str, group: list[Occurrence]) -> _Ranked:
    """Merge several occurrences of one key: strongest kind, earliest sentence, distinct spans counted."""
    first = min(group, key=_order)
    kind = min((occurrence.kind for occurrence in group), key=KIND_RANK.__getitem__)
    sentences = sorted({occurrence.sentence for occurrence in group})
    is_head = any(occurrence.is_head for occurrence in group)
    is_title = any(occurrence.is_title for occurrence in group)
    count = len({occurrence.start for occurrence in group})  # a name that is also a term counts once
    parts = tuple(dict.fromkeys(part for occurrence in group for part in occurrence.parts))
    if key in parts:
        parts = tuple(part for part in parts if part != key)
    weight = salience(kind, sentences[0], count, is_head, is_title)
    mention = ConceptMention(
        key, first.surface, kind, weight, first.start, first.end, first.sentence, count, parts
    )
    return (first.start, first.start - first.end, KIND_RANK[kind], key), mention, sentences


def _order(occurrence: Occurrence) -> tuple[int, int, int]:
    return occurrence.start, occurrence.start - occurrence.end, KIND_RANK[occurrence.kind]

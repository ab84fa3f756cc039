"""Query-side helpers: fallback keys per query concept, and word n-grams for dictionary lookup.

Both produce whole keys only. The caller matches them against its concept vocabulary with dict lookups, so a
match always falls on word boundaries ("Google ago" can never match the concept "go").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from nlp.identifiers import TokenClass
from nlp.normalize import normalize_key
from nlp.types import ConceptMention

if TYPE_CHECKING:  # DocView imports spaCy (over a second); query_terms, which BM25 calls, needs none of it
    from nlp.doc_view import DocView

__all__ = ["fallback_keys", "query_terms", "word_ngrams"]

_WORD = re.compile(r"\w+", re.UNICODE)

# The English stopword list the BM25 baseline uses; kept here so graphmem's BM25 leg sees the same
# query the baseline does.
_STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can did do does doing don down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves s t
    """.split()  # noqa: SIM905 - a word list reads better as text
)


_NGRAM_EDGE_CLASSES = frozenset(
    {TokenClass.IDENTIFIER, TokenClass.URL, TokenClass.DECIMAL, TokenClass.NUMBER}
)


def fallback_keys(
    mention: ConceptMention, parts_of: Callable[[str], tuple[str, ...]], word_key: Callable[[str], str]
) -> tuple[str, ...]:
    """Return a query concept's keys in the order a caller should try them.

    Parameters
    ----------
    mention : ConceptMention
        A query concept.
    parts_of : callable
        Returns the parts of another key of the same text (to flatten "npm run build:worker" down to
        "worker").
    word_key : callable
        Lemma key of one lower-cased word.

    Returns
    -------
    tuple of str
        The exact key; its surface and lemma variants ("webhooks" / "webhook"); for an identifier its parts
        joined as a phrase ("build worker"); then its parts, a phrase's head first.
    """
    surface_form = normalize_key(mention.surface)
    lemma_form = normalize_key(" ".join(word_key(word) for word in surface_form.split()))
    candidates = [mention.key, lemma_form, surface_form]
    parts = _flatten(mention.parts, parts_of)
    if mention.kind == "identifier" and len(mention.parts) > 1:
        candidates.append(" ".join(mention.parts))
    if mention.kind == "phrase" and mention.parts:
        parts = [mention.parts[-1], *reversed(mention.parts[:-1]), *parts]  # head, then its nearest modifiers
    candidates.extend(parts)
    return tuple(dict.fromkeys(key for key in candidates if key))


def _flatten(parts: Iterable[str], parts_of: Callable[[str], tuple[str, ...]]) -> list[str]:
    flat: list[str] = []
    for part in parts:
        flat.append(part)
        flat.extend(_flatten(parts_of(part), parts_of))
    return flat


def word_ngrams(view: DocView, max_n: int) -> list[str]:
    """Return every word n-gram (1..max_n) of a Doc as keys, lemma form then surface form.

    N-grams stay inside a sentence and between punctuation marks, and never start or end with a stopword,
    because no concept key does. Identifiers are single tokens, so each appears whole.
    """
    ngrams: dict[str, None] = {}
    for segment in _segments(view):
        for first in range(len(segment)):
            for last in range(first, min(first + max_n, len(segment))):
                if _is_edge(view, segment[first]) and _is_edge(view, segment[last]):
                    window = segment[first : last + 1]
                    ngrams[" ".join(_lemma_key(view, index) for index in window)] = None
                    ngrams[" ".join(view.infos[index].lower_key for index in window)] = None
    return [ngram for ngram in ngrams if ngram]


def _segments(view: DocView) -> list[list[int]]:
    segments: list[list[int]] = [[]]
    for index, info in enumerate(view.infos):
        if info.cls is TokenClass.SPACE or info.cls is TokenClass.PUNCT:
            if not view.joined_by_hyphen(index):
                segments.append([])
            continue
        if segments[-1] and not view.same_sentence(segments[-1][-1], index):
            segments.append([])
        segments[-1].append(index)
    return [segment for segment in segments if segment]


def _is_edge(view: DocView, index: int) -> bool:
    info = view.infos[index]
    return info.is_content or info.cls in _NGRAM_EDGE_CLASSES


def _lemma_key(view: DocView, index: int) -> str:
    info = view.infos[index]
    return info.key if info.cls is TokenClass.WORD else info.lower_key


def query_terms(query: str) -> list[str]:
    """The query's distinct non-stopword word tokens, lower-cased, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.casefold()):
        if word not in _STOPWORDS and word not in seen:
            seen[word] = None
    return list(seen)

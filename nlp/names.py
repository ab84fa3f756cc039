"""Named entities by rule: runs of capitalized words.

Without a trained recognizer, capitalization is the strongest cheap signal for a name in English text. A
single capitalized word at a sentence start is ambiguous ("Webhooks need retries."), so it only counts when
the run has several words ("New York City is ..."). Lower-case particles may join two capitalized words
("University of Michigan", "Charles de Gaulle").
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

from nlp.doc_view import DocView
from nlp.identifiers import TokenClass

__all__ = ["NameSpan", "find_names"]

# The connectors from the design plus common name particles; each only ever joins two capitalized words.
_CONNECTORS = frozenset({"of", "de", "the", "and", "von", "van", "der", "du", "la", "del", "da"})
_MAX_CONNECTORS = 2  # "Bank of the West"
# "Python is a programming language": a passage's opening subject followed by a copula is its topic.
_TOPIC_FOLLOWERS = frozenset({"is", "was", "are", "were", "("})


class NameSpan(NamedTuple):
    """A name as inclusive token range, the capitalized tokens inside it, and whether it is the title."""

    first: int
    last: int
    words: tuple[int, ...]
    is_title: bool


def find_names(view: DocView, *, leading_topic: bool) -> list[NameSpan]:
    """Find capitalized-name spans in a Doc.

    Parameters
    ----------
    view : DocView
        The Doc's token facts.
    leading_topic : bool
        Whether the capitalized run opening the first sentence is the passage topic (false when the text
        already has a title line).

    Returns
    -------
    list of NameSpan
        In token order. A name joined by "and" ("Procter and Gamble", but also "Google and Microsoft") is
        returned whole and as its sides, since the rule cannot tell the two readings apart.
    """
    names: list[NameSpan] = []
    index = 0
    infos = view.infos
    while index < len(infos):
        if not infos[index].is_name_like or not _is_name_word(view, index):
            index += 1
            continue
        words = _extend(view, index)
        is_topic = leading_topic and index == _first_token(view)
        if is_topic and len(words) == 1 and not _introduces_topic(view, index):
            is_topic = False
        if len(words) > 1 or is_topic or not view.is_sentence_start(index):
            names.append(NameSpan(index, words[-1], words, is_topic))
            names.extend(_split_at_and(view, words))
        index = words[-1] + 1
    return names


def _extend(view: DocView, first: int) -> tuple[int, ...]:
    """Return the capitalized words of the longest name starting at ``first``."""
    words = [first]
    index = first + 1
    connectors = 0
    while index < len(view.infos) and view.same_sentence(first, index) and index not in view.blocked:
        if _is_name_word(view, index):
            words.append(index)
            connectors = 0
        elif connectors < _MAX_CONNECTORS and _is_connector(view, index):
            connectors += 1
        else:
            break
        index += 1
    return tuple(words)


def _split_at_and(view: DocView, words: tuple[int, ...]) -> list[NameSpan]:
    pieces: list[list[int]] = [[words[0]]]
    for previous, word in pairwise(words):
        gap = range(previous + 1, word)
        if any(view.infos[index].lower_key == "and" for index in gap):
            pieces.append([])
        pieces[-1].append(word)
    if len(pieces) == 1:
        return []
    return [NameSpan(piece[0], piece[-1], tuple(piece), False) for piece in pieces]


def _is_name_word(view: DocView, index: int) -> bool:
    info = view.infos[index]
    if index in view.blocked or not info.is_name_like:
        return False
    return info.is_content or info.cls is TokenClass.IDENTIFIER


def _is_connector(view: DocView, index: int) -> bool:
    info = view.infos[index]
    return info.cls is TokenClass.WORD and info.lower_key in _CONNECTORS


def _first_token(view: DocView) -> int:
    return view.sentences.first_tokens[0] if view.sentences.first_tokens else -1


def _introduces_topic(view: DocView, index: int) -> bool:
    """A lone opening word is the topic if a copula follows and it is not an inflected common word."""
    info = view.infos[index]
    following = view.infos[index + 1].text.lower() if index + 1 < len(view.infos) else ""
    return following in _TOPIC_FOLLOWERS and info.key == info.lower_key

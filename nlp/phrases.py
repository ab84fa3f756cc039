"""Multi-word concepts by rule: maximal runs of content words.

Without a tagger we cannot tell adjectives from nouns, but in English the words between two function words or
punctuation marks are mostly a noun phrase's modifiers and head: "every [webhook handler] needs an
[idempotency key]". A hyphen written inside a word joins ("real-time processing" is one run). Verbs are the
main intruders, so a word is taken as a verb and kept out of runs when:

- a determiner follows it ("handler *needs an* ..."): nouns are rarely followed by "a", "the" or "every",
  transitive verbs constantly are;
- a subject pronoun precedes it ("we *store* session state");
- it is an inflected "-ed" form opening a sentence, the style of change notes ("*Added* retry logic").

An inflected "-ed" form also cannot end a phrase ("conglomerate *headquartered* in", "webhooks *retried*"):
after a noun it is a verb or a reduced clause, while "distributed systems" keeps its leading "-ed".
"""

from __future__ import annotations

from nlp.doc_view import DocView

__all__ = ["find_phrase_runs", "sub_phrases"]

_DETERMINERS = frozenset(
    {"a", "an", "the", "this", "these", "those", "its", "their", "our", "my", "your", "his", "every", "each"}
)
_SUBJECT_PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she"})


def find_phrase_runs(view: DocView) -> list[tuple[int, ...]]:
    """Return the maximal runs of two or more content words; the last word of each is a phrase head.

    Parameters
    ----------
    view : DocView
        The Doc's token facts.

    Returns
    -------
    list of tuple of int
        Content-word token indices per run (hyphens excluded), in token order. :func:`sub_phrases` turns a run
        into phrase candidates.
    """
    runs: list[list[int]] = []
    run: list[int] = []
    blocked, sentence_ids = view.blocked, view.sentences.ids
    for index, info in enumerate(view.infos):
        if info.is_content and index not in blocked:
            if run and sentence_ids[run[-1]] != sentence_ids[index]:
                runs.append(run)
                run = []
            if not _is_verb_like(view, index):
                run.append(index)
            elif run:
                runs.append(run)
                run = []
        elif run and not (view.joined_by_hyphen(index) and view.is_word(index + 1)):
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    trimmed = (_trim(view, run) for run in runs)
    return [tuple(run) for run in trimmed if len(run) >= 2]


def _trim(view: DocView, run: list[int]) -> list[int]:
    while run and _is_participle(view, run[-1]):
        run.pop()
    return run


def sub_phrases(run: tuple[int, ...], max_words: int) -> list[tuple[int, ...]]:
    """Return every window of 2..max_words words of a run, longest first at each start.

    The maximal run alone would hide shared sub-concepts: "idempotency key header check" and "every handler
    needs an idempotency key" must meet at "idempotency key".

    Examples
    --------
    >>> sub_phrases((1, 2, 3), max_words=4)
    [(1, 2, 3), (1, 2), (2, 3)]
    """
    return [
        tuple(run[first : first + size])
        for first in range(len(run) - 1)
        for size in range(min(max_words, len(run) - first), 1, -1)
    ]


def _is_participle(view: DocView, index: int) -> bool:
    return view.infos[index].is_participle


def _is_verb_like(view: DocView, index: int) -> bool:
    infos = view.infos
    if index + 1 < len(infos) and infos[index + 1].lower_key in _DETERMINERS:
        return True
    if index > 0 and infos[index - 1].lower_key in _SUBJECT_PRONOUNS:
        return True
    return _is_participle(view, index) and view.is_sentence_start(index)

"""Multi-word concepts by rule: maximal runs of content words.

Without a tagger we cannot tell adjectives from nouns, but in English the words between two function words or
punctuation marks are mostly a noun phrase's modifiers and head: "every [webhook handler] needs an [idempotency
key]". Two refinements keep runs tight:

- a hyphen written inside a word joins ("real-time processing" is one run);
- a word directly followed by a determiner is taken as a verb and ends the run ("handler *needs an* ..."):
  nouns are rarely followed by "a", "the" or "every", transitive verbs constantly are;
- an inflected "-ed" form cannot end a phrase ("conglomerate *headquartered* in", "webhooks *retried*"): a past
  participle after a noun is a verb or a reduced clause, while "distributed systems" keeps its leading "-ed".
"""

from __future__ import annotations

from nlp.doc_view import DocView
from nlp.identifiers import TokenClass

__all__ = ["find_phrases"]

_DETERMINERS = frozenset({"a", "an", "the", "this", "these", "those", "its", "their", "our", "my", "your", "his",
                          "every", "each"})


def find_phrases(view: DocView, max_words: int) -> list[tuple[int, ...]]:
    """Return the token indices of each multi-word phrase candidate.

    Parameters
    ----------
    view : DocView
        The Doc's token facts.
    max_words : int
        Longest phrase kept. A longer run keeps its last ``max_words`` words, because English noun phrases put
        the head last ("... connection pool timeout").

    Returns
    -------
    list of tuple of int
        Content-word token indices per phrase (hyphens excluded), in token order.
    """
    runs: list[list[int]] = []
    run: list[int] = []
    blocked = view.blocked
    for index, info in enumerate(view.infos):
        if info.is_content and index not in blocked:
            if run and not view.same_sentence(run[-1], index):
                runs.append(run)
                run = []
            if not _precedes_determiner(view, index):
                run.append(index)
            elif run:
                runs.append(run)
                run = []
        elif run and not (view.joined_by_hyphen(index) and view.is_word(index + 1)):
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return [phrase for phrase in (_trim(view, run, max_words) for run in runs) if len(phrase) >= 2]


def _trim(view: DocView, run: list[int], max_words: int) -> tuple[int, ...]:
    while run and _is_participle(view, run[-1]):
        run.pop()
    return tuple(run[-max_words:])


def _is_participle(view: DocView, index: int) -> bool:
    info = view.infos[index]
    return info.lower_key.endswith("ed") and info.key != info.lower_key


def _precedes_determiner(view: DocView, index: int) -> bool:
    following = index + 1
    if following >= len(view.infos):
        return False
    info = view.infos[following]
    return info.cls is TokenClass.WORD and info.lower_key in _DETERMINERS

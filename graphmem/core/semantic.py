"""Semantic relatedness over unit vectors: nearest neighbours, forms of one concept, the fusion gate.

Pure numpy. The vectors come from ``nlp.embedding`` (static, mean-pooled, unit length), so a cosine is a
dot product. Measured reasons for each default are in docs/retrieval.md ("Semantic").
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

__all__ = ["capitalized_words", "compact_form", "keyword_gate", "nearest_pairs", "particle_stem"]

_JOINERS = re.compile(r"[\s\-_.']+")
_BLOCK = 2048  # rows per matrix product: bounds the scratch matrix at 2048 × n floats


def compact_form(key: str) -> str:
    """The spelling-free form of a concept key: spaces, hyphens, dots and apostrophes dropped.

    "roll back", "roll-back" and "rollback" are one concept written three ways; so are "e-mail" and
    "email", "set up" and "setup".

    >>> [compact_form(k) for k in ("roll back", "e-mail", "set_up", "node.js")]
    ['rollback', 'email', 'setup', 'nodejs']
    """
    return _JOINERS.sub("", key)


_WORD = re.compile(r"[^\W\d_][\w'\-]*")
# What opens a sentence or an utterance: the text's start, a full stop, a question or exclamation mark, or
# the colon after a speaker's tag ("Bart: Hey ..."), each followed by spaces and opening quotes or brackets.
_ENDS = ".!?:;"
_OPENERS = " \t\r\n\"'“‘(["
_LOOK_BACK = 32  # characters read before a word: a word's context, never the whole text before it


def _opens_sentence(text: str, start: int) -> bool:
    before = text[max(0, start - _LOOK_BACK):start].rstrip(_OPENERS)
    return not before or before[-1] in _ENDS  # nothing before: the text's start (or a long run of spaces)


def capitalized_words(text: str) -> frozenset[str]:
    """Casefolded words written capitalized wherever they occur, at least once inside a sentence: names.

    A capitalized word at a sentence's start may be any word ("Yes", "Webhooks"), so it counts only if the
    word is also capitalized elsewhere; one lower-case use ("the bank") makes it a common word. A speaker's
    tag is inside no sentence ("<Bart>:").

    >>> sorted(capitalized_words('<Bart>: "Hey, I saw Lisa at the party." Party games with Lisa! Yes.'))
    ['bart', 'lisa']
    """
    lower: set[str] = set()
    inside: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group()
        if not word[0].isupper():
            lower.add(word.casefold())
        elif len(word) > 1 and not _opens_sentence(text, match.start()):  # "I" is no name
            inside.add(word.casefold())
    return frozenset(inside - lower)


# Particles of English phrasal verbs: the extractor keeps the verb of "roll back" and drops the particle,
# while "rollback" stays one word, so the two forms meet only through the verb.
_PARTICLES = ("back", "up", "out", "down", "off", "over", "in")


def particle_stem(word: str) -> str | None:
    """The verb of a one-word phrasal form ("rollback" → "roll", "setup" → "set"), or None.

    >>> [particle_stem(w) for w in ("rollback", "setup", "checkout", "backup", "within", "up")]
    ['roll', 'set', 'check', None, None, None]
    """
    for particle in _PARTICLES:
        stem = word[: -len(particle)]
        if word.endswith(particle) and len(stem) >= 3 and stem not in _PARTICLES and word.isalpha() \
                and stem != "with":
            return stem
    return None


def nearest_pairs(new: npt.NDArray[np.float32], pool: npt.NDArray[np.float32], k: int, threshold: float,
                  new_offset: int | None = None) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                          npt.NDArray[np.float64]]:
    """For each row of ``new``, its ``k`` most similar rows of ``pool`` with cosine ≥ ``threshold``.

    ``new_offset`` is where ``new`` itself sits inside ``pool`` (its rows are then not their own
    neighbours). Returns (new row, pool row, cosine) triples, strongest first within each new row.

    >>> pool = np.eye(3, dtype=np.float32)
    >>> pool[2] = np.array([0.8, 0.6, 0.0], dtype=np.float32)
    >>> rows, cols, cos = nearest_pairs(pool[:1], pool, k=2, threshold=0.5, new_offset=0)
    >>> rows.tolist(), cols.tolist(), np.round(cos, 2).tolist()
    ([0], [2], [0.8])
    """
    rows: list[npt.NDArray[np.int64]] = []
    cols: list[npt.NDArray[np.int64]] = []
    sims: list[npt.NDArray[np.float64]] = []
    if k <= 0 or len(new) == 0 or len(pool) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), np.zeros(0)
    take = min(k, len(pool))
    for start in range(0, len(new), _BLOCK):
        block = new[start:start + _BLOCK].astype(np.float32) @ pool.T.astype(np.float32)
        if new_offset is not None:
            local = np.arange(block.shape[0])
            block[local, new_offset + start + local] = -np.inf  # a concept is not its own neighbour
        best = np.argpartition(-block, take - 1, axis=1)[:, :take]
        best_sim = np.take_along_axis(block, best, axis=1)
        order = np.argsort(-best_sim, axis=1, kind="stable")
        best, best_sim = np.take_along_axis(best, order, axis=1), np.take_along_axis(best_sim, order, axis=1)
        keep = best_sim >= threshold
        row_index = np.broadcast_to(np.arange(start, start + block.shape[0])[:, None], best.shape)
        rows.append(row_index[keep].astype(np.int64))
        cols.append(best[keep].astype(np.int64))
        sims.append(best_sim[keep].astype(np.float64))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(sims)


def keyword_gate(coverage: float, open_below: float, closed_at: float) -> float:
    """How much the semantic leg counts: 1 while the best hits cover less than ``open_below`` of the query,
    falling linearly to 0 at ``closed_at``.

    Meaning helps where wording differs and hurts where it matches (docs/retrieval.md): a question whose
    words the best hits contain is answered by the keywords; a conversation's context, of which the best hit
    shares a few words, is answered by meaning.

    >>> [round(keyword_gate(c, 0.1, 0.2), 2) for c in (0.0, 0.1, 0.15, 0.2, 0.9)]
    [1.0, 1.0, 0.5, 0.0, 0.0]
    """
    if coverage <= open_below:
        return 1.0
    return max(0.0, (closed_at - coverage) / max(closed_at - open_below, 1e-9))

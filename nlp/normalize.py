"""String normalization shared by every concept key.

A concept key must be stable however the text reached us (pasted from a PDF, typed on a phone, upper-cased in
a heading), and applying the normalization twice must change nothing, because stored keys get normalized again
when callers look them up.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold_accents", "normalize_key"]

# Quotes and clause punctuation around a phrase in prose. Code sigils such as ``-``, ``#``, ``@``, ``$``,
# ``.``, ``/``, ``~``, ``<``, ``>`` and ``=`` are absent from the leading set, so ``--flags``, ``#123``,
# ``./scripts`` and ``>=1.2`` keep their meaning. A trailing ``.`` is sentence punctuation far more often than
# part of a name, so it is stripped at the end only. Brackets are handled separately: they are only stripped
# when unbalanced or when they wrap the whole phrase, so "Python (programming language)" and "f()" survive.
_QUOTES_AND_CLAUSE = "\"'`“”‘’«»‹›,;:!?"
_LEADING = re.compile(f"^[\\s{_QUOTES_AND_CLAUSE}]+")
_TRAILING = re.compile(f"[\\s{_QUOTES_AND_CLAUSE}.…]+$")
_CLOSER_OF = {"(": ")", "[": "]", "{": "}"}
_OPENER_OF = {closer: opener for opener, closer in _CLOSER_OF.items()}


def normalize_key(phrase: str) -> str:
    """Normalize a phrase into the canonical form used for concept keys.

    Applies Unicode NFKC, case folding, whitespace collapsing and strips wrapping punctuation. Lemmatization
    is not part of this function: the extractor lemmatizes words before it joins them into a key.

    Parameters
    ----------
    phrase : str
        Any text: a concept surface form, a stored key, or a user-supplied entity name.

    Returns
    -------
    str
        The normalized key; ``""`` when nothing but whitespace and punctuation remains.

    Examples
    --------
    >>> normalize_key("  “Webhook   Handler”, ")
    'webhook handler'
    >>> normalize_key("Zürich")
    'zürich'
    >>> normalize_key("--dry-run")
    '--dry-run'
    >>> normalize_key("(see Python (programming language)).")
    'see python (programming language)'
    >>> normalize_key(normalize_key("ＧＲＡＰＨＭＥＭ_DB.")) == normalize_key("ＧＲＡＰＨＭＥＭ_DB.")
    True
    """
    # NFKC before and after casefold: casefold can emit sequences that are not NFKC-normal (e.g. for some
    # Greek and ligature characters), and the second pass makes the result stable.
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", phrase).casefold())
    text = " ".join(text.split())
    while True:  # each round only shortens the text, so this ends, and it ends at a fixed point
        stripped = _strip_brackets(_TRAILING.sub("", _LEADING.sub("", text)))
        if stripped == text:
            return text
        text = stripped


def _strip_brackets(text: str) -> str:
    """Remove one unbalanced bracket at either end, or one pair wrapping the whole text."""
    if not text:
        return text
    first, last = text[0], text[-1]
    if first in _CLOSER_OF and text.count(first) > text.count(_CLOSER_OF[first]):
        return text[1:]
    if last in _OPENER_OF and text.count(last) > text.count(_OPENER_OF[last]):
        return text[:-1]
    if first in _CLOSER_OF and last == _CLOSER_OF[first] and _wraps_whole(text):
        return text[1:-1]
    if first in _OPENER_OF or last in _CLOSER_OF:  # a stray closer first or opener last: "a(" , ")a"
        return text[1:] if first in _OPENER_OF else text[:-1]
    return text


def _wraps_whole(text: str) -> bool:
    """Whether the bracket opening ``text`` is closed by its last character ("(a b)" yes, "(a) (b)" no)."""
    opener, closer = text[0], text[-1]
    depth = 0
    for position, char in enumerate(text):
        depth += (char == opener) - (char == closer)
        if depth == 0:
            return position == len(text) - 1
    return False


def fold_accents(key: str) -> str:
    """Strip combining marks: ``"aschenbrödel"`` → ``"aschenbrodel"`` (CJK and other scripts unchanged)."""
    if key.isascii():
        return key
    decomposed = unicodedata.normalize("NFKD", key)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))

"""String normalization shared by every concept key.

A concept key must be stable however the text reached us (pasted from a PDF, typed on a phone, upper-cased in a
heading), and applying the normalization twice must change nothing, because stored keys get normalized again
when callers look them up.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize_key"]

# Characters that wrap a phrase in prose (quotes, brackets, clause punctuation). Code sigils such as ``-``, ``#``,
# ``@``, ``$``, ``.``, ``/``, ``~``, ``<``, ``>`` and ``=`` are deliberately absent from the leading set, so
# ``--flags``, ``#123``, ``./scripts`` and ``>=1.2`` keep their meaning. A trailing ``.`` is sentence punctuation
# far more often than part of a name, so it is stripped at the end only.
_WRAPPERS = "\"'`“”‘’«»‹›()\\[\\]{},;:!?"
_LEADING = re.compile(f"^[\\s{_WRAPPERS}]+")
_TRAILING = re.compile(f"[\\s{_WRAPPERS}.…]+$")


def normalize_key(phrase: str) -> str:
    """Normalize a phrase into the canonical form used for concept keys.

    Applies Unicode NFKC, case folding, whitespace collapsing and strips wrapping punctuation. Lemmatization is
    not part of this function: the extractor lemmatizes words before it joins them into a key.

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
    >>> normalize_key(normalize_key("ＧＲＡＰＨＭＥＭ_DB.")) == normalize_key("ＧＲＡＰＨＭＥＭ_DB.")
    True
    """
    # NFKC before and after casefold: casefold can emit sequences that are not NFKC-normal (e.g. for some Greek
    # and ligature characters), and the second pass makes the result a fixed point.
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", phrase).casefold())
    text = " ".join(text.split())
    text = _TRAILING.sub("", _LEADING.sub("", text))
    return text

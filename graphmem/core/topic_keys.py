"""Topic-key suggestion: a deterministic slug ``kind/first-six-words`` that keeps non-ASCII letters.

KiroGraph's suggestion lower-cases the title and keeps ``[a-z0-9]``, so "Zürich-Deployment" becomes
"z-rich-deployment" and a title in Japanese becomes an empty key. Here a word is a run of Unicode
letters, digits and combining marks (so Devanagari vowel signs stay inside their word), after NFKC
and case folding; apostrophes join a word ("don't" → "dont") rather than split it.
"""

from __future__ import annotations

import unicodedata

__all__ = ["MAX_WORDS", "slug_words", "suggest_topic_key"]

MAX_WORDS = 6
_JOINERS = frozenset("'’ʼ")


def slug_words(title: str) -> list[str]:
    """The title's words: NFKC, case-folded, split on anything that is not a letter, digit or mark.

    >>> slug_words("Zürich: don't deploy on Fridays!")
    ['zürich', 'dont', 'deploy', 'on', 'fridays']
    """
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", title).casefold())
    words: list[str] = []
    current: list[str] = []
    for char in text:
        if char in _JOINERS and current:
            continue
        if char.isalnum() or unicodedata.category(char).startswith("M"):
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


def suggest_topic_key(kind: str, title: str, max_words: int = MAX_WORDS) -> str:
    """``kind/slug`` of the first ``max_words`` words of ``title``; the same input always gives the same key.

    Raises ``ValueError`` when the title has no letters or digits.

    >>> suggest_topic_key("decision", "Use Redis for Session Storage (multi-device logout)")
    'decision/use-redis-for-session-storage-multi'
    >>> suggest_topic_key("architecture", "Модель аутентификации")
    'architecture/модель-аутентификации'
    """
    words = slug_words(title)[:max_words]
    if not words:
        raise ValueError("the title has no letters or digits to build a topic key from")
    return f"{kind}/{'-'.join(words)}"

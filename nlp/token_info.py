"""Per-string token facts, computed once per distinct token text and cached.

Most tokens of a corpus repeat ("the", "cache", "retry"), so everything that costs a regex, a table lookup or
a string normalization is computed here once per distinct string and looked up by the token's ``orth`` id.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from spacy.strings import StringStore

from nlp.identifiers import TokenClass, classify_token, identifier_pieces, is_brand_case, url_host
from nlp.lexicon import GENERIC_VERBS, Lexicon
from nlp.normalize import normalize_key

__all__ = ["CONTENT", "SENTENCE_END", "SEPARATOR", "Part", "TokenInfo", "TokenInfoCache"]

_PATH_SEPARATOR_RE = re.compile(r"[/\\]")
# One word behind path, extension, prefix or flag punctuation: "/healthz", ".yaml", "fct_", "--release", "-Xmx".
_SIGIL_WORD_RE = re.compile(r"/[A-Za-z]\w*|\.[A-Za-z][A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*_|--?[A-Za-z][A-Za-z0-9]+")
_FINAL_CHARS = frozenset(".!?…。！？")

CONTENT = 0
SEPARATOR = 1  # punctuation or whitespace inside a sentence
SENTENCE_END = 2  # sentence-final punctuation, or a line break (lists and title lines end without a period)


class Part(NamedTuple):
    """A component of an identifier: its key, its surface form and its offset inside the token."""

    key: str
    surface: str
    offset: int


class TokenInfo(NamedTuple):
    """What the extractor needs to know about one token string."""

    text: str
    cls: TokenClass
    key: str  # concept key: the lemma for words, the case-folded text for identifiers
    lower_key: str  # case-folded surface, for names whose words must not be lemmatized ("United States")
    is_content: bool  # a word that can be a concept: not a stopword, longer than one character
    is_name_like: bool  # may be part of a capitalized name ("Walt", "GitHub", "U.S.")
    parts: tuple[Part, ...]
    part_keys: tuple[str, ...]
    boundary: int  # CONTENT for words, numbers and identifiers; else SEPARATOR or SENTENCE_END
    is_participle: bool = False  # an "-ed" verb form ("added", "striped")


class TokenInfoCache:
    """Compute and cache :class:`TokenInfo` per token string.

    Parameters
    ----------
    lexicon : Lexicon
        Stopwords and lemmas.

    Notes
    -----
    Reads and writes to the cache dict are atomic under the GIL; two threads computing the same entry store
    equal values, so no lock is needed.
    """

    _MAX_ENTRIES = 500_000  # bounds memory in a long-running server; refilling is cheap

    def __init__(self, lexicon: Lexicon) -> None:
        self._lexicon = lexicon
        self._stop_words = lexicon.stop_words
        self._cache: dict[int, TokenInfo] = {}

    def get(self, orth: int, strings: StringStore) -> TokenInfo:
        """Return the facts for a token, keyed by its ``orth`` id; the text is only looked up on a miss."""
        info = self._cache.get(orth)
        if info is None:
            info = self.compute(strings[orth])
            if len(self._cache) >= self._MAX_ENTRIES:
                self._cache.clear()
            self._cache[orth] = info
        return info

    def get_all(self, orths: list[int], strings: StringStore) -> list[TokenInfo]:
        """Return the facts for a sequence of tokens; the hot path of every parse, hence the local binding."""
        cached = self._cache.get
        return [cached(orth) or self.get(orth, strings) for orth in orths]

    def is_stop(self, lower: str) -> bool:
        """Return whether a lower-cased word is a stopword."""
        return lower in self._stop_words

    def word_key(self, lower: str) -> str:
        """Return the concept key of a lower-cased word (its normalized lemma)."""
        return normalize_key(self._lexicon.lemma(lower))

    def compute(self, text: str) -> TokenInfo:
        """Compute the facts for one token string (uncached)."""
        cls = classify_token(text)
        lower_key = normalize_key(text.lower())
        if cls is TokenClass.WORD:
            return self._word_info(text, lower_key)
        if cls in (TokenClass.IDENTIFIER, TokenClass.URL):
            return self._identifier_info(text, cls, lower_key)
        return TokenInfo(text, cls, lower_key, lower_key, False, False, (), (), _boundary(cls, text))

    def _word_info(self, text: str, lower_key: str) -> TokenInfo:
        lower = text.lower()
        key = self.word_key(lower)
        is_content = len(key) > 1 and not self.is_stop(lower) and not self.is_stop(key)
        participle = is_content and self._lexicon.is_participle(lower, key)
        # A light verb is no concept in any form ("added"); other participles stay terms ("painted").
        if is_content and (key in GENERIC_VERBS or (not participle and self._lexicon.is_verb(lower, key))):
            is_content = False
        return TokenInfo(text, cls=TokenClass.WORD, key=key, lower_key=lower_key, is_content=is_content,
                         is_name_like=text[0].isupper(), parts=(), part_keys=(), boundary=CONTENT,
                         is_participle=participle)

    def _identifier_info(self, text: str, cls: TokenClass, lower_key: str) -> TokenInfo:
        if cls is TokenClass.URL:
            key, parts = lower_key, self._url_parts(text)
        else:
            key, parts = self._identifier_key(text, lower_key)
        part_keys = tuple(part.key for part in parts if part.key != key)
        return TokenInfo(text, cls, key, lower_key, False, _is_name_like(text), parts, part_keys, CONTENT)

    def _identifier_key(self, text: str, lower_key: str) -> tuple[str, tuple[Part, ...]]:
        """An identifier's concept key and the parts that are concepts of their own."""
        parts = self._identifier_parts(text, lower_key)
        if is_brand_case(text):
            return lower_key, ()  # "SQLite", "UUIDv7", "iOS": a name, not the words "sq", "lite"
        key = self._compound_key(text, parts) or lower_key
        if _SIGIL_WORD_RE.fullmatch(text):
            # The word is the concept: a memory about `--release` or `/healthz` is about release or
            # healthz; a second node for the spelling only splits them (lint: similar_concepts).
            word = text.strip("_./-").lower()
            return (self.word_key(word) if word.isalpha() else normalize_key(word)), ()
        if len(parts) == 1 and normalize_key(parts[0].surface) == normalize_key(text.strip("-$")):
            return key, ()  # "--release", "$HOME": the flag or variable is the concept, not its word too
        return key, parts

    def _identifier_parts(self, text: str, identifier_key: str) -> tuple[Part, ...]:
        parts: dict[str, Part] = {}
        for piece, offset in identifier_pieces(text):
            lower = piece.lower()
            # Digits ("v2", "python3") and single letters ("-x") say nothing on their own; "get" in
            # "getUserById" is a stopword like any other.
            if len(lower) < 2 or lower.isdigit() or self.is_stop(lower):
                continue
            key = self.word_key(lower)
            if key and key != identifier_key and not self.is_stop(key):
                parts.setdefault(key, Part(key, piece, offset))
        basename = _path_basename(text)
        if basename and normalize_key(basename) != identifier_key:
            # "main.py" lets a query for the file find "src/app/main.py".
            key = normalize_key(basename)
            parts.setdefault(key, Part(key, basename, text.rfind(basename)))
        return tuple(parts.values())

    def _compound_key(self, text: str, parts: tuple[Part, ...]) -> str | None:
        """The phrase a compound name spells, when every piece of it is a word: ``client_mutation_id``,
        ``QueueWriter``, ``COOKIE_DOMAIN`` and ``Content-Type`` are the concepts "client mutation id", "queue
        writer", "cookie domain" and "content type", so code and prose meet at one node. Paths, dotted names,
        flags ("--dry-run") and names with a dropped piece ("getUserById" loses "get" and "by") keep their
        own spelling."""
        text = text.removeprefix("${").removesuffix("}").removeprefix("$")  # $GIT_SHA is GIT_SHA
        if any(char in text for char in "/.:@\\$#") or text.startswith("-") or not 2 <= len(parts) <= 4:
            return None
        pieces = identifier_pieces(text)
        if len(pieces) != len(parts) or not all(part.key.isalpha() for part in parts):
            return None
        return " ".join(part.key for part in parts)

    @staticmethod
    def _url_parts(text: str) -> tuple[Part, ...]:
        host = url_host(text)
        offset = text.lower().find(host)
        if not host or offset < 0:
            return ()
        return (Part(normalize_key(host), text[offset : offset + len(host)], offset),)


def _boundary(cls: TokenClass, text: str) -> int:
    if cls is TokenClass.SPACE:
        return SENTENCE_END if "\n" in text else SEPARATOR
    if cls is TokenClass.PUNCT:
        return SENTENCE_END if text[-1] in _FINAL_CHARS else SEPARATOR
    return CONTENT


def _is_name_like(text: str) -> bool:
    """Capitalized identifiers that read as names ("GitHub", "Coca-Cola"), not as code ("GRAPHMEM_DB")."""
    return text[0].isupper() and all(char.isalnum() or char == "-" for char in text)


def _path_basename(text: str) -> str:
    """Return the file name of a path that has a directory and an extension, else ``""``."""
    if not _PATH_SEPARATOR_RE.search(text):
        return ""
    basename = _PATH_SEPARATOR_RE.split(text.rstrip("/\\"))[-1]
    return basename if "." in basename[1:] else ""

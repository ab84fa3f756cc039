"""Word-level knowledge: stopwords and lemmas.

The lemma source is the ``lemma_lookup`` table from ``spacy-lookups-data`` (the table spaCy's lookup-mode
lemmatizer reads). We apply it ourselves instead of adding the ``lemmatizer`` pipe because the pipe looks
words up case-sensitively ("Webhooks" at a sentence start would miss) and because one lemma function then
serves every pipeline, so concept keys do not change when a trained model is configured.
"""

from __future__ import annotations

import threading

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.lookups import load_lookups
from spacy.strings import get_string_id

from nlp.packed_words import PackedLookup, PackedWords

__all__ = ["GENERIC_VERBS", "Lexicon", "get_lexicon"]

# Small on purpose: each entry is a word that shows up in most agent observations and never names a concept.
# "use"/"uses" and "thing" are the classic filler of notes ("use X for Y"); "etc", "e.g", "i.e" are Latin
# filler spaCy's list lacks; "want" and "way" are conversational filler ("the way we ..."). The name particles
# ("Champ de Mars", "Ludwig van Beethoven") join names but are not concepts on their own.
DOMAIN_STOP_WORDS = frozenset(
    {"use", "uses", "thing", "things", "stuff", "etc", "e.g", "e.g.", "i.e", "i.e.", "want", "way"}
    | {"de", "la", "le", "von", "van", "der", "du", "del", "da", "di", "des"}
)

# Lookup-table lemmas that are wrong for technical text ("data" -> "datum", "pandas" -> "panda", "aws" ->
# "aw", "programming" -> "programme"), and "apis", which WordNet knows as the honeybee genus.
_OVERRIDES = {
    word: word
    for word in ("data", "media", "pandas", "aws", "cors", "atlas", "news", "better", "best", "programming")
}
_OVERRIDES["apis"] = "api"

# Names ending in "s" that are not English plurals; the plural fallback would mangle them ("postgres" ->
# "postgre"). Only words absent from the lookup table reach the fallback, so this list stays short.
# fmt: off
_NOT_PLURAL = frozenset({
    "kubernetes", "postgres", "redis", "jenkins", "https", "macos", "ios", "dns", "sass", "less", "express",
    "analytics", "series", "species", "chaos", "lens", "canvas", "status", "alias", "process", "focus", "gas",
})
# fmt: on
# Light verbs: among the most frequent English verbs, and their noun senses ("a fix", "a run", "a set") are
# rarely what a note is about, so on their own they only join every memory to every other one (issue 9: they
# topped the concept list). Kept short on measurement: a longer list (start, stop, move, find, help, feel, ...)
# cost 0.007 R@10 on the conversational set, where such verbs say what happened. Software nouns that are also
# verbs (build, test, update, deploy, release) stay.
GENERIC_VERBS = frozenset(
    {"add", "handle", "run", "set", "fix", "need", "make", "get", "do", "take", "put", "let", "allow"}
)
_SIBILANT_ENDINGS = ("sses", "xes", "zes", "ches", "shes")
# "-is" is absent: English "-is" nouns ("analysis") are in the tables, so unknown ones are acronym plurals
# ("apis").
_NON_PLURAL_S_ENDINGS = ("ss", "us")
_VOWELS = frozenset("aeiou")


class Lexicon:
    """Stopwords plus a cached lemma function for lower-cased English words.

    Notes
    -----
    Build it through :func:`get_lexicon`: loading the tables takes about 0.1 s. The lemma cache is a plain
    dict; concurrent readers may both compute a missing entry, which is harmless because the value is
    deterministic.
    """

    def __init__(self) -> None:
        # Packed (nlp/packed_words.py): as spaCy's dicts and sets the tables held 21 MiB in every process.
        self._load_tables()
        # The stop words are decoded anew once the tables' strings are gone: kept from the loaded JSON, 3,000
        # small strings scattered over its memory kept 8 MiB of freed pages in the process.
        self.stop_words: frozenset[str] = frozenset(self._pure_adverbs) | frozenset(STOP_WORDS) | DOMAIN_STOP_WORDS
        """spaCy's English stopwords, the domain list, and pure adverbs ("usually", "quickly")."""
        del self._pure_adverbs
        self._cache: dict[str, str] = {}

    def _load_tables(self) -> None:
        tables = load_lookups("en", ["lemma_lookup", "lemma_index"])
        lookup = tables.get_table("lemma_lookup")  # keyed by the string's hash (spaCy's get_string_id)
        index = tables.get_table("lemma_index")
        nouns, verbs, adjectives = frozenset(index["noun"]), frozenset(index["verb"]), frozenset(index["adj"])
        self._pure_adverbs = PackedWords(frozenset(index["adv"]) - nouns - verbs - adjectives)
        self.known_words = PackedWords(nouns | verbs | adjectives | frozenset(lookup.values()))
        """Every English base form the tables know; used to pick between fallback candidates."""
        self._lookup = PackedLookup(lookup)
        self._nouns, self._verbs, self._adjectives = PackedWords(nouns), PackedWords(verbs), PackedWords(adjectives)

    def lemma(self, lower: str) -> str:
        """Return the lemma of a lower-cased word.

        Parameters
        ----------
        lower : str
            The word, already lower-cased.

        Returns
        -------
        str
            The table lemma, else a conservative rule-based lemma, else the word itself.

        Examples
        --------
        >>> lexicon = get_lexicon()
        >>> [lexicon.lemma(w) for w in ["webhooks", "retried", "caching", "postgres", "data"]]
        ['webhook', 'retry', 'cache', 'postgres', 'data']
        """
        cached = self._cache.get(lower)
        if cached is None:
            cached = self._compute_lemma(lower)
            if len(self._cache) > 200_000:  # bound memory in a long-running server
                self._cache.clear()
            self._cache[lower] = cached
        return cached

    def _compute_lemma(self, lower: str) -> str:
        override = _OVERRIDES.get(lower)
        if override is not None:
            return override
        found = self._lookup.get(get_string_id(lower))
        if found is not None:
            return self._checked_lookup(lower, found)
        # The suffix rules are English morphology; they must not touch "Straße" or "東京".
        if not lower.isascii() or not lower.isalpha() or len(lower) < 4 or lower in self.known_words:
            return lower
        if lower.endswith("s"):
            return self._singular(lower)
        if lower.endswith(("ing", "ed")):
            return self._verb_base(lower)
        return lower

    def _checked_lookup(self, lower: str, found: str) -> str:
        """The lookup table is keyed by form, not by part of speech: "number" -> "numb" (the adjective's
        comparative), "cookies" -> "cooky", "running" -> "run". A word that is itself a noun base form keeps its
        form, and a regular plural of a known noun loses only its "s"."""
        if found == lower:
            return found
        if lower in self._nouns and not (lower.endswith("s") and found in self._nouns):
            return lower
        if lower.endswith("s") and lower[:-1] in self._nouns:
            return lower[:-1]
        return found

    def is_verb(self, lower: str, lemma: str) -> bool:
        """Whether a word never names a concept on its own: a light verb, or a verb with no noun sense.

        >>> lexicon = get_lexicon()
        >>> [lexicon.is_verb(w, lexicon.lemma(w)) for w in ["handled", "chose", "retry", "cookie", "update"]]
        [True, True, False, False, False]
        """
        if lemma in GENERIC_VERBS:
            return True
        # Only inflected forms ("chose", "arriving"): base forms and "-s" forms double as software nouns the
        # tables only know as verbs ("retry logic", "retries", "deploys").
        if lower == lemma or lower.endswith("s"):
            return False
        # Membership tests, not a union of the noun and adjective tables: that union was built on every call
        # (50 µs, a tenth of a memory_store's parse).
        return lemma in self._verbs and not any(
            word in self._nouns or word in self._adjectives for word in (lemma, lower))

    def is_participle(self, lower: str, lemma: str) -> bool:
        """An "-ed" form of a verb ("added", "striped", "revoked"): a modifier or a predicate, not a concept."""
        return lower.endswith("ed") and lemma != lower and lemma in self._verbs

    def _singular(self, lower: str) -> str:
        if lower in _NOT_PLURAL or lower.endswith(_NON_PLURAL_S_ENDINGS):
            return lower
        if lower.endswith("ies") and len(lower) > 4:
            return lower[:-3] + "y"
        if lower.endswith(_SIBILANT_ENDINGS):
            return self._first_known([lower[:-2], lower[:-1]], default=lower[:-2])
        # Unknown words ending in a plain "s" are mostly technical plurals ("webhooks", "configs"); the word
        # list above keeps the known exceptions.
        return lower[:-1]

    def _verb_base(self, lower: str) -> str:
        if lower.endswith("ied"):
            return lower[:-3] + "y"
        stem = lower[:-3] if lower.endswith("ing") else lower[:-2]
        if len(stem) < 3:  # "bing" must not become "be"
            return lower
        candidates = [stem, stem + "e"]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
            candidates.append(stem[:-1])  # "mapped" -> "map"
        # Without a known base form, "rebasing" could be "rebas" or "rebase": keep the word rather than guess.
        return self._first_known(candidates, default=lower)

    def _first_known(self, candidates: list[str], default: str) -> str:
        return next((word for word in candidates if word in self.known_words), default)


_LEXICON: Lexicon | None = None
_LEXICON_LOCK = threading.Lock()


def get_lexicon() -> Lexicon:
    """Return the process-wide :class:`Lexicon`, loading the tables on first use."""
    global _LEXICON  # noqa: PLW0603 - a process-wide cache of read-only tables is the point
    with _LEXICON_LOCK:
        if _LEXICON is None:
            _LEXICON = Lexicon()
        return _LEXICON

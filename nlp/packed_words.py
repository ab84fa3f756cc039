"""Read-only word tables without a Python object per word: the lexicon's word sets and its lemma lookup.

spaCy's lookup tables load as Python dicts and sets: the lemma table (41,582 forms), the four part-of-speech
word lists (91,000 words) and their union held 21 MiB in every process, a tenth of a server's fixed cost
(docs/benchmarks.md, "The pool at 1M, again"). Here each is one sorted UTF-8 buffer with its offsets, searched
by bisection: about 3 µs a lookup, which the lexicon's own cache and the token cache pay once per distinct word.

>>> words = PackedWords(["webhook", "cache", "straße"])
>>> "cache" in words, "cach" in words, "straße" in words, len(words)
(True, False, True, 3)
>>> lemmas = PackedLookup({7: "run", 3: "be"})
>>> lemmas.get(7), lemmas.get(5), sorted(lemmas.values())
('run', None, ['be', 'run'])
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable, Iterator, Mapping

import numpy as np

__all__ = ["PackedLookup", "PackedWords"]


def _packed(strings: list[str]) -> tuple[bytes, array[int]]:
    """The strings' UTF-8 bytes back to back, and each one's start offset (plus the end's)."""
    encoded = [string.encode() for string in strings]
    starts = array("q", [0])
    for word in encoded:
        starts.append(starts[-1] + len(word))
    return b"".join(encoded), starts


class PackedWords:
    """A frozen set of strings: their UTF-8 bytes sorted and packed, ``in`` by binary search."""

    def __init__(self, words: Iterable[str]) -> None:
        ordered = sorted({word.encode() for word in words})
        self._text, self._starts = _packed([word.decode() for word in ordered])

    def _word(self, index: int) -> bytes:
        return self._text[self._starts[index] : self._starts[index + 1]]

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        try:
            encoded = word.encode()
        except UnicodeEncodeError:  # a lone surrogate: never a table word
            return False
        at = bisect.bisect_left(range(len(self)), encoded, key=self._word)
        return at < len(self) and self._word(at) == encoded

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __iter__(self) -> Iterator[str]:
        return (self._word(index).decode() for index in range(len(self)))


class PackedLookup:
    """An integer key → string table (spaCy's lookup tables are keyed by the string's hash): the keys a sorted
    array, the values packed in the keys' order."""

    def __init__(self, entries: Mapping[int, str]) -> None:
        keys = np.fromiter(entries.keys(), dtype=np.uint64, count=len(entries))
        order = np.argsort(keys, kind="stable")
        self._keys = keys[order]
        values = list(entries.values())
        self._text, self._starts = _packed([values[index] for index in order.tolist()])

    def get(self, key: int) -> str | None:
        at = int(np.searchsorted(self._keys, np.uint64(key)))
        if at == self._keys.size or int(self._keys[at]) != key:
            return None
        return self._text[self._starts[at] : self._starts[at + 1]].decode()

    def values(self) -> Iterator[str]:
        return (self._text[self._starts[at] : self._starts[at + 1]].decode() for at in range(self._keys.size))

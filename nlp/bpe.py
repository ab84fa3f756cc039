"""The embedding model's tokenizer for a few short texts, in a few hundred KiB instead of 24 MiB.

WordLlama's table is indexed by Llama-2's 32,000 sub-word tokens, and its tokenizer file (an HF ``tokenizers``
BPE: 32,000 pieces, 61,249 merges, byte fallback, no pre-tokenizer) is loaded by the Rust library in 20 MiB of
RSS, plus 4 MiB for its import, measured alone; a serving process that only embeds its queries and single stores
holds 15-16 MiB less with this one instead (its fixed cost 158 → 143 MiB; issue 26, a partitioned server;
docs/benchmarks.md, "The embedding tokenizer in Python"). :class:`CompactBPE` reads the same
file and keeps only what tokenizing needs, as arrays: the single-character pieces (a dict of 2,129), the 256 byte
pieces, and the merges as sorted ``(left << 15 | right)`` keys with their ``(rank << 15 | result)``. It gives the
**same token ids** as the Rust tokenizer (``encode(text).ids`` without special tokens), because it runs the same
algorithm step for step:

1. the special tokens (``<unk>``, ``<s>``, ``</s>``) found in the raw text, leftmost first, are their own ids, and
   each stretch of text between them is tokenized on its own;
2. a stretch is normalised (``▁`` prepended when it is not empty, each space replaced by ``▁``) and cut into words
   before each ``▁`` that follows another character (no piece holds one there, so no merge joins two words: each
   word's merges are the stretch's merges of its symbols, in the same order); a word tokenized once is cached;
3. each character that is a piece is that piece, any other is its UTF-8 bytes' pieces (``<0xE2>``...);
4. merges are applied from a heap ordered by (rank, position), a popped merge skipped when its left symbol is
   gone, is last, or no longer forms a pair merging into the same token — the order of HF's ``Word::merge_all``,
   which matters here: 10,590 of this file's merges have a lower rank than a merge that made one of their parts.

It is a tokenizer for queries and single stores: 33 µs of CPU for one of the pool bench's 24-character queries
whose words it has not seen (the Rust library: 14 µs), 2 µs once its words are cached (10), but about three times
the Rust library's CPU over a corpus of new text, so the embedder still hands large batches to the Rust library
(``nlp/embedding.py``), loaded on the first such batch. The identity is
tested on every text of the evaluation sets and the repository's data, and on edge cases
(``tests/nlp/test_bpe.py``).
"""

from __future__ import annotations

import heapq
import json
import re
from array import array
from bisect import bisect_left
from pathlib import Path
from typing import Any

__all__ = ["CompactBPE"]

_SHIFT = 15  # ids below 32,768 fit (the loader checks); a rank above them
_LOW = (1 << _SHIFT) - 1
_SPACE = "\u2581"
# A normalised stretch is cut into words before each "▁" that follows another character: no piece holds a "▁"
# after another character (the loader checks), so no merge joins two words and each is merged on its own, in the
# same order relative to its own merges as in the whole stretch.
_WORD = re.compile("\u2581+[^\u2581]*")
_CACHED_WORDS = 4096  # words kept tokenized per generation of the cache (two generations: up to 8,192 words)
# Merge lookups kept (pair key → ``rank << 15 | result``, or -1 for a pair that does not merge): a new word makes
# about 20 lookups of pairs seen in earlier words (at 600 bench passages 86 % of them), each a ``bisect`` of the
# 61,249 sorted keys otherwise. 16,384 entries are about 1.2 MiB; the cache is emptied when full.
_CACHED_PAIRS = 16384


class CompactBPE:
    """A byte-fallback BPE read from an HF ``tokenizer.json`` of the shape above; :meth:`ids` tokenizes one text."""

    def __init__(self, pieces: dict[str, int], byte_ids: list[int], merge_keys: array[int],
                 merge_values: array[int], specials: dict[str, int]) -> None:
        self._pieces = pieces
        self._bytes = byte_ids
        self._keys = merge_keys
        self._values = merge_values
        self._specials = specials
        # Two generations of tokenized words: a full ``_cache`` becomes ``_older`` and a word found there moves back,
        # so a word in use is never dropped by an emptying (emptying the one cache of 8,192 words re-tokenized
        # every common word: a third of a single store's new words at 600 bench passages).
        self._cache: dict[str, tuple[int, ...]] = {}
        self._older: dict[str, tuple[int, ...]] = {}
        self._pairs = _PairCache(merge_keys, merge_values)

    @classmethod
    def from_file(cls, path: Path) -> tuple[CompactBPE, bytearray]:
        """The tokenizer, and which pieces hold a letter after their leading "▁"s (1 at the piece's id).

        Raises ``ValueError`` for a file of another shape (a pre-tokenizer, another normaliser, dropout ...):
        the caller then keeps the Rust tokenizer alone.

        The file's JSON is 100k Python objects; what is kept is copied out of it into arrays, and the few
        objects kept are made after it is dropped, so that none of them pins an arena of the parse's
        (the parse left 3.5 MiB resident for 1.7 MiB kept, before)."""
        parsed = _Parsed()  # its containers made before the parse, filled from it
        with path.open("rb") as stream:
            parsed.fill(json.load(stream), path)
        pieces = {chr(char): index for char, index in zip(parsed.chars, parsed.char_ids, strict=True)}
        specials = dict(zip(bytes(parsed.special_texts).decode("utf-8").split("\0"), parsed.special_ids, strict=True)
                        ) if parsed.special_ids else {}
        return cls(pieces, list(parsed.byte_ids), parsed.keys, parsed.values, specials), parsed.letters

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text`` without special tokens added: ``Tokenizer.encode(text,
        add_special_tokens=False).ids``."""
        if not self._specials or "<" not in text:
            return self._stretch(text)
        out: list[int] = []
        start = position = 0
        while position < len(text):
            found = None
            if text[position] == "<":
                for special in self._specials:  # leftmost, then longest
                    if text.startswith(special, position) and (found is None or len(special) > len(found)):
                        found = special
            if found is None:
                position += 1
                continue
            out.extend(self._stretch(text[start:position]))
            out.append(self._specials[found])
            position += len(found)
            start = position
        out.extend(self._stretch(text[start:]))
        return out

    def _stretch(self, text: str) -> list[int]:
        if not text:
            return []
        out: list[int] = []
        cache = self._cache
        for word in _WORD.findall(_SPACE + text.replace(" ", _SPACE)):
            found = cache.get(word)
            if found is None:
                found = self._older.get(word)
                if found is None:
                    found = tuple(self._merged(self._symbols(word)))
                if len(cache) >= _CACHED_WORDS:
                    self._older, self._cache = cache, {}
                    cache = self._cache
                cache[word] = found
            out.extend(found)
        return out

    def _symbols(self, word: str) -> list[int]:
        """Each character's piece, or its UTF-8 bytes' pieces."""
        pieces = self._pieces
        symbols: list[int] = []
        for char in word:
            index = pieces.get(char)
            if index is not None:
                symbols.append(index)
            else:
                symbols.extend(self._bytes[value] for value in char.encode("utf-8"))
        return symbols

    def _merged(self, symbols: list[int]) -> list[int]:
        """The symbols after every merge, in HF's order (``Word::merge_all``): a heap of (rank, position).
        A merge is looked up by indexing the pair cache (inline: a method call per lookup cost a fifth of a new
        word's time)."""
        count = len(symbols)
        if count < 2:
            return symbols
        pairs = self._pairs
        queue: list[tuple[int, int, int]] = []
        for pos in range(count - 1):
            found = pairs[(symbols[pos] << _SHIFT) | symbols[pos + 1]]
            if found >= 0:
                queue.append((found >> _SHIFT, pos, found & _LOW))
        if not queue:
            return symbols
        heapq.heapify(queue)
        nexts = list(range(1, count + 1))
        nexts[-1] = -1
        prevs = list(range(-1, count - 1))
        alive = [True] * count
        pop, push = heapq.heappop, heapq.heappush
        while queue:
            _, pos, new = pop(queue)
            right = nexts[pos]
            if not alive[pos] or right == -1:  # merged into its left neighbour, or last
                continue
            found = pairs[(symbols[pos] << _SHIFT) | symbols[right]]
            if found < 0 or found & _LOW != new:
                continue
            symbols[pos] = new
            alive[right] = False
            after = nexts[right]
            nexts[pos] = after
            if after != -1:
                prevs[after] = pos
            before = prevs[pos]
            if before >= 0:
                found = pairs[(symbols[before] << _SHIFT) | new]
                if found >= 0:
                    push(queue, (found >> _SHIFT, before, found & _LOW))
            if after != -1:
                found = pairs[(new << _SHIFT) | symbols[after]]
                if found >= 0:
                    push(queue, (found >> _SHIFT, pos, found & _LOW))
        return [symbol for symbol, kept in zip(symbols, alive, strict=True) if kept]


class _PairCache(dict[int, int]):
    """Merge lookups: ``cache[left << 15 | right]`` is ``rank << 15 | result``, or -1 for a pair that does not
    merge; a pair not seen yet is looked up in the sorted keys (``bisect``) and kept, up to ``_CACHED_PAIRS``
    (then the cache is emptied)."""

    def __init__(self, keys: array[int], values: array[int]) -> None:
        super().__init__()
        self._keys = keys
        self._values = values

    def __missing__(self, key: int) -> int:
        at = bisect_left(self._keys, key)
        found = self._values[at] if at < len(self._keys) and self._keys[at] == key else -1
        if len(self) >= _CACHED_PAIRS:
            self.clear()
        self[key] = found
        return found


class _Parsed:
    """What a tokenizer keeps of its file: arrays made before the parse and filled from it, so that no object
    the parse's arenas hold outlives it (an array's header made during the parse pins an arena of 1 MiB)."""

    def __init__(self) -> None:
        self.special_texts = bytearray()  # the special tokens' texts, UTF-8, joined by NUL
        self.special_ids = array("l")
        self.chars = array("l")  # the single-character pieces: code point, id
        self.char_ids = array("l")
        self.byte_ids = array("l")
        self.letters = bytearray()
        self.keys = array("q")
        self.values = array("q")

    def fill(self, config: dict[str, Any], path: Path) -> None:
        model = config["model"]
        expected_normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": _SPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE}]}
        if (model.get("type") != "BPE" or model.get("dropout") is not None or not model.get("byte_fallback")
                or model.get("continuing_subword_prefix") or model.get("end_of_word_suffix")
                or model.get("ignore_merges") or config.get("pre_tokenizer") is not None
                or config.get("normalizer") != expected_normalizer):
            raise ValueError(f"{path}: not the byte-fallback BPE this tokenizer reproduces")
        vocab: dict[str, int] = model["vocab"]
        if max(vocab.values(), default=0) > _LOW:
            raise ValueError(f"{path}: a piece's id above {_LOW}")
        if any(_SPACE in piece.lstrip(_SPACE) for piece in vocab):
            raise ValueError(f"{path}: a piece with a '{_SPACE}' after another character: words are not independent")
        for added in config.get("added_tokens", []):
            if (not added.get("special") or added.get("normalized") or added.get("lstrip") or added.get("rstrip")
                    or added.get("single_word") or vocab.get(added["content"]) != added["id"]):
                raise ValueError(f"{path}: an added token this tokenizer does not reproduce: {added}")
            if self.special_ids:
                self.special_texts += b"\0"
            self.special_texts += added["content"].encode("utf-8")
            self.special_ids.append(added["id"])
        self.chars.extend(ord(piece) for piece in vocab if len(piece) == 1)
        self.char_ids.extend(index for piece, index in vocab.items() if len(piece) == 1)
        self.byte_ids.extend(vocab[f"<0x{value:02X}>"] for value in range(256))
        self.letters.extend(bytes(max(vocab.values(), default=-1) + 1))
        for piece, index in vocab.items():
            if any(char.isalpha() for char in piece.lstrip(_SPACE)):
                self.letters[index] = 1
        # HF's merge map is built from the list in order: a pair listed twice keeps its last rank.
        merged: dict[int, int] = {}
        for rank, merge in enumerate(model["merges"]):
            left, right = merge.split(" ") if isinstance(merge, str) else merge
            merged[(vocab[left] << _SHIFT) | vocab[right]] = (rank << _SHIFT) | vocab[left + right]
        self.keys.extend(sorted(merged))
        self.values.extend(merged[key] for key in self.keys)

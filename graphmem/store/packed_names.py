"""Names that open without a Python object per name: the projection's node names and its name → node maps.

A store of 1M memories has about 3.5M node names (memory ids and concept keys). Its snapshot used to be
opened by splitting them into Python strings (0.4 s) and building the ``concept_nodes`` and ``memory_nodes``
dicts from them (1.6 s): most of a 3.3 s open, for maps of which a query reads a few tens of entries. Here the
snapshot's arrays are taken as saved (mapped, so a page is read when first used) and nothing is built per name:

- :class:`PackedStrings`: strings by position, the snapshot's as one NUL-separated UTF-8 buffer with each one's
  start offset, decoded one at a time when read; the strings added since in a list after them.
- :class:`PackedIndex`: string → int, the snapshot's as a sorted array of 64-bit keys (the CRC-32 and the length
  of the UTF-8 bytes) with each one's slot in a :class:`PackedStrings`, found by binary search and checked
  against the string itself (two strings may share a key); the entries added since in a dict, read first.

A lookup costs about 2 µs at 3.5M names (the dict's 0.2-0.6), a name read 0.6 µs (the list's 0.06): a search makes
tens of lookups, a composition hundreds of lookups and thousands of reads, mostly of the same names call after
call, so both keep the last 65,536 they found (about 0.1 µs a hit).

>>> names = PackedStrings.packed(*pack(["mem_1", "déjà vu", ""]))
>>> names.append("k8s")
>>> names[1], names[-1], len(names), list(names)
('déjà vu', 'k8s', 4, ['mem_1', 'déjà vu', '', 'k8s'])
>>> index = PackedIndex.packed(names, *key_index(["déjà vu", "mem_1"], [1, 0]))
>>> index["k8s"] = 3
>>> index["déjà vu"], index.get("k8s"), "déjà" in index, index.get(7), len(index), dict(index)
(1, 3, False, None, 3, {'mem_1': 0, 'déjà vu': 1, 'k8s': 3})
"""

from __future__ import annotations

import bisect
import operator
import sys
import zlib
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from typing import overload

import numpy as np
import numpy.typing as npt

__all__ = ["PackedIndex", "PackedStrings", "key_index", "name_key", "pack"]

IntArray = npt.NDArray[np.int64]
_SEPARATOR = 0  # the NUL byte after every packed string (so an empty string survives)
_LENGTH_MASK = (1 << 31) - 1  # the length's bits above the CRC, kept inside a signed 64-bit key
_CACHED = 1 << 16  # names each cache keeps (a few MiB): a query reads a few thousand, a store a few hundred
_INT = sys.getsizeof(1 << 20)  # an int object above the small-int cache: a node number


def name_key(encoded: bytes | memoryview) -> int:
    """The 64-bit key of a string's UTF-8 bytes: their length above their CRC-32 (zlib's, stable everywhere).

    Collisions are allowed (every hit is checked against the string); the length only makes them rarer.

    >>> name_key(b"abc") == (3 << 32) | 0x352441C2
    True
    """
    return ((len(encoded) & _LENGTH_MASK) << 32) | zlib.crc32(encoded)


def pack(strings: Iterable[str]) -> tuple[npt.NDArray[np.uint8], IntArray]:
    """The strings as one NUL-separated UTF-8 buffer and each one's start offset (plus the end's).

    Raises ValueError (UnicodeEncodeError is one) for a string holding a NUL or a lone surrogate.

    >>> text, starts = pack(["ab", "", "c"])
    >>> text.tobytes(), starts.tolist()
    (b'ab\\x00\\x00c\\x00', [0, 3, 4, 6])
    """
    strings = list(strings)
    joined = "".join(f"{string}\x00" for string in strings).encode()
    text = np.frombuffer(joined, dtype=np.uint8)
    ends = np.flatnonzero(text == _SEPARATOR) + 1
    if ends.size != len(strings):
        raise ValueError("a packed string holds a NUL character")
    return text, np.concatenate([np.zeros(1, dtype=np.int64), ends.astype(np.int64)])


def key_index(strings: Iterable[str], slots: Iterable[int]) -> tuple[IntArray, IntArray]:
    """The keys of ``strings`` sorted, and the slot of each (what :meth:`PackedIndex.packed` takes)."""
    keys = np.fromiter((name_key(string.encode()) for string in strings), dtype=np.int64)
    slots = np.fromiter(slots, dtype=np.int64, count=keys.size)
    order = np.argsort(keys, kind="stable")
    return keys[order], slots[order]


def _ints(array: npt.NDArray[np.int64]) -> memoryview:
    """``array``'s items as Python ints, read without numpy's per-item cost (no copy of a native int64 array)."""
    # Cast through bytes: a memoryview of an array read from a file may say "=q" or "<q", which it cannot index.
    return np.ascontiguousarray(array, dtype=np.int64).data.cast("B").cast("q")


class PackedStrings(Sequence[str]):
    """Strings by position: a packed buffer (read-only) and then a list of the strings appended since."""

    def __init__(self, strings: Iterable[str] = ()) -> None:
        self._text = memoryview(b"")
        self._buffer: npt.NDArray[np.uint8] = np.zeros(0, dtype=np.uint8)
        self._starts: IntArray = np.zeros(1, dtype=np.int64)
        self._start = memoryview(b"")  # the starts as Python ints (a memoryview item is 3× faster than numpy's)
        self._packed = 0
        self._added: list[str] = list(strings)
        self._decoded: dict[int, str] = {}  # the packed strings read lately (a query reads the same ones again)

    @classmethod
    def packed(cls, text: npt.NDArray[np.uint8], starts: IntArray) -> PackedStrings:
        """Strings read from ``text`` as :func:`pack` wrote it (taken as they are: a mapped file stays mapped)."""
        strings = cls()
        strings._buffer, strings._starts, strings._packed = text, starts, int(starts.size) - 1
        strings._start = _ints(starts)
        strings._text = text.data.cast("B") if text.size else memoryview(b"")
        return strings

    @property
    def packed_count(self) -> int:
        """How many strings the packed buffer holds (the first ones)."""
        return self._packed

    def encoded(self, position: int) -> memoryview | bytes:
        """The UTF-8 bytes of one string (no decoding: what a lookup compares)."""
        if position < self._packed:
            return self._text[self._start[position] : self._start[position + 1] - 1]
        return self._added[position - self._packed].encode()

    @overload
    def __getitem__(self, position: int) -> str: ...
    @overload
    def __getitem__(self, position: slice) -> list[str]: ...
    def __getitem__(self, position: int | slice) -> str | list[str]:
        if not self._packed:  # a projection loaded from the rows: a list
            return self._added[position]
        try:
            name = self._decoded.get(position)  # type: ignore[arg-type]  # a slice: TypeError, read below
        except TypeError:
            name = None
        return name if name is not None else self._read(position)

    def _read(self, position: int | slice) -> str | list[str]:
        if isinstance(position, slice):
            return [self[at] for at in range(*position.indices(len(self)))]
        at = operator.index(position)  # numpy integers too
        if at < 0:
            at += len(self)
        if 0 <= at < self._packed:
            name = self._decoded.get(at)
            if name is None:
                name = str(self._text[self._start[at] : self._start[at + 1] - 1], "utf-8")
                if len(self._decoded) >= _CACHED:
                    self._decoded = {}  # replaced, not cleared: a reader in another thread keeps the one it holds
                self._decoded[at] = name
            return name
        if at < 0:
            raise IndexError(position)
        return self._added[at - self._packed]

    def __setitem__(self, position: int, string: str) -> None:
        at = operator.index(position) + (len(self) if position < 0 else 0)
        if 0 <= at < self._packed:
            raise TypeError("a packed string is read-only")
        self._added[at - self._packed] = string

    def __len__(self) -> int:
        return self._packed + len(self._added)

    def __iter__(self) -> Iterator[str]:
        # One decode and one split of the whole buffer: a name at a time took 3× as long.
        yield from bytes(self._text).decode().split("\x00")[:-1] if self._packed else ()
        yield from self._added

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def append(self, string: str) -> None:
        self._added.append(string)

    def extend(self, strings: Iterable[str]) -> None:
        self._added.extend(strings)

    def take(self, positions: Iterable[int]) -> list[str]:
        """The strings at ``positions`` (one decode of the whole buffer when they are many)."""
        positions = [operator.index(at) for at in positions]
        if len(positions) > self._packed // 8:
            every = list(self)
            return [every[at] for at in positions]
        return [self[at] for at in positions]

    def state(self) -> tuple[npt.NDArray[np.uint8], IntArray]:
        """Every string packed (the packed buffer as it is, the added ones packed after it); raises ValueError
        as :func:`pack` does."""
        if not self._added:
            return self._buffer, self._starts
        text, starts = pack(self._added)
        return (np.concatenate([self._buffer, text]),
                np.concatenate([self._starts[:-1], starts + self._buffer.size]))

    def pack(self) -> None:
        """Move the added strings into the packed buffer (raises ValueError as :func:`pack` does, changing
        nothing). Not safe beside a reader in another thread: for a projection no reader holds yet."""
        if not self._added:
            return
        text, starts = self.state()
        self._buffer, self._starts, self._packed = text, starts, int(starts.size) - 1
        self._start = _ints(starts)
        self._text = text.data.cast("B") if text.size else memoryview(b"")
        self._added, self._decoded = [], {}

    def nbytes(self) -> int:
        """Bytes held: the packed arrays, the list and its strings."""
        return int(self._buffer.nbytes + self._starts.nbytes + sys.getsizeof(self._added)
                   + sum(map(sys.getsizeof, self._added)))


class PackedIndex(Mapping[str, int]):
    """string → int: the packed entries (found by key, checked against their string), then a dict of those
    added since, read first. Iteration gives the packed entries by slot, then the added ones in the order they
    came (a dict built in node order iterates the same).

    A packed entry's value is its slot in ``strings`` (the node maps: a node's name is at its node), or, with
    ``values``, ``values[slot]`` (the compact-form map: its forms are its own strings).
    """

    def __init__(self, entries: Mapping[str, int] | None = None) -> None:
        self._strings = PackedStrings()
        self._keys: IntArray = np.zeros(0, dtype=np.int64)
        self._slots: IntArray = np.zeros(0, dtype=np.int64)
        self._values: IntArray | None = None
        self._key = self._slot = memoryview(b"")  # the keys and slots as Python ints
        self._added: dict[str, int] = dict(entries or {})
        self._shadowing: set[str] = set()  # added names that replaced a packed entry's value
        self._found: dict[str, int] = {}  # names looked up lately among the packed entries: slot, or -1

    @classmethod
    def packed(cls, strings: PackedStrings, keys: IntArray, slots: IntArray,
               values: IntArray | None = None) -> PackedIndex:
        """The entries ``keys`` (sorted) and ``slots`` describe, their strings in ``strings``."""
        index = cls()
        index._strings, index._keys, index._slots, index._values = strings, keys, slots, values
        index._key, index._slot = _ints(keys), _ints(slots)
        return index

    @property
    def added(self) -> Mapping[str, int]:
        """The entries added since the packed ones (all of them in an index built from a dict)."""
        return self._added

    def _packed_slot(self, name: object) -> int:
        """The slot of ``name`` among the packed entries, -1 where none (both remembered: the packed entries
        never change, and an entry added later is found in the dict first)."""
        if not self._keys.size or not isinstance(name, str):
            return -1
        slot = self._found.get(name)
        if slot is None:
            slot = self._search(name)
            if len(self._found) >= _CACHED:
                self._found = {}  # replaced, not cleared, as PackedStrings' cache
            self._found[name] = slot
        return slot

    def _search(self, name: str) -> int:
        try:
            encoded = name.encode()
        except UnicodeEncodeError:  # a lone surrogate: never packed (pack refuses it)
            return -1
        key = ((len(encoded) & _LENGTH_MASK) << 32) | zlib.crc32(encoded)  # name_key, inlined: the hot path
        # bisect over the memoryview, not np.searchsorted: the keys are mapped from the zip, often unaligned, and
        # numpy copied all of them to search them (1.3 ms a lookup at 2.5M keys against 1 µs).
        keys = self._key
        at, count = bisect.bisect_left(keys, key), len(keys)
        while at < count and keys[at] == key:
            slot: int = self._slot[at]
            if self._strings.encoded(slot) == encoded:
                return slot
            at += 1
        return -1

    def _value(self, slot: int) -> int:
        return slot if self._values is None else int(self._values[slot])

    def __getitem__(self, name: str) -> int:
        found = self._added.get(name)
        if found is not None:
            return found
        slot = self._packed_slot(name)
        if slot < 0:
            raise KeyError(name)
        return self._value(slot)

    def get(self, name: str, default: int | None = None) -> int | None:  # type: ignore[override]
        found = self._added.get(name)
        if found is not None:
            return found
        slot = self._packed_slot(name)
        return default if slot < 0 else self._value(slot)

    def __contains__(self, name: object) -> bool:
        return name in self._added or self._packed_slot(name) >= 0

    def __setitem__(self, name: str, value: int) -> None:
        if name not in self._added and self._packed_slot(name) >= 0:
            self._shadowing.add(name)
        self._added[name] = value

    def setdefault(self, name: str, value: int) -> int:
        found = self.get(name)
        if found is None:
            self._added[name] = found = value
        return found

    def __len__(self) -> int:
        return int(self._keys.size) + len(self._added) - len(self._shadowing)

    def __iter__(self) -> Iterator[str]:
        for slot in np.sort(self._slots).tolist():
            yield self._strings[slot]
        for name in self._added:
            if name not in self._shadowing:
                yield name

    def values(self) -> ValuesView[int]:
        """The values in the order of the keys, the packed ones read as one array (not looked up name by name)."""
        return _Values(self)

    def items(self) -> ItemsView[str, int]:
        return _Items(self)

    def _values_in_order(self) -> Iterator[int]:
        if self._shadowing:  # rare (no projection map replaces an entry): look each up
            yield from (self[name] for name in self)
            return
        slots = np.sort(self._slots)
        yield from (slots if self._values is None else self._values[slots]).tolist()
        yield from self._added.values()

    def state(self) -> tuple[IntArray, IntArray]:
        """Every entry's key, sorted, and its slot, for a snapshot whose strings are the same as this index's
        plus, in the slot each added entry's value names, the added ones (the node maps). Raises ValueError
        where an added entry replaced a packed one (no node map does): the snapshot then keeps the names in its
        header."""
        if self._shadowing:
            raise ValueError("a node keeps its name: no node map replaces an entry (the JSON header holds the names)")
        return self._merged_keys(list(self._added), list(self._added.values()))

    def own_state(self, *, dense: bool = False) -> tuple[npt.NDArray[np.uint8], IntArray, IntArray, IntArray, IntArray]:
        """For an index with its own strings: the strings packed (raises ValueError as :func:`pack` does), the
        keys sorted, their slots, and the value of each slot. ``dense``: every value is its string's slot, as
        ids handed out in order are (the keyword vocabulary; the values returned are then empty)."""
        values = np.zeros(0, dtype=np.int64) if self._values is None or dense else self._values
        if self._shadowing:
            if dense:
                raise ValueError("a dense index never replaces an entry")
            values = values.copy()
            for name in self._shadowing:
                values[self._packed_slot(name)] = self._added[name]
        names = [name for name in self._added if name not in self._shadowing]
        strings = PackedStrings.packed(*self._strings.state())
        strings.extend(names)
        text, starts = strings.state()
        slots = range(strings.packed_count, len(strings))
        if dense and [self._added[name] for name in names] != list(slots):
            raise ValueError("a dense index's values are its strings' slots")
        keys, ordered = self._merged_keys(names, slots)
        if dense:
            return text, starts, keys, ordered, values
        added_values = np.fromiter((self._added[name] for name in names), dtype=np.int64, count=len(names))
        return text, starts, keys, ordered, np.concatenate([values, added_values])

    def _merged_keys(self, names: list[str], slots: Iterable[int]) -> tuple[IntArray, IntArray]:
        keys, added_slots = key_index(names, slots)
        if not self._keys.size:
            return keys, added_slots
        every = np.concatenate([self._keys, keys])
        order = np.argsort(every, kind="stable")
        return every[order], np.concatenate([self._slots, added_slots])[order]

    def pack(self, names: PackedStrings | None = None, *, dense: bool = False) -> None:
        """Move the added entries among the packed ones, as a snapshot's load holds them: a node map's into the
        sorted keys of ``names`` (its strings, every added name already at the slot its value names, as
        :meth:`state` asks), an index with its own strings (``names`` None) into its own packed strings
        (``dense`` as in :meth:`own_state`). Raises ValueError as those do, changing nothing. Not safe beside a
        reader in another thread: for a projection no reader holds yet.

        >>> index = PackedIndex({"b": 7, "a": 9})
        >>> index.pack()
        >>> index["a"], index.get("b"), len(index.added), dict(index)
        (9, 7, 0, {'b': 7, 'a': 9})
        """
        if names is not None:
            keys, slots = self.state()
            values = None
        else:
            text, starts, keys, slots, own_values = self.own_state(dense=dense)
            names = PackedStrings.packed(text, starts)
            values = None if dense else own_values
        self._strings, self._keys, self._slots, self._values = names, keys, slots, values
        self._key, self._slot = _ints(keys), _ints(slots)
        self._added, self._shadowing, self._found = {}, set(), {}

    def nbytes(self, *, strings: bool = False) -> int:
        """Bytes held (the strings of a node map not counted: they are the projection's names), the added
        dict's int objects counted; ``strings``: also every string, packed and added (an index of its own
        strings whose values are their slots, as the keyword vocabulary)."""
        arrays = self._keys.nbytes + self._slots.nbytes + (0 if self._values is None else self._values.nbytes)
        if strings:
            return int(arrays + self._strings.nbytes() + sys.getsizeof(self._added)
                       + sum(sys.getsizeof(name) + _INT for name in self._added))
        own = 0 if self._values is None else self._strings.nbytes()
        return int(arrays + own + sys.getsizeof(self._added) + _INT * len(self._added))


class _Values(ValuesView[int]):
    _mapping: PackedIndex

    def __iter__(self) -> Iterator[int]:
        return self._mapping._values_in_order()


class _Items(ItemsView[str, int]):
    _mapping: PackedIndex

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return zip(self._mapping, self._mapping._values_in_order(), strict=True)

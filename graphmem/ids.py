"""Opaque ids with a readable prefix, sortable by creation time.

An id is ``<prefix>_<10 chars of millisecond time><10 random chars>`` in Crockford base32, so ids
sort by creation time (like a ULID) while staying unguessable enough to avoid collisions across
processes that write to one PostgreSQL database.
"""

from __future__ import annotations

import os
import time

__all__ = ["new_id", "prefix_of"]

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case, no i/l/o/u


def _encode(value: int, width: int) -> str:
    chars = []
    for _ in range(width):
        value, digit = divmod(value, 32)
        chars.append(_ALPHABET[digit])
    return "".join(reversed(chars))


def new_id(prefix: str, *, at_ms: int | None = None) -> str:
    """Return a new id such as ``mem_01jz3k...``.

    >>> new_id("mem", at_ms=0).startswith("mem_0000000000")
    True
    """
    stamp = time.time_ns() // 1_000_000 if at_ms is None else at_ms
    randomness = int.from_bytes(os.urandom(7), "big") >> 6  # 50 bits = 10 base32 chars
    return f"{prefix}_{_encode(stamp, 10)}{_encode(randomness, 10)}"


def prefix_of(identifier: str) -> str:
    """The readable prefix of an id (``"mem"`` for ``"mem_…"``), or ``""`` if it has none."""
    head, sep, _ = identifier.partition("_")
    return head if sep else ""

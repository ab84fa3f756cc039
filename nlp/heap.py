"""Give the C heap's freed pages back to the system after a step that frees more than it keeps.

glibc keeps freed heap pages resident until a trim. Two steps of a server free far more than they keep: loading
a project's projection from its rows (a 9,091-memory project of the 1M-memory bench: 81 MiB of rows, tokens and
scratch at its peak, 31 MiB held; graphmem/store/projection_pool.py trims after each) and building the parser
(the lemma tables' JSON: 18 MiB freed and kept resident in every server process until trimmed here;
docs/benchmarks.md, "The pool at 1M, again"). A trim walks the free chunks: a few milliseconds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

__all__ = ["release_free_heap"]


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    return trim


_TRIM = _malloc_trim() if sys.platform.startswith("linux") else None


def release_free_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    if _TRIM is not None:
        _TRIM(0)

"""Every thread of a graphmem process allocates from glibc's main arena.

glibc gives each new thread that allocates its own malloc arena (up to 8 per core), and an arena keeps its fragments
for the life of the process, and its freed pages until a trim. A serving process has few threads besides the main
one (the embedder's loading thread, the MCP server's opening thread, the idle follower), and they run Python, which
allocates under the GIL, so one arena costs no contention; the arena the embedder's loading thread left held 4 MiB
of a partitioned server's RSS after its queries, mostly free chunks (docs/benchmarks.md, "A query's scratch, one
malloc arena"). :func:`keep_one_arena` runs when graphmem is imported (``graphmem/__init__.py``), before any of its
modules starts a thread. A limit the environment sets (``MALLOC_ARENA_MAX``, read by glibc at start) is left as it
is; where the C library is not glibc, nothing is done.
"""

from __future__ import annotations

import os
import sys

__all__ = ["M_ARENA_MAX", "keep_one_arena"]

M_ARENA_MAX = -8  # glibc's malloc.h


def keep_one_arena() -> bool:
    """Limit glibc's malloc to its main arena (``mallopt(M_ARENA_MAX, 1)``); True when the limit was set."""
    if not sys.platform.startswith("linux") or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    import ctypes

    try:  # the process's own symbols: libc's, without ctypes.util.find_library's ldconfig subprocess (5 ms)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return False  # no glibc (musl has no mallopt)
    return bool(mallopt(M_ARENA_MAX, 1))

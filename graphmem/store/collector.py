"""The garbage collector paused while a projection is built: millions of new objects, none of them cyclic garbage.

Building a projection creates a few objects per node (names, the key → node dicts, tag sets); every 700
allocations the collector runs, and each pass of the oldest generation walks everything built so far, so a load
grows quadratically. At 1M memories the snapshot's dict of compact forms took 6.3 s with the collector on
(docs/benchmarks.md, issue 22). Reference counting still frees what a load drops.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside (a nested pause leaves it to the outermost one to resume)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

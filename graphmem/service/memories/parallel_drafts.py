"""Bulk import: build the next batch's drafts in a worker process while this one writes the previous batch.

Drafting (spaCy tokenizer, graphmem's rules, salience, hashing) and writing (SQLite, the graph
projection) each take about half of a bulk import; on a 2-core machine overlapping them is worth
~1.5x. Small imports draft in-process: a worker costs a process start and a pipeline load, which
only pays off over thousands of observations. The process pool (``concurrent.futures.process``) is imported
when a worker starts: a server that never imports in bulk does not hold it (issue 26; ``multiprocessing`` itself
comes with spaCy's ``wasabi``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence

from graphmem.service.memories.drafts import Observation, build_drafts
from graphmem.store.drafts import MemoryDraft
from nlp import ConceptExtractor

__all__ = ["PARALLEL_THRESHOLD", "drafted_batches"]

PARALLEL_THRESHOLD = 4096  # observations; below this a worker's start-up costs more than it saves

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_worker_extractor: ConceptExtractor | None = None


def _start_worker(model: str, parent_pid: int) -> None:
    global _worker_extractor  # noqa: PLW0603 - one pipeline per worker process, loaded once
    _die_with_parent(parent_pid)
    _worker_extractor = ConceptExtractor(model)


def _die_with_parent(parent_pid: int) -> None:
    """A worker must not outlive its import: ``kill -9`` of the parent skips every cleanup, so the worker
    asks the Linux kernel for SIGKILL when its parent dies, and elsewhere watches its parent's pid."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) == 0 and os.getppid() == parent_pid:
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="graphmem-parent-watch", daemon=True).start()


def _draft(observations: Sequence[Observation]) -> list[MemoryDraft]:
    assert _worker_extractor is not None
    return build_drafts(_worker_extractor, observations)


def drafted_batches(extractor: ConceptExtractor, model: str, batches: Sequence[Sequence[Observation]],
                    workers: int) -> Iterator[list[MemoryDraft]]:
    """Yield each batch's drafts in order, computed ahead by ``workers`` processes when worth it."""
    total = sum(len(batch) for batch in batches)
    if workers <= 0 or total < PARALLEL_THRESHOLD:
        for batch in batches:
            yield build_drafts(extractor, batch)
        return
    # fork is cheap and shares the loaded code; with other threads running (the MCP server) only
    # spawn is safe.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if threading.active_count() == 1 else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                             initargs=(model, os.getpid())) as pool:
        yield from pool.map(_draft, batches)

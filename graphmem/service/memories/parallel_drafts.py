"""Bulk import: draft the batches in a worker process, each from the moment it is validated, while this one
validates the rest and then writes.

Drafting (spaCy tokenizer, graphmem's rules, salience, hashing) and writing (SQLite, the graph
projection) each take about half of a bulk import; on a 2-core machine overlapping them is worth
~1.5x. The worker starts on the first validated batch, so its start (spaCy's import, about 1.5 s of CPU) and
its first drafts run beside the validation of the rest, which writing waits for (all or nothing); it sends
back what it settled, not the observations it was sent. Small imports draft in-process: a worker costs a
process start and a pipeline load, which only pays off over thousands of observations. The process pool
(``concurrent.futures.process``) is imported when a worker starts: a server that never imports in bulk does not
hold it (issue 26; ``multiprocessing`` itself comes with spaCy's ``wasabi``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING

from graphmem.service.memories.drafts import Observation, build_drafts
from graphmem.store.drafts import MemoryDraft
from nlp import ConceptExtractor

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["PARALLEL_THRESHOLD", "Drafting", "drafting"]

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


# What a worker settles for one observation (the draft's fields but the observation, which the importer holds):
# pickling whole drafts sent every observation back, 0.013 ms a draft in the worker and 0.015 in the importer.
Settled = tuple[str, datetime, datetime, str, tuple[tuple[str, str, float, int], ...], tuple[tuple[str, str, int], ...]]


def _draft(observations: Sequence[Observation]) -> list[Settled]:
    assert _worker_extractor is not None
    return [(draft.id, draft.created_at, draft.valid_from, draft.content_hash, draft.mentions, draft.cooccurrences)
            for draft in build_drafts(_worker_extractor, observations)]


class Drafting:
    """The drafts of a bulk import's batches, in the order they were handed in (:func:`drafting`).

    :meth:`ahead` hands a batch over as soon as it is validated: with a worker, it begins drafting it at once,
    while this process validates the next ones (the worker starts on the first batch, so its start-up runs
    beside the validation too); in-process, the batch waits for :meth:`drafts`. :meth:`drafts` yields each
    batch's drafts in order."""

    def __init__(self, extractor: ConceptExtractor, pool: ProcessPoolExecutor | None) -> None:
        self._extractor = extractor
        self._pool = pool
        self._pending: deque[tuple[Sequence[Observation], Future[list[Settled]] | None]] = deque()

    def ahead(self, batch: Sequence[Observation]) -> None:
        self._pending.append((batch, self._pool.submit(_draft, batch) if self._pool is not None else None))

    def drafts(self) -> Iterator[list[MemoryDraft]]:
        while self._pending:
            batch, settled = self._pending.popleft()
            if settled is None:
                yield build_drafts(self._extractor, batch)
            else:
                yield [MemoryDraft(observation, *fields)
                       for observation, fields in zip(batch, settled.result(), strict=True)]


@contextmanager
def drafting(extractor: ConceptExtractor, model: str, total: int, workers: int) -> Iterator[Drafting]:
    """A :class:`Drafting` for an import of ``total`` observations, through ``workers`` processes when worth it.

    When the block raises (a bad record found while batches are being drafted), the drafts not begun are
    cancelled and the worker is let go without waiting for it: nothing has been written, and the caller's
    error is not held up by a draft it will never read."""
    if workers <= 0 or total < PARALLEL_THRESHOLD:
        yield Drafting(extractor, None)
        return
    # fork is cheap and shares the loaded code; with other threads running (the MCP server) only
    # spawn is safe.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if threading.active_count() == 1 else "spawn"
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                               initializer=_start_worker, initargs=(model, os.getpid()))
    try:
        yield Drafting(extractor, pool)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)

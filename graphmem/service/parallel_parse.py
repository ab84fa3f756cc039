"""Bulk import: parse the next batch in a worker process while this one writes the previous batch.

Parsing (spaCy tokenizer + graphmem's rules) and writing (SQLite) each take about half of a bulk
import; on a 2-core machine overlapping them is worth ~1.6x. Small imports parse in-process: a
worker costs a process start and a pipeline load (~1 s), which only pays off over thousands of
observations.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from nlp import ConceptExtractor, ParsedObservation

__all__ = ["PARALLEL_THRESHOLD", "parsed_batches"]

PARALLEL_THRESHOLD = 4096  # observations; below this a worker's start-up costs more than it saves

_worker_extractor: ConceptExtractor | None = None


def _start_worker(model: str) -> None:
    global _worker_extractor  # noqa: PLW0603 - one pipeline per worker process, loaded once
    _worker_extractor = ConceptExtractor(model)


def _parse(texts: list[str]) -> list[ParsedObservation]:
    assert _worker_extractor is not None
    return _worker_extractor.parse_many(texts)


def parsed_batches(extractor: ConceptExtractor, model: str, batches: Sequence[list[str]],
                   workers: int) -> Iterator[list[ParsedObservation]]:
    """Yield the parse of each batch in order, computed ahead by ``workers`` processes when worth it."""
    total = sum(len(batch) for batch in batches)
    if workers <= 0 or total < PARALLEL_THRESHOLD:
        for batch in batches:
            yield extractor.parse_many(batch)
        return
    # fork is cheap and shares the loaded code; with other threads running (the MCP server) only
    # spawn is safe.
    method = "fork" if threading.active_count() == 1 else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                             initargs=(model,)) as pool:
        yield from pool.map(_parse, batches)

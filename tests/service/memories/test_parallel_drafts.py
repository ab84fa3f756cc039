"""A bulk import drafted by a worker process stores exactly what an in-process import stores."""

from __future__ import annotations

import pytest

from graphmem import MemoryService, Settings
from graphmem.service.memories import parallel_drafts

RECORDS = [{"content": f"Worker {n} retried the webhook for order {n % 7} and hit HTTP 429 on `sync_{n % 5}`",
            "project": f"p{n % 3}"} for n in range(60)] + [{"content": "Worker 1 retried the webhook for order 1 "
                                                            "and hit HTTP 429 on `sync_1`", "project": "p1"}]


def _stored(new_store, extractor, workers: int) -> tuple[list[tuple[bool, tuple[str, ...]]], dict]:
    service = MemoryService(Settings.load(environ={}, db=new_store(f"w{workers}.db"), import_workers=workers),
                            extractor=extractor)
    results = service.store_many(RECORDS, batch_size=16)
    counts = service.repository.counts()
    outcome = [(r.duplicate, r.concepts) for r in results]
    hits = [h.content for h in service.search("webhook 429 sync_3", limit=5).hits]
    service.close()
    return outcome, {"counts": counts, "hits": hits}


def test_a_worker_drafted_import_equals_an_in_process_one(new_store, extractor, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(parallel_drafts, "PARALLEL_THRESHOLD", 10)
    in_process = _stored(new_store, extractor, workers=0)
    with_worker = _stored(new_store, extractor, workers=1)
    assert with_worker == in_process
    assert in_process[0][-1][0] is True  # the repeated record is a duplicate either way

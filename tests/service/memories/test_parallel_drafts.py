"""A bulk import drafted by a worker process stores exactly what an in-process import stores."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from graphmem import MemoryService, Settings
from graphmem.errors import InvalidInput
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
    with service.uow.engine.connect() as connection:  # the rows themselves, by content and key (not seq or id)
        rows = {name: [tuple(row) for row in connection.execute(text(sql))] for name, sql in _ROWS.items()}
    service.close()
    return outcome, {"counts": counts, "hits": hits, "rows": rows}


_ROWS = {
    "memory": "SELECT content, content_hash, kind, project, concept_count, session_id IS NULL FROM memory "
              "ORDER BY content, project",
    "concept": "SELECT key, kind, df FROM concept ORDER BY key",
    "mention": "SELECT m.content, m.project, c.key, n.weight, n.count FROM mention n JOIN memory m ON m.seq = "
               "n.memory_seq JOIN concept c ON c.seq = n.concept_seq ORDER BY 1, 2, 3",
    "concept_edge": "SELECT a.key, b.key, e.count FROM concept_edge e JOIN concept a ON a.seq = e.a_seq "
                    "JOIN concept b ON b.seq = e.b_seq ORDER BY 1, 2",
}


def test_a_worker_drafted_import_equals_an_in_process_one(new_store, extractor, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(parallel_drafts, "PARALLEL_THRESHOLD", 10)
    in_process = _stored(new_store, extractor, workers=0)
    with_worker = _stored(new_store, extractor, workers=1)
    assert with_worker == in_process
    assert all(in_process[1]["rows"].values())  # every table compared holds rows
    assert in_process[0][-1][0] is True  # the repeated record is a duplicate either way


def test_a_bad_record_after_batches_went_to_the_worker_leaves_the_store_unchanged(new_store, extractor,
                                                                                  monkeypatch: pytest.MonkeyPatch):
    """Each validated batch goes to the drafting worker at once, but nothing is written until every record is
    valid: a bad last record, found after the worker has begun, fails the import with the store as it was."""
    monkeypatch.setattr(parallel_drafts, "PARALLEL_THRESHOLD", 10)
    service = MemoryService(Settings.load(environ={}, db=new_store("bad.db"), import_workers=1), extractor=extractor)
    service.store("Kept before the import: the webhook queue drains nightly")
    before = service.repository.counts()
    handed: list[int] = []
    ahead = parallel_drafts.Drafting.ahead

    def counting(self: parallel_drafts.Drafting, batch: list) -> None:
        handed.append(len(batch))
        ahead(self, batch)

    monkeypatch.setattr(parallel_drafts.Drafting, "ahead", counting)
    with pytest.raises(InvalidInput, match="record 62: "):
        service.store_many([*RECORDS, {"content": ""}], batch_size=16)
    assert handed == [16, 16, 16]  # three batches were drafting when the fourth turned out bad
    assert service.repository.counts() == before
    assert [hit.content for hit in service.search("webhook queue", limit=5).hits] == [
        "Kept before the import: the webhook queue drains nightly"]
    service.close()


def test_an_import_drafted_in_process_takes_its_batches_in_order(new_store, extractor):
    service = MemoryService(Settings.load(environ={}, db=new_store("small.db"), import_workers=1), extractor=extractor)
    results = service.store_many(iter(RECORDS), batch_size=7)  # any iterable, below the worker's threshold
    assert [r.duplicate for r in results] == [False] * 60 + [True]
    assert results[-1].id == results[1].id
    service.close()

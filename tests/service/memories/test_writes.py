"""The bulk import's garbage-collector freeze (service/memories/writes.py): on while the batches are written,
off afterwards, also when a batch fails."""

from __future__ import annotations

import gc

import pytest
from sqlalchemy.exc import OperationalError

from graphmem import MemoryService
from graphmem.errors import StorageError
from graphmem.service.memories import writes

RECORDS = [{"content": f"Rotate the signing key of service {name} every quarter"}
           for name in ("alpha", "beta", "gamma")]


def test_a_bulk_import_freezes_the_collector_only_while_it_writes(service: MemoryService):
    frozen_during: list[int] = []
    results = service.store_many(RECORDS, batch_size=1, on_progress=lambda _done: frozen_during.append(
        gc.get_freeze_count()))
    assert len(results) == 3 and len(frozen_during) == 3
    assert all(count > 0 for count in frozen_during)
    assert gc.get_freeze_count() == 0


def test_a_failed_batch_leaves_the_collector_unfrozen(service: MemoryService, monkeypatch: pytest.MonkeyPatch):
    calls = []

    def fail_second(*_args: object, **_kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise OperationalError("INSERT INTO memory", {}, Exception("disk I/O error"))
        return original(*_args, **_kwargs)

    original = writes.insert_memories
    monkeypatch.setattr(writes, "insert_memories", fail_second)
    with pytest.raises(StorageError):
        service.store_many(RECORDS, batch_size=1)
    assert len(calls) == 2
    assert gc.get_freeze_count() == 0
    assert service.status()["memories"] == 1  # the first batch committed on its own

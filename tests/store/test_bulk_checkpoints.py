"""A bulk import on SQLite checkpoints its WAL every ``BULK_CHECKPOINT_PAGES`` pages on the importing thread's
connections, and every connection has SQLite's interval back once the import is done (a single store's commits
keep the default, docs/configuration.md)."""

from __future__ import annotations

import threading
from pathlib import Path

from graphmem import MemoryService, Settings
from graphmem.service.memories import writes
from graphmem.store.bulk_checkpoints import BULK_CHECKPOINT_PAGES, DEFAULT_CHECKPOINT_PAGES, sparse_checkpoints


def _interval(connection) -> int:
    return int(connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar())


def _records(count: int) -> list[dict[str, str]]:
    return [{"content": f"the ledger service {number} retries webhook {number * 7} twice", "project": "api"}
            for number in range(count)]


def test_an_import_checkpoints_sparsely_and_every_connection_gets_the_default_back(tmp_path: Path, extractor,
                                                                                   monkeypatch):
    service = MemoryService(Settings(db=str(tmp_path / "store.db")), extractor=extractor)
    seen: list[int] = []
    insert = writes.MemoryWrites.insert

    def watched(self, observations, drafts=None):
        with self.uow.engine.connect() as connection:  # what a connection of the importing thread has now
            seen.append(_interval(connection))
        return insert(self, observations, drafts)

    monkeypatch.setattr(writes.MemoryWrites, "insert", watched)
    try:
        stored = service.store_many(_records(40), batch_size=16)
        assert len(stored) == 40 and seen == [BULK_CHECKPOINT_PAGES] * 3
        monkeypatch.setattr(writes.MemoryWrites, "insert", insert)
        single = service.store("the ledger service pages the on-call engineer")
        assert single.id
        engine = service.uow.engine
        held = [engine.connect() for _ in range(3)]  # every pooled connection, and a new one
        try:
            assert [_interval(connection) for connection in held] == [DEFAULT_CHECKPOINT_PAGES] * 3
        finally:
            for connection in held:
                connection.close()
        assert service.search("ledger webhook", project="api").hits  # the store reads what it imported
    finally:
        service.close()


def test_only_the_importing_thread_gets_the_sparse_interval(tmp_path: Path, extractor):
    service = MemoryService(Settings(db=str(tmp_path / "store.db")), extractor=extractor)
    engine = service.uow.engine
    other: list[int] = []
    try:
        with sparse_checkpoints(engine):
            with engine.connect() as mine:
                assert _interval(mine) == BULK_CHECKPOINT_PAGES

            def elsewhere() -> None:
                with engine.connect() as connection:
                    other.append(_interval(connection))

            thread = threading.Thread(target=elsewhere)
            thread.start()
            thread.join()
        assert other == [DEFAULT_CHECKPOINT_PAGES]
    finally:
        service.close()


def test_an_in_memory_store_is_left_as_it_is(extractor):
    service = MemoryService(Settings(db=":memory:"), extractor=extractor)
    try:
        with sparse_checkpoints(service.uow.engine), service.uow.engine.connect() as connection:
            assert _interval(connection) == DEFAULT_CHECKPOINT_PAGES
    finally:
        service.close()

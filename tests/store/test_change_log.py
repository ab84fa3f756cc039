"""The change log stays bounded, and a reader the pruning left behind still ends up current."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from graphmem import MemoryService, Settings
from graphmem.store import changes
from tests.conftest import ORDERS, WEBHOOK

TEXTS = [WEBHOOK, ORDERS, "Redis holds the session storage for the web app",
         "Zebra-striped canary deploys use the flamingo feature flag service",
         "Never retry a non-idempotent POST to a downstream service",
         "The billing worker reads invoices from the ledger queue",
         "Alembic migrations run before the API container starts"]


@pytest.fixture(autouse=True)
def short_log(monkeypatch):
    monkeypatch.setattr(changes, "KEEP_GENERATIONS", 3)
    monkeypatch.setattr(changes, "PRUNE_EVERY", 2)


def _open(db: Path, extractor) -> MemoryService:
    return MemoryService(Settings.load(db=str(db), environ={}), extractor=extractor)


def _log(service: MemoryService) -> list[int]:
    with service.engine.connect() as connection:
        return [row[0] for row in connection.execute(text("SELECT generation FROM change_log ORDER BY seq"))]


def _reloads(service: MemoryService, monkeypatch) -> list[int]:
    calls: list[int] = []
    original = service.projection.reload

    def counted(engine):
        calls.append(1)
        return original(engine)

    monkeypatch.setattr(service.projection, "reload", counted)
    return calls


def test_the_log_keeps_only_the_newest_generations(tmp_path, extractor):
    writer = _open(tmp_path / "memory.db", extractor)
    for content in TEXTS:
        writer.store(content, project="p")
    kept = _log(writer)
    assert kept and kept[-1] == writer.uow.generation
    assert min(kept) > writer.uow.generation - 3 - 2  # pruned on every second write to the newest three
    writer.close()


def test_a_reader_behind_the_pruned_log_rebuilds_and_sees_every_write(tmp_path, extractor, monkeypatch):
    db = tmp_path / "memory.db"
    writer, reader = _open(db, extractor), _open(db, extractor)
    reloads = _reloads(reader, monkeypatch)
    ids = [writer.store(content, project="p").id for content in TEXTS]
    assert min(_log(writer)) > reader.uow.generation + 1  # what the reader needs is gone from the log

    found = reader.search("flamingo canary deploys", project="p").hits
    assert reloads == [1]
    assert found and found[0].id == ids[3]
    assert set(reader.projection.memory_nodes) == set(writer.projection.memory_nodes)
    assert reader.uow.generation == writer.uow.generation
    writer.close()
    reader.close()


def test_a_reader_that_keeps_up_follows_without_a_rebuild(tmp_path, extractor, monkeypatch):
    db = tmp_path / "memory.db"
    writer, reader = _open(db, extractor), _open(db, extractor)
    reloads = _reloads(reader, monkeypatch)
    for content in TEXTS:
        stored = writer.store(content, project="p")
        assert stored.id in {hit.id for hit in reader.search(content, project="p").hits}
    assert reloads == []
    writer.close()
    reader.close()


def test_a_write_bumps_the_generation_and_logs_its_changes_even_after_the_row_was_deleted(service):
    """The generation bump and the change-log rows, on both databases (on SQLite they go through the driver's
    cursor): the row is recreated when someone deleted it, and each write logs what it changed."""
    import json

    with service.uow.engine.begin() as connection:
        connection.execute(text("DELETE FROM store_generation"))
    first = service.store(ORDERS).id
    second = service.store(WEBHOOK).id
    with service.uow.engine.connect() as connection:
        assert connection.execute(text("SELECT generation FROM store_generation")).scalar_one() == 2
        logged = connection.execute(text(
            "SELECT generation, kind, refs, at FROM change_log ORDER BY generation, kind")).all()
    memories = [(row[0], row[2] if isinstance(row[2], list) else json.loads(row[2]))  # PostgreSQL's json: a list
                for row in logged if row[1] == changes.MEMORIES]
    assert memories == [(1, [first]), (2, [second])]
    assert all(isinstance(row[3], int) and row[3] > 0 for row in logged)
    assert service.uow.generation == 2

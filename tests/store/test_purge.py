"""A hard delete leaves the deleted words nowhere in the database file's bytes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

WORD = "quokkafrobnicate"


def _file_bytes(db: Path) -> bytes:
    return b"".join(path.read_bytes() for path in db.parent.glob(db.name + "*"))


def _old(service, content: str) -> str:
    created = (datetime.now(UTC) - timedelta(days=400)).isoformat()
    return service.store_many([{"content": content, "created_at": created}])[0].id


@pytest.mark.sqlite_only("reads the SQLite file's bytes (secure_delete, FTS5 segments)")
def test_prune_delete_removes_text_index_terms_and_unused_concepts_from_the_file(service, settings):
    db = Path(settings.db)
    _old(service, f"The {WORD} service rotates keys nightly with zanzibarquux")
    service.store("The billing service rotates invoices nightly")
    service.uow.engine.dispose()  # every page on disk, as a long-running server's file would be
    assert WORD.encode() in _file_bytes(db)
    report = service.lifecycle.prune("30d", dry_run=False, mode="delete", protect=[])
    assert report.count == 1
    data = _file_bytes(db)
    assert WORD.encode() not in data and b"zanzibarquux" not in data
    with service.engine.connect() as connection:
        keys = {row[0] for row in connection.execute(text("SELECT key FROM concept"))}
    assert not any(WORD in key for key in keys) and "invoice" in keys and "service" in keys
    assert service.search("billing invoices").hits


def test_a_concept_another_memory_uses_survives_the_delete(service):
    _old(service, "Kafka consumer lag alert fired")
    service.store("Kafka topic retention is seven days")
    service.lifecycle.prune("30d", dry_run=False, mode="delete", protect=[])
    with service.engine.connect() as connection:
        keys = {row[0] for row in connection.execute(text("SELECT key FROM concept"))}
    assert "kafka" in keys and "lag" not in " ".join(keys)

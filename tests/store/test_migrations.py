"""Schema migrations: a store written by schema version 1, with data, opens under today's graphmem on
SQLite and PostgreSQL with every row intact; the revisions build exactly ``tables.py``; newer is refused.

The version 1 store is built the way version 1 wrote it: revision 0001 (a frozen copy of version 1's tables)
and the rows of ``fixtures/v1_store.sql``, which a version 1 graphmem wrote (portable INSERTs).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

from graphmem import MemoryService, Settings
from graphmem.errors import StorageError
from graphmem.store import migrations
from graphmem.store.engine import database_url, open_engine
from graphmem.store.tables import SCHEMA_VERSION

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "v1_store.sql"
V1_TABLES = ("memory", "concept", "mention", "concept_edge", "relation", "session", "prompt", "fact", "metric")


def _config(connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations.SCRIPTS))
    config.attributes["connection"] = connection
    return config


def write_v1_store(url: str) -> dict[str, int]:
    """Build a schema version 1 store with data at ``url``; return its row count per table."""
    engine = create_engine(url)
    with engine.begin() as connection:
        command.upgrade(_config(connection), "0001")
        for line in FIXTURE.read_text(encoding="utf-8").splitlines():
            if line.startswith("INSERT"):  # one statement a line; a colon in the data is no bind parameter
                connection.execute(text(line.replace(":", "\\:")))
        if connection.dialect.name == "postgresql":  # serial columns as version 1 left them: past their rows
            for table in ("memory", "concept"):
                connection.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'seq'), "
                                        f"(SELECT max(seq) FROM {table}))"))
        counts = {table: connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                  for table in V1_TABLES}
        connection.execute(text("DROP TABLE alembic_version"))  # version 1 did not know Alembic
    engine.dispose()
    return counts


def _check_migrated(url: str, counts: dict[str, int], extractor) -> None:
    service = MemoryService(Settings.load(db=url, environ={}), extractor=extractor)
    try:
        with service.engine.connect() as connection:
            after = {table: connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                     for table in V1_TABLES}
            ids = list(connection.execute(text("SELECT id FROM memory ORDER BY seq")).scalars())
            assert connection.execute(text("SELECT generation FROM store_generation WHERE id = 1")).scalar() == 0
            assert connection.execute(text("SELECT count(*) FROM change_log")).scalar() == 0
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == migrations.HEAD
            if connection.dialect.name == "postgresql":  # version 1's tsvector and GIN index, dropped by 0005
                assert connection.execute(text(
                    "SELECT count(*) FROM pg_attribute WHERE attrelid = 'memory'::regclass AND attname = 'fts' "
                    "AND NOT attisdropped")).scalar() == 0
                assert connection.execute(text(
                    "SELECT count(*) FROM pg_indexes WHERE indexname = 'ix_memory_fts'")).scalar() == 0
        assert after == counts and counts["memory"] == 4 and counts["prompt"] == 1
        assert counts["relation"] == 2 and counts["fact"] == 2 and counts["session"] == 2
        opened = service.open(ids)
        assert [m.id for m in opened.memories] == ids and not opened.not_found
        assert len(opened.relations) == counts["relation"]
        assert [f.object for f in service.facts.timeline("alice").facts] == ["globex", "initech"]
        assert service.search("idempotency key").hits  # the rows came through to the keyword index
        assert service.status()["memories"] == 4
        assert not service.store("A memory written after the upgrade").duplicate  # ids and seqs continue
    finally:
        service.close()
    engine = open_engine(url)  # a current store opens again without migrating
    with engine.connect() as connection:
        version = connection.execute(text("SELECT value FROM graphmem_meta WHERE key = 'schema_version'"))
        assert version.scalar() == str(SCHEMA_VERSION)
    engine.dispose()


def test_a_version_1_sqlite_store_with_data_is_upgraded_on_open_and_keeps_every_row(tmp_path, extractor,
                                                                                    capsys):
    url = database_url(str(tmp_path / "v1.db"))
    counts = write_v1_store(url)
    _check_migrated(url, counts, extractor)
    assert "upgrading the store" in capsys.readouterr().err


@pytest.mark.postgres
def test_a_version_1_postgresql_store_with_data_is_upgraded_on_open_and_keeps_every_row(pg_url, extractor):
    counts = write_v1_store(pg_url)
    _check_migrated(pg_url, counts, extractor)


def _schema_drift(url: str) -> list[object]:
    """What differs between the store's tables and ``tables.py`` (the full-text index aside)."""
    engine = create_engine(url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diffs = compare_metadata(context, SQLModel.metadata)
    engine.dispose()
    return [d for d in diffs if "fts" not in repr(d) and "alembic_version" not in repr(d)]


def test_the_migrations_build_exactly_the_tables_a_new_store_gets(tmp_path):
    migrated = database_url(str(tmp_path / "migrated.db"))
    write_v1_store(migrated)
    open_engine(migrated).dispose()
    fresh = database_url(str(tmp_path / "fresh.db"))
    open_engine(fresh).dispose()
    assert _schema_drift(migrated) == [] and _schema_drift(fresh) == []


@pytest.mark.postgres
def test_the_migrations_build_exactly_the_tables_on_postgresql(pg_url):
    write_v1_store(pg_url)
    open_engine(pg_url).dispose()
    assert _schema_drift(pg_url) == []


def test_the_schema_version_and_the_alembic_head_move_together():
    head = ScriptDirectory(str(migrations.SCRIPTS)).get_current_head()
    assert head == migrations.HEAD == f"{SCHEMA_VERSION:04d}"


def test_a_store_newer_than_this_graphmem_is_refused_and_left_untouched(tmp_path):
    db = str(tmp_path / "newer.db")
    open_engine(db).dispose()
    engine = create_engine(database_url(db))
    with engine.begin() as connection:
        connection.execute(text("UPDATE graphmem_meta SET value = :v WHERE key = 'schema_version'"),
                           {"v": str(SCHEMA_VERSION + 1)})
    engine.dispose()
    with pytest.raises(StorageError, match=f"schema version {SCHEMA_VERSION + 1} is newer than this graphmem"):
        open_engine(db)


@pytest.mark.parametrize("store", ["new", "version 1"])
def test_processes_opening_one_store_at_once_build_or_upgrade_it_once(tmp_path, store):
    url = database_url(str(tmp_path / "shared.db"))
    counts = write_v1_store(url) if store == "version 1" else {}
    opener = "import sys; from graphmem.store.engine import open_engine; open_engine(sys.argv[1]).dispose()"
    processes = [subprocess.Popen([sys.executable, "-c", opener, url], stderr=subprocess.PIPE, text=True)
                 for _ in range(4)]
    errors = [process.communicate(timeout=120)[1] for process in processes]
    assert [process.returncode for process in processes] == [0] * 4, errors
    assert sum("upgrading the store" in error for error in errors) == (1 if counts else 0)
    engine = create_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [
            migrations.HEAD]
        for table, count in counts.items():
            assert connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one() == count
    engine.dispose()

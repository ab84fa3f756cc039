"""Where the store lives and how it is opened: WAL SQLite by default, any URL, FTS5, the schema version."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from graphmem import MemoryService, Settings
from graphmem.errors import InvalidInput, StorageError
from graphmem.settings import store_location
from graphmem.store.engine import database_url, open_engine, read_connection
from graphmem.store.tables import SCHEMA_VERSION
from tests.conftest import ORDERS, WEBHOOK, indexed_documents


@pytest.mark.sqlite_only("WAL is a property of the SQLite file")
def test_the_default_sqlite_file_is_in_wal_mode(service, settings):
    with service.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    # WAL is a property of the file, so any other reader (another process) sees it too.
    with sqlite3.connect(settings.db) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_without_a_named_store_settings_use_the_nearest_project_store_up_the_tree(tmp_path, monkeypatch):
    (tmp_path / ".graphmem").mkdir()
    (tmp_path / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "deep")
    monkeypatch.delenv("GRAPHMEM_HOME", raising=False)
    settings = Settings.load(environ={})
    assert settings.db == str(tmp_path / ".graphmem" / "memory.db")
    assert store_location(settings).source == "project"


def test_graphmem_db_takes_a_path_or_a_database_url(tmp_path):
    path = tmp_path / "nested" / "memory.db"
    assert Settings.load(environ={"GRAPHMEM_DB": str(path)}).db == str(path)
    assert database_url(str(path)) == f"sqlite:///{path}"
    assert database_url("~/memory.db") == f"sqlite:///{Path.home() / 'memory.db'}"
    url = "postgresql+psycopg://graphmem:secret@db.internal:5432/memory"
    assert database_url(Settings.load(environ={"GRAPHMEM_DB": url}).db) == url
    assert database_url(":memory:") == "sqlite://"


@pytest.mark.sqlite_only("a SQLite file's folder")
def test_a_path_in_a_missing_folder_is_an_error_naming_it_and_creates_nothing(tmp_path):
    db = tmp_path / "a" / "b" / "memory.db"
    with pytest.raises(StorageError, match=f"directory {tmp_path / 'a' / 'b'} does not exist"):
        open_engine(f"sqlite:///{db}")
    assert not (tmp_path / "a").exists()


@pytest.mark.sqlite_only("SQLite's in-memory database shared by threads (StaticPool)")
@pytest.mark.parametrize("db", [":memory:", "sqlite:///:memory:"])
def test_an_in_memory_store_is_one_database_for_every_thread(db, extractor):
    memory = MemoryService(Settings.load(db=db, environ={}), extractor=extractor)
    stored = memory.store(WEBHOOK)
    found: list[object] = []
    # The MCP server may run a tool on a worker thread; it must see the same in-memory database.
    worker = threading.Thread(target=lambda: found.append(memory.search("idempotency key")))
    worker.start()
    worker.join()
    assert [hit.id for hit in found[0].hits] == [stored.id]


@pytest.mark.sqlite_only("the store's FTS5 index: a PostgreSQL store keeps none (tests/store/test_postgres.py)")
def test_the_full_text_index_follows_every_insert(service):
    first = service.store(WEBHOOK)
    assert _bm25_ids(service, "webhook") == [first.id]
    second = service.store(ORDERS)
    assert _bm25_ids(service, "orders") == [second.id]
    assert set(_bm25_ids(service, "idempotency")) == {first.id, second.id}
    service.store("  " + ORDERS.upper())  # a duplicate adds no row to the index
    with service.engine.connect() as connection:
        indexed = indexed_documents(connection)
        stored = connection.execute(text("SELECT count(*) FROM memory")).scalar()
    assert indexed == stored == 2


def test_the_schema_version_is_recorded(service):
    with service.engine.connect() as connection:
        version = connection.execute(
            text("SELECT value FROM graphmem_meta WHERE key = 'schema_version'")).scalar()
    assert version == str(SCHEMA_VERSION)


def test_a_database_from_a_newer_schema_is_refused_with_a_clear_error(tmp_path):
    db = str(tmp_path / "newer.db")
    open_engine(db).dispose()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE graphmem_meta SET value = ? WHERE key = 'schema_version'",
                    (str(SCHEMA_VERSION + 1),))
    expected = rf"schema version {SCHEMA_VERSION + 1} is newer .*\({SCHEMA_VERSION}\)"
    with pytest.raises(StorageError, match=expected):
        open_engine(db)


def test_an_unopenable_database_is_a_storage_error_that_hides_the_password(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="cannot open database"):
        open_engine(str(blocker / "memory.db"))
    with pytest.raises(StorageError, match="cannot open database"):
        open_engine(str(blocker))  # a file that is not a SQLite database
    with pytest.raises(InvalidInput, match="unsupported database URL nosuchdialect://user:") as refused:
        open_engine("nosuchdialect://user:secret@host/db")  # one line naming what graphmem stores in
    assert "secret" not in str(refused.value)


def _bm25_ids(service: MemoryService, query: str) -> list[str]:
    seqs = [seq for seq, _ in service.repository.bm25(query, 10)]
    return [service.repository.memories_by_seq(seqs)[seq].id for seq in seqs]



def _in_transaction(dbapi_connection: object) -> bool:
    info = getattr(dbapi_connection, "info", None)  # psycopg: the server's own view of the session
    if info is not None and hasattr(info, "transaction_status"):
        import psycopg

        return bool(info.transaction_status != psycopg.pq.TransactionStatus.IDLE)
    return bool(dbapi_connection.in_transaction)  # type: ignore[attr-defined]  # sqlite3


def _one_connection_engine(new_store) -> object:
    from sqlalchemy import create_engine

    db = new_store("single.db")
    open_engine(db).dispose()  # the schema
    return create_engine(database_url(db), pool_size=1, max_overflow=0)  # one connection: the same one again


def test_a_read_connection_begins_no_transaction_and_leaves_the_pool_as_it_was(new_store):
    engine = _one_connection_engine(new_store)
    try:
        with read_connection(engine) as connection:
            assert connection.exec_driver_sql("SELECT generation FROM store_generation WHERE id = 1").scalar() == 0
            dbapi_connection = connection.connection.dbapi_connection
            if engine.dialect.name == "postgresql":  # no BEGIN went to the server: one round trip
                assert not _in_transaction(dbapi_connection)
        with engine.connect() as connection:  # the connection back in the pool opens transactions again
            connection.execute(text("SELECT 1"))
            assert connection.in_transaction()
            assert _in_transaction(connection.connection.dbapi_connection) == (engine.dialect.name == "postgresql")
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_read_on_a_lost_server_connection_is_a_database_error_and_the_pool_drops_it(postgres_server, pg_template):
    from sqlalchemy import create_engine
    from sqlalchemy.exc import DBAPIError

    from tests.postgres import new_database

    engine = create_engine(f"{postgres_server}/{new_database(postgres_server, pg_template)}", pool_size=1,
                           max_overflow=0)
    try:
        with read_connection(engine) as connection:
            backend = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        other = create_engine(engine.url)
        with other.connect() as admin:  # another session ends the pooled one, as a restarted server would
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
        other.dispose()
        # The replica fallback (store/replicas.py) catches DBAPIError: a raw driver error would escape it.
        with pytest.raises(DBAPIError), read_connection(engine) as connection:
            connection.exec_driver_sql("SELECT 1")
        with read_connection(engine) as connection:  # a fresh connection, not the dead one
            assert connection.exec_driver_sql("SELECT 1").scalar() == 1
    finally:
        engine.dispose()

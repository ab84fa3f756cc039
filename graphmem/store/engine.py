"""Engine creation: a SQLite file in WAL mode by default, any SQLAlchemy URL otherwise."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine, select

from graphmem.errors import StorageError
from graphmem.store import fulltext
from graphmem.store.tables import SCHEMA_VERSION, MetaRow

__all__ = ["WRITE_OPTION", "WRITE_WAIT_S", "database_url", "describe_store", "open_engine", "snapshot"]

# How long a write waits for another process's write lock before it fails with a plain message.
# Imports commit in batches that hold the lock well under a second, so a longer wait means a stuck writer.
WRITE_WAIT_S = 30
# Execution option that marks a connection's transaction as a write (see _sqlite_begin).
WRITE_OPTION = "graphmem_write"

# Both spellings name a private in-memory database; each needs the one shared connection below.
_SQLITE_MEMORY_URLS = frozenset({"sqlite://", "sqlite:///:memory:"})


def database_url(db: str) -> str:
    """``GRAPHMEM_DB`` → SQLAlchemy URL: a URL passes through, anything else is a SQLite path.

    >>> database_url("postgresql+psycopg://u@h/db")
    'postgresql+psycopg://u@h/db'
    >>> database_url(":memory:")
    'sqlite://'
    """
    if "://" in db:
        return db
    if db in {":memory:", ""}:
        return "sqlite://"
    return f"sqlite:///{Path(db).expanduser()}"


def open_engine(db: str) -> Engine:
    """Create the engine, the schema and the full-text index; record the schema version.

    Raises
    ------
    StorageError
        If the database cannot be opened or was written by a newer graphmem schema.
    """
    url = database_url(db)
    try:
        engine = create_engine(url, **_engine_options(url))
    except (SQLAlchemyError, OSError) as error:
        masked = re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:***@", url)
        raise StorageError(f"cannot open database {masked}: {_first_line(error)}") from error
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
    try:
        _refuse_newer_schema(engine)  # before create_all: never add tables to a schema we do not know
        SQLModel.metadata.create_all(engine)
        fulltext.ensure_index(engine)
        _record_schema_version(engine)
    except SQLAlchemyError as error:
        engine.dispose()
        shown = engine.url.render_as_string()  # hides the password
        raise StorageError(f"cannot open database {shown}: {_first_line(error)}") from error
    return engine


@contextmanager
def snapshot(engine: Engine) -> Iterator[Connection]:
    """A read-only connection whose queries all see one committed state of the store.

    SQLite: the deferred ``BEGIN`` (see :func:`_sqlite_begin`) pins one WAL snapshot at the first read.
    PostgreSQL: REPEATABLE READ, one snapshot for the whole transaction.
    """
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="REPEATABLE READ")  # in place, reset on release
        with connection.begin():
            yield connection


def describe_store(engine: Engine) -> str:
    """The store an engine opens, as a user would name it: a file path, or a URL without its password."""
    if engine.dialect.name == "sqlite":
        return engine.url.database or ":memory:"
    return engine.url.render_as_string(hide_password=True)


def _engine_options(url: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False}
        if url in _SQLITE_MEMORY_URLS:
            kwargs["poolclass"] = StaticPool  # one shared in-memory database, as in SQLModel's test guide
        else:
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    return kwargs


def _first_line(error: BaseException) -> str:
    return f"{error.__class__.__name__}: {(str(error).splitlines() or [''])[0]}"


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    # WAL keeps the MCP server's reads unblocked while a CLI import writes (its graph projection sees
    # the new rows after a restart); NORMAL sync is durable at checkpoint
    # and several times faster for bulk import than FULL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    # A hard delete must not leave the deleted text readable in freed pages (docs/security.md).
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.execute(f"PRAGMA busy_timeout={WRITE_WAIT_S * 1000}")
    cursor.close()
    # graphmem emits BEGIN itself (below), SQLAlchemy's documented recipe: the driver's own
    # transaction handling never starts one before a SELECT, so a multi-query read had no snapshot.
    connection.isolation_level = None


def _sqlite_begin(connection: Any) -> None:
    # Reads get a deferred BEGIN: one WAL snapshot for every query of the transaction (the projection
    # load reads six tables). Writes ask for IMMEDIATE: they take the write lock before their first
    # read, so a read-then-write transaction never fails with SQLITE_BUSY_SNAPSHOT when another
    # process committed in between, and two stores of one text queue instead of both inserting.
    immediate = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _refuse_newer_schema(engine: Engine) -> None:
    if not inspect(engine).has_table(MetaRow.__tablename__):
        return
    with Session(engine) as session:
        row = session.exec(select(MetaRow).where(MetaRow.key == "schema_version")).first()
    if row is not None and int(row.value) > SCHEMA_VERSION:
        # A typed error, so the CLI prints one line and the MCP server refuses to start cleanly,
        # instead of writing rows an older schema does not know about.
        engine.dispose()
        raise StorageError(f"database schema version {row.value} is newer than this graphmem supports "
                           f"({SCHEMA_VERSION}); upgrade graphmem to open {engine.url.render_as_string()}")


def _record_schema_version(engine: Engine) -> None:
    with Session(engine) as session:
        if session.get(MetaRow, "schema_version") is None:
            session.add(MetaRow(key="schema_version", value=str(SCHEMA_VERSION)))
            session.commit()

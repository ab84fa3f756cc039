"""Engine creation: a SQLite file in WAL mode by default, any SQLAlchemy URL otherwise."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import delete, event, insert, inspect, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import SQLModel, col, create_engine

from graphmem.errors import StorageError
from graphmem.settings import check_database_url, masked
from graphmem.store import fulltext, migrations
from graphmem.store.bulk_checkpoints import dense_again_at_checkin
from graphmem.store.tables import SCHEMA_VERSION, MetaRow, StoreGenerationRow

__all__ = [
    "SCHEMA_VERSION", "WRITE_OPTION", "WRITE_WAIT_S", "database_url", "describe_store", "open_engine",
    "open_replica", "read_connection", "snapshot", "store_exists",
]

# How long a write waits for another process's write lock before it fails with a plain message.
# Imports commit in batches that hold the lock well under a second, so a longer wait means a stuck writer.
WRITE_WAIT_S = 30
# Execution option that marks a connection's transaction as a write (see _sqlite_begin).
WRITE_OPTION = "graphmem_write"

# Both spellings name a private in-memory database; each needs the one shared connection below.
_SQLITE_MEMORY_URLS = frozenset({"sqlite://", "sqlite:///:memory:"})
# PostgreSQL advisory lock key that serializes building or upgrading a store's schema ("graphmem" in ASCII).
_SCHEMA_LOCK = 0x67726170686D656D


def database_url(db: str) -> str:
    """``GRAPHMEM_DB`` → SQLAlchemy URL: a URL passes through, anything else is a SQLite path.

    >>> database_url("postgresql+psycopg://u@h/db")
    'postgresql+psycopg://u@h/db'
    >>> database_url(":memory:")
    'sqlite://'

    Raises
    ------
    InvalidInput
        If the URL names a database graphmem does not store in (one line naming the supported ones).
    """
    if "://" in db:
        return check_database_url(db)
    if db in {":memory:", ""}:
        return "sqlite://"
    return f"sqlite:///{Path(db).expanduser()}"


def open_engine(db: str) -> Engine:
    """Create the engine; build a new store's schema, or upgrade an older one (docs/configuration.md).

    A new store gets the current tables, the full-text index and the Alembic stamp at once. A store at an
    older schema version is migrated (one stderr line says so). A current store costs one query.

    Raises
    ------
    StorageError
        If the database cannot be opened or was written by a newer graphmem schema.
    """
    url = database_url(db)
    try:
        engine = create_engine(url, **_engine_options(url))
    except (SQLAlchemyError, OSError) as error:
        raise StorageError(f"cannot open database {masked(url)}: {_first_line(error)}") from error
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        event.listen(engine, "checkin", dense_again_at_checkin)  # store/bulk_checkpoints.py
    try:
        _ensure_schema(engine)
    except SQLAlchemyError as error:
        engine.dispose()
        shown = engine.url.render_as_string()  # hides the password
        raise StorageError(f"cannot open database {shown}: {_first_line(error)}") from error
    return engine


def open_replica(db: str) -> Engine:
    """An engine on a PostgreSQL streaming replica of the store (``replica_db``): read-only, so nothing is built
    or upgraded there; the primary's :func:`open_engine` did that, and the replica replays it.

    Raises
    ------
    StorageError
        If the URL is not PostgreSQL, the replica cannot be reached, or it holds no graphmem store at this
        schema version (a replica still replaying an upgrade: try again once it has caught up).
    """
    url = database_url(db)
    if not url.startswith("postgresql"):
        raise StorageError(f"the replica {masked(url)} must be a PostgreSQL streaming replica "
                           "(postgresql+psycopg://user@host/db)")
    try:
        engine = create_engine(url)
        with engine.connect() as connection:
            version = _stored_version(connection)
    except SQLAlchemyError as error:
        raise StorageError(f"cannot open the replica {masked(url)}: {_first_line(error)}") from error
    if version != SCHEMA_VERSION:
        engine.dispose()
        found = "no graphmem store" if version is None else f"schema version {version}"
        raise StorageError(f"the replica {masked(url)} holds {found}, the primary {SCHEMA_VERSION}; "
                           "is it a replica of the primary, and has it caught up?")
    return engine


def store_exists(db: str) -> bool:
    """Whether the database ``db`` names already holds a graphmem store (its meta table); nothing is written.

    Raises
    ------
    StorageError
        If the database cannot be reached.
    """
    url = database_url(db)
    try:
        engine = create_engine(url, **_engine_options(url))
    except (SQLAlchemyError, OSError) as error:
        raise StorageError(f"cannot open database {masked(url)}: {_first_line(error)}") from error
    try:
        with engine.connect() as connection:
            return inspect(connection).has_table(MetaRow.__tablename__)
    except SQLAlchemyError as error:
        raise StorageError(f"cannot open database {masked(url)}: {_first_line(error)}") from error
    finally:
        engine.dispose()


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


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """A pooled connection for reads that need no snapshot across their statements (a page of hits, the
    memories and relations a composition shows, the freshness check).

    On PostgreSQL it is in autocommit for the checkout: each read is one round trip to the server, where a
    transaction added two (``BEGIN`` before the first statement, the ``ROLLBACK`` that returns the connection to
    the pool), and on a loaded machine each round trip waits for the server's process and then this one to be
    scheduled again (milliseconds per call, docs/benchmarks.md section 8a). It changes no result: in READ
    COMMITTED, PostgreSQL's default and graphmem's, every statement reads its own snapshot anyway (a read that
    needs one snapshot uses :func:`snapshot`). On SQLite, whose reads never leave the process, it is
    ``engine.connect()``.

    Run a hot read's own SQL with ``exec_driver_sql``, not on the DB-API cursor: SQLAlchemy then still turns a
    lost server into a ``DBAPIError`` and drops the dead connection from the pool (the replica fallback relies on
    both).
    """
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            connection.execution_options(isolation_level="AUTOCOMMIT")  # a client-side flag: no round trip
        yield connection


def shares_one_connection(engine: Engine) -> bool:
    """Whether every thread of the process uses the engine's one connection (an in-memory SQLite store): work on
    another thread would then run inside the caller's transaction."""
    return isinstance(engine.pool, StaticPool)


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
            # SQLite creates a missing file but not its folder; graphmem never creates folders here, so a
            # mistyped path is an error naming it (the CLI's ``init`` / ``--create`` make the folder).
            folder = Path(url.removeprefix("sqlite:///")).parent
            if not folder.is_dir():
                raise StorageError(f"cannot open database {url.removeprefix('sqlite:///')}: "
                                   f"the directory {folder} does not exist")
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


def _ensure_schema(engine: Engine) -> None:
    with engine.connect() as connection:
        version = _stored_version(connection)
    if version == SCHEMA_VERSION:  # the common case: one query, no lock
        return
    _refuse_newer(engine, version)
    with engine.connect() as connection:
        # Build or upgrade under the store's write lock, re-reading the version inside it: several
        # processes (two servers, a CLI) may open the same new or old store at the same moment, and only
        # the first may change it. The others then find it current.
        _lock_schema(connection)
        version = _stored_version(connection)
        _refuse_newer(engine, version)
        if version is None:
            _create_schema(connection)
        elif version < SCHEMA_VERSION:
            print(f"graphmem: upgrading the store {engine.url.render_as_string()} from schema version "
                  f"{version} to {SCHEMA_VERSION}", file=sys.stderr)
            migrations.upgrade(connection, version)
        connection.commit()


def _refuse_newer(engine: Engine, version: int | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        # A typed error, so the CLI prints one line and the MCP server refuses to start cleanly,
        # instead of writing rows an older schema does not know about.
        engine.dispose()
        raise StorageError(f"database schema version {version} is newer than this graphmem supports "
                           f"({SCHEMA_VERSION}); upgrade graphmem to open {engine.url.render_as_string()}")


def _lock_schema(connection: Connection) -> None:
    """Take the store's write lock for the rest of this transaction (DDL included)."""
    if connection.dialect.name == "sqlite":
        # The transaction opens as a write (BEGIN IMMEDIATE, see _sqlite_begin): it takes the write lock
        # now, so the whole build or upgrade is atomic and serialized.
        connection.execution_options(**{WRITE_OPTION: True})
        connection.execute(text("SELECT 1"))
    elif connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})


def _stored_version(connection: Connection) -> int | None:
    """The store's schema version, or ``None`` for a store with no tables yet."""
    if not inspect(connection).has_table(MetaRow.__tablename__):
        return None
    value = connection.execute(select(col(MetaRow.value)).where(col(MetaRow.key) == "schema_version")).scalar()
    return None if value is None else int(value)


def _create_schema(connection: Connection) -> None:
    # The current tables at once (running every migration on each new store would cost more),
    # stamped so that later revisions upgrade from here.
    SQLModel.metadata.create_all(connection)
    fulltext.ensure_index(connection)
    migrations.stamp_head(connection)
    if connection.execute(select(col(StoreGenerationRow.id))).first() is None:
        connection.execute(insert(StoreGenerationRow).values(id=1, generation=0))
    connection.execute(delete(MetaRow).where(col(MetaRow.key) == "schema_version"))
    connection.execute(insert(MetaRow).values(key="schema_version", value=str(SCHEMA_VERSION)))

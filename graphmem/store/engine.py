"""Engine creation: a SQLite file in WAL mode by default, any SQLAlchemy URL otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel, create_engine, select

from graphmem.store import fulltext
from graphmem.store.tables import SCHEMA_VERSION, MetaRow

__all__ = ["database_url", "open_engine"]


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
    """Create the engine, the schema and the full-text index; record the schema version."""
    url = database_url(db)
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False}
        if url == "sqlite://":
            kwargs["poolclass"] = StaticPool  # one shared in-memory database, as in SQLModel's test guide
        else:
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    SQLModel.metadata.create_all(engine)
    fulltext.ensure_index(engine)
    _record_schema_version(engine)
    return engine


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    # WAL lets the MCP server read while a CLI import writes; NORMAL sync is durable at checkpoint
    # and several times faster for bulk import than FULL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def _record_schema_version(engine: Engine) -> None:
    with Session(engine) as session:
        row = session.exec(select(MetaRow).where(MetaRow.key == "schema_version")).first()
        if row is None:
            session.add(MetaRow(key="schema_version", value=str(SCHEMA_VERSION)))
            session.commit()
        elif int(row.value) > SCHEMA_VERSION:
            raise RuntimeError(f"database schema {row.value} is newer than this graphmem ({SCHEMA_VERSION})")

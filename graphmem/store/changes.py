"""The change log: one generation number per committed write, and what each generation changed.

Every write bumps ``store_generation`` first, inside its own transaction. That single row is the
store-wide writer lock on both engines: on PostgreSQL its row lock queues concurrent writers (in
READ COMMITTED the next writer's statements then see the rows the first one committed); on SQLite
the write transaction already holds the database's one write lock (``BEGIN IMMEDIATE``). So
generations commit strictly in order, and the committed generations are always ``1..g`` with no
gaps. A reader that has applied generation ``g`` needs exactly the log rows with
``generation > g``, and comparing one integer tells it whether there are any.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from graphmem.store.bulk import sqlite_cursor
from graphmem.store.engine import read_connection

__all__ = [
    "FACTS",
    "MEMORIES",
    "NOTHING",
    "RELATIONS",
    "RELOAD",
    "Change",
    "GenerationProbe",
    "append_changes",
    "bump_generation",
    "changes_since",
    "current_generation",
    "prune_changes",
]

# Change kinds. ``refs`` holds memory ids, relation ids or fact ids; ``reload`` (bulk rewrites such as
# a hard delete) tells followers to rebuild their projection from the rows.
MEMORIES = "memories"
RELATIONS = "relations"
FACTS = "facts"
RELOAD = "reload"
NOTHING = "nothing"  # a write whose rows the projection does not show (a session, a duplicate store)

# The log keeps the newest KEEP_GENERATIONS generations: every PRUNE_EVERY-th write deletes the rows
# older than that, so the log stays bounded however long a store lives. A reader that fell further
# behind than the log reaches rebuilds its projection instead of following (see ``store/follow.py``).
KEEP_GENERATIONS = 100_000
PRUNE_EVERY = 1_000


@dataclass(frozen=True, slots=True)
class Change:
    """What one write changed: a kind and the ids it touched."""

    generation: int
    kind: str
    refs: tuple[str, ...]


_BUMP = "UPDATE store_generation SET generation = generation + 1 WHERE id = 1 RETURNING generation"
_APPEND = "INSERT INTO change_log (generation, kind, refs, at) VALUES (?, ?, ?, ?)"


def bump_generation(session: Session) -> int:
    """Take the store's writer lock and return this write's generation (the first statement of a write).

    On SQLite through the driver's cursor, as the store's bulk statements: 83 → 17 µs of a store's CPU, and as
    much for :func:`append_changes` (docs/benchmarks.md, issue 22)."""
    connection = session.connection()
    if connection.dialect.name == "sqlite":
        with sqlite_cursor(connection) as cursor:
            row = cursor.execute(_BUMP).fetchone()
        generation = None if row is None else row[0]
    else:
        generation = connection.execute(text(_BUMP)).scalar()
    bump = text(_BUMP)
    if generation is None:  # the row is made with the schema; recreate it if someone deleted it
        connection.execute(text("INSERT INTO store_generation (id, generation) VALUES (1, 0) "
                                "ON CONFLICT (id) DO NOTHING"))
        generation = connection.execute(bump).scalar()
    assert generation is not None  # the row exists now: inserted above, or kept by ON CONFLICT
    return int(generation)


def append_changes(session: Session, generation: int, changes: dict[str, set[str]]) -> None:
    """Record ``generation``'s changes in the caller's transaction (one row per kind)."""
    at = time.time_ns() // 1_000_000
    rows = [(generation, kind, json.dumps(sorted(refs)), at) for kind, refs in sorted(changes.items())]
    if not rows:
        return
    connection = session.connection()
    if connection.dialect.name == "sqlite":
        with sqlite_cursor(connection) as cursor:
            cursor.executemany(_APPEND, rows)
        return
    connection.execute(text("INSERT INTO change_log (generation, kind, refs, at) VALUES (:g, :k, :r, :t)"),
                       [{"g": g, "k": k, "r": r, "t": t} for g, k, r, t in rows])


def prune_changes(session: Session, generation: int) -> None:
    """Keep the log bounded: on every ``PRUNE_EVERY``-th generation, drop rows ``KEEP_GENERATIONS`` old."""
    if generation % PRUNE_EVERY == 0 and generation > KEEP_GENERATIONS:
        session.connection().execute(text("DELETE FROM change_log WHERE generation <= :oldest"),
                                     {"oldest": generation - KEEP_GENERATIONS})


_CURRENT = "SELECT generation FROM store_generation WHERE id = 1"


def current_generation(connection: Connection) -> int:
    """The newest committed generation (0 for a store nothing has written to yet)."""
    value = connection.execute(text(_CURRENT)).scalar()
    return int(value or 0)


class GenerationProbe:
    """The freshness check every read makes: the newest committed generation, as cheaply as possible.

    On SQLite it keeps one driver connection of its own in autocommit mode, so the check is a single
    indexed one-row SELECT with no pool checkout and no BEGIN/ROLLBACK (measured: 0.24 ms through a
    pooled SQLAlchemy connection, a few microseconds this way). Other engines use a pooled connection in
    autocommit (:func:`~graphmem.store.engine.read_connection`): one round trip to the server, where
    a transaction's BEGIN and ROLLBACK made three.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._raw: Any = engine.raw_connection() if engine.dialect.name == "sqlite" else None

    def generation(self) -> int:
        if self._raw is None:
            with read_connection(self._engine) as connection:  # PostgreSQL: one round trip, no BEGIN
                return int(connection.exec_driver_sql(_CURRENT).scalar() or 0)
        with self._lock:
            cursor = self._raw.cursor()
            try:
                row = cursor.execute(_CURRENT).fetchone()
            finally:
                cursor.close()
        return int(row[0]) if row else 0

    def close(self) -> None:
        if self._raw is not None:
            self._raw.close()


def changes_since(connection: Connection, after: int, *, upto: int | None = None) -> Sequence[Change]:
    """The committed changes with ``after < generation`` (``<= upto`` when given), in order."""
    query = "SELECT generation, kind, refs FROM change_log WHERE generation > :after"
    params: dict[str, int] = {"after": after}
    if upto is not None:
        query += " AND generation <= :upto"
        params["upto"] = upto
    rows = connection.execute(text(query + " ORDER BY seq"), params).all()
    return [Change(int(g), kind, tuple(json.loads(refs) if isinstance(refs, str) else refs))
            for g, kind, refs in rows]

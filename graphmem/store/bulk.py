"""Bulk inserts and upserts for the write path's hot tables: one statement for many rows.

SQLAlchemy's executemany with RETURNING ("insertmanyvalues") renders a statement with one placeholder per
value and processes every row's parameters in Python. Profiled on a bulk import into PostgreSQL, psycopg
re-parsed those statement texts on every call (too long for its query cache): a third of the writer's
time. Here PostgreSQL gets each column as one array parameter and ``unnest``s it (writer CPU per
observation down to a third, docs/benchmarks.md), and SQLite gets multi-row ``VALUES`` pages bound by the
driver in C (no measurable change there: SQLite's own page and FTS5 work is most of its writer's time).
The statements are built once per (dialect, statement, page size).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, BigInteger, Table, TypeDecorator
from sqlalchemy.engine import Connection

from graphmem.store.tables import MemoryRow

__all__ = ["CONCEPT_UPSERT", "EDGE_INCREMENT", "EDGE_UPSERT", "MEMORY_INSERT", "MENTION_INSERT", "BulkStatement",
           "existing_memories", "insert_for", "run", "sqlite_cursor"]

_SQLITE_MAX_VARIABLES = 32_766  # SQLITE_MAX_VARIABLE_NUMBER since SQLite 3.32
_SQLITE_PAGE_ROWS = 1_000  # rows per VALUES page (one statement text for every full page)


@dataclass(frozen=True)
class BulkStatement:
    """``INSERT INTO table (columns)``; on a ``conflict`` key, ``increment`` adds the incoming value to the
    stored one; ``returning`` columns come back for every row written (inserted or updated)."""

    table: str
    columns: tuple[str, ...]
    pg_types: tuple[str, ...]  # PostgreSQL array element type per column; "json" values are Python objects
    conflict: tuple[str, ...] = ()
    increment: str | None = None
    returning: tuple[str, ...] = ()

    def _tail(self) -> str:
        sql = ""
        if self.conflict:
            sql += (f" ON CONFLICT ({', '.join(self.conflict)}) DO UPDATE SET "
                    f"{self.increment} = {self.table}.{self.increment} + excluded.{self.increment}")
        if self.returning:
            sql += f" RETURNING {', '.join(self.returning)}"
        return sql


CONCEPT_UPSERT = BulkStatement("concept", ("key", "kind", "df", "aliases"), ("text", "text", "integer", "json"),
                               conflict=("key",), increment="df", returning=("seq", "key", "kind", "df"))
EDGE_UPSERT = BulkStatement("concept_edge", ("a_seq", "b_seq", "count"), ("integer", "integer", "integer"),
                            conflict=("a_seq", "b_seq"), increment="count", returning=("a_seq", "b_seq", "count"))
# The same upsert without reading the counts back: the projection needs them only when it projects
# co-occurrence (``activation.cooccurrence``, off by default). One returned row per pair: 0.09 → 0.05 ms of a
# single store at 600 memories (docs/benchmarks.md, issue 22).
EDGE_INCREMENT = dataclasses.replace(EDGE_UPSERT, returning=())
MENTION_INSERT = BulkStatement("mention", ("memory_seq", "concept_seq", "weight", "count"),
                               ("integer", "integer", "double precision", "integer"))


def insert_for(table: Table, generated: tuple[str, ...], returning: tuple[str, ...]) -> BulkStatement:
    """A plain insert of every column of ``table`` but the ``generated`` ones (the database's keys)."""
    columns = [column for column in table.columns if column.name not in generated]
    return BulkStatement(table.name, tuple(column.name for column in columns),
                         tuple(_pg_type(column.type) for column in columns), returning=returning)


def _pg_type(kind: Any) -> str:
    kind = kind.impl_instance if isinstance(kind, TypeDecorator) else kind  # SQLModel's AutoString
    if isinstance(kind, JSON):
        return "json"
    if isinstance(kind, BigInteger):
        return "bigint"
    return {str: "text", int: "integer", float: "double precision"}[kind.python_type]


MEMORY_INSERT = insert_for(MemoryRow.__table__, generated=("seq",), returning=("seq", "id"))


def run(connection: Connection, statement: BulkStatement, rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Write ``rows`` (tuples in ``statement.columns`` order) in the connection's transaction; return the
    ``returning`` rows (in no particular order), or ``[]``. Rows must not repeat a conflict key."""
    if not rows:
        return []
    if "json" in statement.pg_types:  # serialized as SQLAlchemy's JSON type does (json.dumps)
        at = [i for i, kind in enumerate(statement.pg_types) if kind == "json"]
        rows = [_with_json(row, at) for row in rows]
    if connection.dialect.name == "postgresql":
        columns = [_postgres_array(column, kind) for column, kind in zip(zip(*rows, strict=True), statement.pg_types,
                                                                          strict=True)]
        result = connection.exec_driver_sql(_postgres_sql(statement), tuple(columns))
        return [tuple(row) for row in result.fetchall()] if statement.returning else []
    with sqlite_cursor(connection) as cursor:
        if not statement.returning:  # the driver's executemany binds in C; nothing to read back
            cursor.executemany(_sqlite_sql(statement, 1), rows)
            return []
        page = min(_SQLITE_PAGE_ROWS, _SQLITE_MAX_VARIABLES // len(statement.columns))
        out: list[tuple[Any, ...]] = []
        for start in range(0, len(rows), page):
            chunk = rows[start : start + page]
            cursor.execute(_sqlite_sql(statement, len(chunk)), tuple(value for row in chunk for value in row))
            out.extend(cursor.fetchall())
        return out


_NUMERIC = frozenset({"integer", "bigint", "double precision"})


def _postgres_array(values: Sequence[Any], kind: str) -> list[Any] | str:
    """A column's values as one array parameter: numbers as the array's text form (``{1,2.5,NULL}``), the rest as
    a list for psycopg to dump.

    psycopg dumps a list element by element in Python: profiled on a bulk import into PostgreSQL, the largest
    client cost of the write after the parse (a 500-observation batch's 7,500 mention rows: 20 ms of CPU, 5 ms as
    text; docs/benchmarks.md section 8a). ``str`` of an int, or of a float (its shortest repr, which reads back as
    the same double), is what the server's ``array_in`` parses; ``NULL`` unquoted is a null element.
    """
    if kind not in _NUMERIC:
        return list(values)
    return "{" + ",".join("NULL" if value is None else str(value) for value in values) + "}"


def _with_json(row: tuple[Any, ...], at: list[int]) -> tuple[Any, ...]:
    values = list(row)
    for i in at:
        value = values[i]
        # json.dumps of an empty list or dict, without the encoder (every concept row's aliases: tens per store)
        values[i] = ("[]" if type(value) is list else "{}") if type(value) in (list, dict) and not value \
            else json.dumps(value)
    return tuple(values)


@contextlib.contextmanager
def sqlite_cursor(connection: Connection) -> Iterator[Any]:
    """The DB-API cursor of the connection's transaction (begun here if the caller has not, as SQLAlchemy's
    autobegin would): its rows are the driver's tuples, where SQLAlchemy built and processed a Row object
    per returned row (a single ``memory_store`` returns tens of concept rows)."""
    if not connection.in_transaction():
        connection.begin()
    dbapi_connection = connection.connection.dbapi_connection
    assert dbapi_connection is not None  # a connection in a transaction holds its DB-API connection
    cursor = dbapi_connection.cursor()
    try:
        yield cursor
    finally:
        cursor.close()


@functools.cache
def _postgres_sql(statement: BulkStatement) -> str:
    arrays = ", ".join(f"%s::{'text' if kind == 'json' else kind}[]" for kind in statement.pg_types)
    names = [f"c{i}" for i in range(len(statement.columns))]
    values = ", ".join(f"{name}::json" if kind == "json" else name
                       for name, kind in zip(names, statement.pg_types, strict=True))
    return (f"INSERT INTO {statement.table} ({', '.join(statement.columns)}) "
            f"SELECT {values} FROM unnest({arrays}) AS v({', '.join(names)})" + statement._tail())


@functools.cache
def _sqlite_sql(statement: BulkStatement, row_count: int) -> str:
    one = "(" + ", ".join("?" * len(statement.columns)) + ")"
    return (f"INSERT INTO {statement.table} ({', '.join(statement.columns)}) "
            f"VALUES {', '.join([one] * row_count)}" + statement._tail())


def existing_memories(connection: Connection, keys: Sequence[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """``(project_key, content_hash, id)`` of the stored memories among ``keys`` (``(project_key,
    content_hash)`` pairs), looked up through the ``(project_key, content_hash)`` unique index.

    A ``content_hash IN (...)`` alone cannot use that index (``content_hash`` is its second column):
    SQLite scanned the whole memory table on every write, a cost that grew with the store (issue 22)."""
    if not keys:
        return []
    if connection.dialect.name == "postgresql":
        projects, hashes = [key[0] for key in keys], [key[1] for key in keys]
        result = connection.exec_driver_sql(_EXISTING_POSTGRES, (projects, hashes))
        return [(str(p), str(h), str(i)) for p, h, i in result.fetchall()]
    out: list[tuple[str, str, str]] = []
    with sqlite_cursor(connection) as cursor:
        for start in range(0, len(keys), _SQLITE_PAGE_ROWS):
            chunk = keys[start : start + _SQLITE_PAGE_ROWS]
            cursor.execute(_existing_sqlite(len(chunk)), tuple(value for key in chunk for value in key))
            out.extend(cursor.fetchall())
    return out


# LATERAL ... LIMIT 1 (one row at most anyway: the unique index) keeps PostgreSQL to one index probe per key,
# where a join may hash the whole table (it did at 12k memories).
_EXISTING_POSTGRES = ("SELECT v.p, v.h, m.id FROM unnest(%s::text[], %s::text[]) AS v(p, h) CROSS JOIN LATERAL "
                      "(SELECT id FROM memory WHERE project_key = v.p AND content_hash = v.h LIMIT 1) AS m")


@functools.cache
def _existing_sqlite(row_count: int) -> str:
    return (f"WITH v(p, h) AS (VALUES {', '.join(['(?, ?)'] * row_count)}) SELECT m.project_key, m.content_hash, "
            "m.id FROM v JOIN memory m ON m.project_key = v.p AND m.content_hash = v.h")

"""Copy a SQLite store's rows into a new PostgreSQL store with ``COPY``: a 1M-memory store in minutes, not the hour
of ingesting it again (the scale bench's PostgreSQL store, docs/benchmarks.md section 8a).

    python scripts/copy_store.py --from scale-1000000.db --to postgresql+psycopg://postgres@127.0.0.1:55432/scale
    python scripts/copy_store.py --from scale-1000000.db --to URL --verify-only   # compare the two stores again

graphmem builds the target's schema itself (``open_engine``: the tables, the generated ``tsvector`` column and its
GIN index, the Alembic stamp). Every row of every graphmem table is then copied as stored: the same ``seq``
values (the projection's keys), the same change log and store generation (so a projection snapshot of the one
names the same history as the other), JSON as its text. Only the schema's own rows differ where PostgreSQL writes
them itself (``alembic_version``). The keys, unique constraints and indexes are dropped for the copy and built
again after it (each one sort instead of one insert per row), the ``seq`` sequences continue after the largest
copied value, and the tables are analysed.

Then (unless ``--no-verify``) every table of both stores is read in primary-key order and a digest of each row's
values compared (JSON compared parsed, floats by their exact value), table by table; ``--answers QUERIES.json``
instead opens both stores with graphmem and compares every search's and association's hits (ids and scores). The
SQLite file is opened read-only (``immutable=1``): it is never written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Table, text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

__all__ = ["copy_rows", "table_digests"]

_BATCH = 20_000  # rows fetched from SQLite at a time
_SCHEMA_OWN = frozenset({"alembic_version"})  # written by graphmem's own schema build on the target


def _tables() -> list[Table]:
    import graphmem.store.tables  # noqa: F401  (registers every table)

    return [table for table in SQLModel.metadata.sorted_tables if table.name not in _SCHEMA_OWN]


def _copied_columns(table: Table) -> list[str]:
    return [column.name for column in table.columns if column.computed is None]


def _sqlite(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True)


def _sqlite_rows(source: sqlite3.Connection, table: Table, order: bool) -> Iterator[tuple[Any, ...]]:
    # Without ORDER BY SQLite scans in rowid order, the order graphmem inserted the rows in, so the copy's
    # heap has the ingest's physical order; the digests need primary-key order.
    columns = ", ".join(f'"{name}"' for name in _copied_columns(table))
    keys = ", ".join(f'"{column.name}"' for column in table.primary_key.columns)
    cursor = source.execute(f'SELECT {columns} FROM "{table.name}"' + (f" ORDER BY {keys}" if order else ""))
    while batch := cursor.fetchmany(_BATCH):
        yield from batch


def _constraints(connection: Connection, tables: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(table, name, kind, definition) of every key, unique and foreign-key constraint, and of every other index."""
    rows = connection.execute(text(
        "SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid::regclass::text = ANY(:tables) AND contype IN ('p', 'u', 'f')"), {"tables": list(tables)})
    found = [(str(table), str(name), str(kind), str(definition)) for table, name, kind, definition in rows]
    indexes = connection.execute(text(
        "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' "
        "AND tablename = ANY(:tables) AND indexname NOT IN (SELECT conname FROM pg_constraint)"),
        {"tables": list(tables)})
    return found + [(str(table), str(name), "i", str(definition)) for table, name, definition in indexes]


def _drop(connection: Connection, constraints: list[tuple[str, str, str, str]]) -> None:
    for table, name, kind, _definition in sorted(constraints, key=lambda c: "fpui".index(c[2])):
        if kind == "i":
            connection.execute(text(f'DROP INDEX "{name}"'))
        else:
            connection.execute(text(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"'))


def _restore(connection: Connection, constraints: list[tuple[str, str, str, str]]) -> None:
    for table, name, kind, definition in sorted(constraints, key=lambda c: "puif".index(c[2])):
        started = time.perf_counter()
        if kind == "i":
            connection.execute(text(definition))
        else:
            connection.execute(text(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}'))
        print(f"  {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)


def copy_rows(source_path: Path, target_url: str) -> dict[str, int]:
    """Copy every graphmem row of the SQLite store into the (new, empty) PostgreSQL store; return rows per table."""
    from graphmem.store.engine import open_engine

    engine = open_engine(target_url)  # graphmem builds the schema
    tables = _tables()
    source = _sqlite(source_path)
    copied: dict[str, int] = {}
    with engine.connect() as connection:
        memories = connection.execute(text("SELECT count(*) FROM memory")).scalar_one()
        if memories:
            raise SystemExit(f"the target already holds {memories} memories: copy into a new database")
        names = [table.name for table in tables]
        constraints = _constraints(connection, names)
        connection.execute(text("TRUNCATE " + ", ".join(f'"{name}"' for name in names)))  # the schema's own rows
        _drop(connection, constraints)
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        for table in tables:
            started = time.perf_counter()
            columns = ", ".join(f'"{name}"' for name in _copied_columns(table))
            count = 0
            with cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
                for row in _sqlite_rows(source, table, order=False):
                    copy.write_row(row)
                    count += 1
            copied[table.name] = count
            print(f"{table.name}: {count:,} rows in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
        _restore(connection, constraints)
        for table in tables:
            if "seq" in table.columns and table.columns["seq"].autoincrement in (True, "auto") \
                    and list(table.primary_key.columns.keys()) == ["seq"]:
                connection.execute(text(
                    f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', 'seq'), "
                    f"coalesce((SELECT max(seq) FROM \"{table.name}\"), 0) + 1, false)"))
        connection.commit()
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM ANALYZE"))
    engine.dispose()
    return copied


def _normal(value: Any, is_json: bool) -> str:
    if is_json:
        parsed = json.loads(value) if isinstance(value, str) else value
        return json.dumps(parsed, sort_keys=True)
    if isinstance(value, float):
        return value.hex()
    return repr(value)


def _digest(rows: Iterator[Sequence[Any]], json_columns: list[bool]) -> tuple[int, str]:
    digest, count = hashlib.sha256(), 0
    for row in rows:
        digest.update("\x1f".join(_normal(v, j) for v, j in zip(row, json_columns, strict=True)).encode())
        digest.update(b"\x1e")
        count += 1
    return count, digest.hexdigest()


def table_digests(source_path: Path, target_url: str) -> dict[str, dict[str, Any]]:
    """Per table: (rows, digest) on each side, every row's values in primary-key order."""
    from sqlalchemy import create_engine

    from graphmem.store.engine import database_url

    source = _sqlite(source_path)
    engine = create_engine(database_url(target_url))
    result: dict[str, dict[str, Any]] = {}
    with engine.connect() as connection:
        for table in _tables():
            json_columns = [isinstance(table.columns[name].type, JSON) for name in _copied_columns(table)]
            columns = ", ".join(f'"{name}"' for name in _copied_columns(table))
            keys = ", ".join(f'"{column.name}"' for column in table.primary_key.columns)
            # A server-side cursor: the mention table is 15M rows at 1M memories.
            cursor = connection.connection.dbapi_connection.cursor(name=f"digest_{table.name}")  # type: ignore[union-attr]
            cursor.execute(f'SELECT {columns} FROM "{table.name}" ORDER BY {keys}')
            target = _digest(_flatten(cursor), json_columns)
            cursor.close()
            source_digest = _digest(_sqlite_rows(source, table, order=True), json_columns)
            result[table.name] = {"sqlite": source_digest, "postgresql": target, "same": source_digest == target}
            print(f"{table.name}: {source_digest[0]:,} / {target[0]:,} rows, "
                  f"{'same' if source_digest == target else 'DIFFERENT'}", file=sys.stderr, flush=True)
    engine.dispose()
    return result


def _flatten(cursor: Any) -> Iterator[Sequence[Any]]:
    while batch := cursor.fetchmany(_BATCH):
        yield from batch


def same_answers(source_path: Path, target_url: str, queries: list[str]) -> dict[str, Any]:
    """Open both stores with graphmem (each from its snapshot or its rows) and ask each the same searches and
    associations: the ids and scores of every hit must be equal."""
    from graphmem import MemoryService, Settings

    answers: list[list[list[tuple[str, float]]]] = []
    for db in (str(source_path), target_url):
        service = MemoryService(Settings.load(environ={}, db=db))
        answers.append([[(hit.id, hit.score) for hit in service.search(query, limit=10).hits] for query in queries]
                       + [[(hit.id, hit.activation_score) for hit in service.associate(query, max_results=10).memories]
                          for query in queries])
        service.uow.close()  # not close(): neither store's snapshot is rewritten
    differing = [i for i, (a, b) in enumerate(zip(*answers, strict=True)) if a != b]
    return {"calls": len(answers[0]), "differing": len(differing), "hits": sum(len(a) for a in answers[0]),
            "first_differing": differing[:5]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, required=True, help="the SQLite store (read only)")
    parser.add_argument("--to", dest="target", required=True, help="a PostgreSQL URL naming a new, empty database")
    parser.add_argument("--verify-only", action="store_true", help="only compare the two stores")
    parser.add_argument("--no-verify", action="store_true")
    parser.add_argument("--answers", type=Path, help="a JSON list of queries: compare both stores' answers")
    args = parser.parse_args()
    if args.answers is not None:  # two existing stores: nothing is copied
        compared = same_answers(args.source, args.target, json.loads(args.answers.read_text()))
        print(json.dumps(compared), flush=True)
        return 0 if compared["differing"] == 0 else 1
    if not args.verify_only:
        started = time.perf_counter()
        copied = copy_rows(args.source, args.target)
        print(json.dumps({"copied": copied, "seconds": round(time.perf_counter() - started, 1)}), flush=True)
    if args.verify_only or not args.no_verify:
        started = time.perf_counter()
        digests = table_digests(args.source, args.target)
        same = all(entry["same"] for entry in digests.values())
        print(json.dumps({"same": same, "seconds": round(time.perf_counter() - started, 1),
                          "tables": {name: entry["sqlite"][0] for name, entry in digests.items()}}), flush=True)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A bulk import on SQLite checkpoints its write-ahead log less often.

SQLite in WAL mode copies the log into the database file once the log holds 1,000 pages (4 MiB), on the commit
that crosses it: during an import that is every few batches, and the pages an import rewrites on every batch (the
indexes' upper levels, the full-text segments) are copied again at each checkpoint. For the connections the
importing thread checks out while :func:`sparse_checkpoints` is open, the log is checkpointed every
``BULK_CHECKPOINT_PAGES`` pages instead: 10,000 observations into a 100k store at 907–1,162 against 879–917
obs/s, four pairs in turns, higher in three (docs/benchmarks.md, issue 22, section 0). The import ends with a
checkpoint of its own, and each connection gets SQLite's interval back when it is checked in, so the store's other
writes (a single ``memory_store``) keep theirs.

What it costs: with ``synchronous=NORMAL`` the log reaches the disk at a checkpoint, so a power loss or an
operating-system crash during an import can take up to 64 MiB of its last commits instead of 4 (a crashed
process loses nothing it committed). An import run again stores what was lost and skips what is there (it dedupes
by content). Other threads' connections, PostgreSQL and an in-memory store are left as they are.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

__all__ = ["BULK_CHECKPOINT_PAGES", "DEFAULT_CHECKPOINT_PAGES", "dense_again_at_checkin", "sparse_checkpoints"]

DEFAULT_CHECKPOINT_PAGES = 1_000  # SQLite's own wal_autocheckpoint
BULK_CHECKPOINT_PAGES = 16_384  # 64 MiB of 4 KiB pages
_SPARSE = "graphmem_sparse_checkpoints"  # the pool record's mark: this connection has the bulk interval


def _checkpoint_every(dbapi_connection: Any, pages: int) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA wal_autocheckpoint={int(pages)}")
    finally:
        cursor.close()


def dense_again_at_checkin(dbapi_connection: Any, record: Any) -> None:
    """The pool's check-in listener of a SQLite engine (``open_engine``): a connection an import checked out gets
    SQLite's checkpoint interval back."""
    if dbapi_connection is not None and record.info.pop(_SPARSE, False):
        _checkpoint_every(dbapi_connection, DEFAULT_CHECKPOINT_PAGES)


@contextmanager
def sparse_checkpoints(engine: Engine) -> Iterator[None]:
    """For the calling thread's connections while the block runs: the WAL checkpointed every
    ``BULK_CHECKPOINT_PAGES`` pages; then one checkpoint of what the import left in the log."""
    from graphmem.store.engine import shares_one_connection  # engine.py installs this module's check-in listener

    if engine.dialect.name != "sqlite" or shares_one_connection(engine):
        yield
        return
    importing = threading.get_ident()

    def sparse(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if threading.get_ident() == importing:
            _checkpoint_every(dbapi_connection, BULK_CHECKPOINT_PAGES)
            record.info[_SPARSE] = True

    event.listen(engine, "checkout", sparse)
    try:
        yield
    finally:
        event.remove(engine, "checkout", sparse)
        connection = engine.raw_connection()  # autocommit at the driver: no transaction around the checkpoint
        try:
            cursor = connection.cursor()
            try:
                cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")  # never waits for a reader; the rest comes later
            finally:
                cursor.close()
        except sqlite3.Error:
            pass  # only sooner than SQLite's own next checkpoint: never hide the import's own error behind it
        finally:
            connection.close()

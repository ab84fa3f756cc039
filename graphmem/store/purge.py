"""A hard delete leaves nothing readable behind: no index terms, no orphan concepts, no freed pages.

Why each step (measured by scanning the database file's bytes in tests/store/test_purge.py):
- FTS5 records a deletion as a tombstone in a new segment; the deleted words stay in the older
  segments until they are merged. ``optimize`` merges every segment into one, dropping them.
  (SQLite 3.42's ``secure-delete`` FTS option would do it per row; 3.40 is still common.)
- A concept only the deleted memories mentioned would keep its name (often a word of the deleted
  text) in the ``concept`` table; it goes, unless a fact still names it.
- ``PRAGMA secure_delete`` (set on every connection, engine.py) zeroes freed pages and cells, and a
  ``wal_checkpoint(TRUNCATE)`` after the commit empties the WAL, which still held the old pages.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

__all__ = ["checkpoint", "drop_unused_concepts", "optimize_fulltext"]


def drop_unused_concepts(session: Session, concept_seqs: Iterable[int]) -> int:
    """Delete the given concepts that no memory mentions and no fact names; return how many went."""
    dropped = 0
    for seq in sorted(set(concept_seqs)):
        unused = session.execute(text(
            "SELECT 1 FROM concept c WHERE c.seq = :s "
            "AND NOT EXISTS (SELECT 1 FROM mention m WHERE m.concept_seq = c.seq) "
            "AND NOT EXISTS (SELECT 1 FROM fact f WHERE f.subject = c.key OR f.object = c.key)"),
            {"s": seq}).first()
        if unused is None:
            continue
        session.execute(text("DELETE FROM concept_edge WHERE a_seq = :s OR b_seq = :s"), {"s": seq})
        session.execute(text("DELETE FROM concept WHERE seq = :s"), {"s": seq})
        dropped += 1
    return dropped


def optimize_fulltext(session: Session) -> None:
    """Merge the FTS5 segments so deleted rows' terms leave the index (PostgreSQL needs nothing)."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(text("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')"))


def checkpoint(engine: Engine) -> None:
    """Copy the WAL into the database file and truncate it, so old page images do not linger there."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")

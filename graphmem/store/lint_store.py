"""The SQL behind ``lint``: find rows that break the store's invariants, and repair the safe ones.

Finders return plain tuples; repairs run in the caller's session (one transaction for a whole fix).
The foreign keys and triggers prevent most of this damage on SQLite, but not on a database written
with ``PRAGMA foreign_keys=OFF``, by an older version, by hand, or restored from a partial backup.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

__all__ = [
    "close_sessions",
    "concept_keys",
    "dangling_concept_edges",
    "dangling_mentions",
    "dangling_relations",
    "delete_concepts",
    "delete_rows",
    "fts_state",
    "memories_without_concepts",
    "mention_keys",
    "merge_concept",
    "orphan_concepts",
    "rebuild_fts",
    "relation_types",
    "row_counts",
    "stale_sessions",
]


def _rows(session: Session, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in session.execute(text(sql), params)]


def orphan_concepts(session: Session) -> list[tuple[int, str]]:
    """Concepts no memory mentions and no fact names."""
    return _rows(session, "SELECT seq, key FROM concept "
                 "WHERE NOT EXISTS (SELECT 1 FROM mention WHERE concept_seq = concept.seq) "
                 "AND NOT EXISTS (SELECT 1 FROM fact "
                 "WHERE fact.subject = concept.key OR fact.object = concept.key) ORDER BY key")


def dangling_relations(session: Session) -> list[tuple[str, str, str, str]]:
    """Relations (id, type, source, target) with an end that names no memory."""
    return _rows(session, "SELECT id, type, source_id, target_id FROM relation WHERE source_id NOT IN "
                 "(SELECT id FROM memory) OR target_id NOT IN (SELECT id FROM memory) ORDER BY id")


def dangling_mentions(session: Session) -> list[tuple[int, int]]:
    return _rows(session,
                 "SELECT memory_seq, concept_seq FROM mention WHERE memory_seq NOT IN (SELECT seq FROM "
                 "memory) OR concept_seq NOT IN (SELECT seq FROM concept)")


def dangling_concept_edges(session: Session) -> list[tuple[int, int]]:
    return _rows(session,
                 "SELECT a_seq, b_seq FROM concept_edge WHERE a_seq NOT IN (SELECT seq FROM concept) "
                 "OR b_seq NOT IN (SELECT seq FROM concept)")


def relation_types(session: Session) -> list[tuple[str, str]]:
    return _rows(session, "SELECT id, type FROM relation ORDER BY id")


def memories_without_concepts(session: Session) -> list[tuple[str, str]]:
    return _rows(session, "SELECT id, substr(content, 1, 80) FROM memory WHERE NOT EXISTS "
                 "(SELECT 1 FROM mention WHERE memory_seq = memory.seq) ORDER BY seq")


def concept_keys(session: Session) -> list[tuple[int, str]]:
    return _rows(session, "SELECT seq, key FROM concept ORDER BY seq")


def stale_sessions(session: Session, now_ms: int) -> list[tuple[str, int]]:
    """Open sessions (id, last activity) idle for longer than their own timeout."""
    return _rows(session, "SELECT id, last_activity_at FROM session WHERE ended_at IS NULL AND "
                 "last_activity_at + timeout_s * 1000 < :now ORDER BY id", now=now_ms)


def fts_state(session: Session) -> tuple[int, int, bool] | None:
    """(memory rows, indexed documents, integrity check passed) for SQLite FTS5; None elsewhere."""
    if session.get_bind().dialect.name != "sqlite":
        return None  # PostgreSQL's tsvector is a generated column: it cannot drift from the row
    memories = session.execute(text("SELECT count(*) FROM memory")).scalar_one()
    indexed = session.execute(text("SELECT count(*) FROM memory_fts_docsize")).scalar_one()
    try:
        with session.begin_nested():
            session.execute(text("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)"))
        intact = True
    except SQLAlchemyError:
        intact = False
    return int(memories), int(indexed), intact


# -- repairs (caller's transaction) ----------------------------------------------------------------
def delete_rows(session: Session, table: str, where: str, keys: list[dict[str, Any]]) -> None:
    """Delete rows of ``table`` matching ``where`` for each parameter set (table and where are constants)."""
    for params in keys:
        session.execute(text(f"DELETE FROM {table} WHERE {where}"), params)


def delete_concepts(session: Session, seqs: list[int]) -> None:
    for seq in seqs:
        session.execute(text("DELETE FROM concept_edge WHERE a_seq = :s OR b_seq = :s"), {"s": seq})
        session.execute(text("DELETE FROM concept WHERE seq = :s"), {"s": seq})


def merge_concept(session: Session, duplicate: tuple[int, str], canonical: tuple[int, str]) -> None:
    """Fold concept ``duplicate`` into ``canonical``: mentions, co-occurrence edges and fact names move."""
    (dup, dup_key), (keep, keep_key) = duplicate, canonical
    session.execute(text("UPDATE mention SET concept_seq = :keep WHERE concept_seq = :dup "
                         "AND memory_seq NOT IN (SELECT memory_seq FROM mention WHERE concept_seq = :keep)"),
                    {"keep": keep, "dup": dup})
    for other, count in _rows(session, "SELECT CASE WHEN a_seq = :d THEN b_seq ELSE a_seq END, count FROM "
                              "concept_edge WHERE a_seq = :d OR b_seq = :d", d=dup):
        if other == keep:
            continue
        a, b = sorted((keep, other))
        merged = session.execute(
            text("UPDATE concept_edge SET count = count + :n WHERE a_seq = :a AND b_seq = :b"),
            {"n": count, "a": a, "b": b})
        if merged.rowcount == 0:  # type: ignore[attr-defined]
            session.execute(text("INSERT INTO concept_edge (a_seq, b_seq, count) VALUES (:a, :b, :n)"),
                            {"a": a, "b": b, "n": count})
    for column in ("subject", "object"):
        session.execute(text(f"UPDATE fact SET {column} = :keep WHERE {column} = :dup"),
                        {"keep": keep_key, "dup": dup_key})
    session.execute(text("DELETE FROM mention WHERE concept_seq = :dup"), {"dup": dup})
    delete_concepts(session, [dup])
    session.execute(text("UPDATE concept SET df = (SELECT count(*) FROM mention "
                         "WHERE concept_seq = concept.seq) WHERE seq = :keep"), {"keep": keep})


def close_sessions(session: Session, ids: list[str]) -> None:
    """End stale sessions at their last activity (when they, in effect, ended)."""
    for session_id in ids:
        session.execute(text("UPDATE session SET ended_at = last_activity_at WHERE id = :id"),
                        {"id": session_id})


def rebuild_fts(session: Session) -> None:
    if session.get_bind().dialect.name == "sqlite":
        session.execute(text("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')"))


def mention_keys(session: Session, memory_seqs: list[int]) -> dict[int, set[str]]:
    """The concept keys each memory mentions, per the rows."""
    found: dict[int, set[str]] = {seq: set() for seq in memory_seqs}
    for seq in memory_seqs:
        for (key,) in _rows(session, "SELECT concept.key FROM mention JOIN concept ON concept.seq = "
                            "mention.concept_seq WHERE mention.memory_seq = :m", m=seq):
            found[seq].add(key)
    return found


def row_counts(session: Session) -> tuple[int, int]:
    """(memory rows, concept rows)."""
    memories = session.execute(text("SELECT count(*) FROM memory")).scalar_one()
    concepts = session.execute(text("SELECT count(*) FROM concept")).scalar_one()
    return int(memories), int(concepts)

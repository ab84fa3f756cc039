"""Relation rows and the memory fields relations change (``valid_to``, ``superseded_by``).

Functions take the caller's session so one use case (judge a ``supersedes``: update the relation,
close the older memory) stays one transaction. They return core values, never rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from graphmem.core.relations import RELATION_TYPES
from graphmem.core.values import Memory, Relation
from graphmem.store.convert import memory_from_row, relation_from_row
from graphmem.store.tables import MemoryRow, RelationRow

__all__ = [
    "close_memory",
    "current_with_topic_key",
    "find_relation",
    "get_relation",
    "hiding_relations",
    "insert_relation",
    "memories_by_ids",
    "memories_derived_from",
    "memories_with_topic_key",
    "memory",
    "pairs_among",
    "relations_between",
    "relations_by_status",
    "reopen_memory",
    "set_memory_status",
    "supersedes_touching",
    "update_relation",
]

_CHUNK = 900


def get_relation(session: Session, relation_id: str) -> Relation | None:
    row = session.get(RelationRow, relation_id)
    return None if row is None else relation_from_row(row)


def find_relation(session: Session, source_id: str, target_id: str, rel_type: str,
                  *, either_direction: bool) -> Relation | None:
    """The relation of this type between the two memories (in both directions when symmetric)."""
    pairs = [(source_id, target_id)] + ([(target_id, source_id)] if either_direction else [])
    for source, target in pairs:
        row = session.exec(select(RelationRow).where(
            RelationRow.source_id == source, RelationRow.target_id == target,
            RelationRow.type == rel_type)).first()
        if row is not None:
            return relation_from_row(row)
    return None


def relations_between(session: Session, first_id: str, second_id: str) -> list[Relation]:
    """Every relation joining the two memories, either way round, oldest first."""
    query = select(RelationRow).where(or_(
        (col(RelationRow.source_id) == first_id) & (col(RelationRow.target_id) == second_id),
        (col(RelationRow.source_id) == second_id) & (col(RelationRow.target_id) == first_id)))
    rows = session.exec(query.order_by(col(RelationRow.created_at), col(RelationRow.id))).all()
    return [relation_from_row(row) for row in rows]


def insert_relation(session: Session, fields: dict[str, Any]) -> Relation:
    row = RelationRow(**fields)
    session.add(row)
    session.flush()
    return relation_from_row(row)


def update_relation(session: Session, relation_id: str, changes: dict[str, Any]) -> Relation:
    row = session.get(RelationRow, relation_id)
    if row is None:
        raise LookupError(relation_id)
    for name, value in changes.items():
        setattr(row, name, value)
    session.add(row)
    session.flush()
    return relation_from_row(row)


def relations_by_status(session: Session, status: str, *, limit: int, offset: int,
                        memory_ids: Sequence[str] | None = None) -> tuple[list[Relation], int]:
    """A page of relations with ``status`` (oldest first) and the total count."""
    query = select(RelationRow).where(RelationRow.status == status)
    count = select(func.count()).select_from(RelationRow).where(RelationRow.status == status)
    if memory_ids is not None:
        touching = or_(col(RelationRow.source_id).in_(memory_ids), col(RelationRow.target_id).in_(memory_ids))
        query, count = query.where(touching), count.where(touching)
    rows = session.exec(query.order_by(col(RelationRow.created_at), col(RelationRow.id))
                        .offset(offset).limit(limit)).all()
    return [relation_from_row(row) for row in rows], session.exec(count).one()


def pairs_among(session: Session, ids: Iterable[str]) -> list[Relation]:
    """Every relation with both ends among ``ids`` or one end among them (for pair exclusion)."""
    wanted = list(dict.fromkeys(ids))
    found: dict[str, Relation] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        query = select(RelationRow).where(
            or_(col(RelationRow.source_id).in_(chunk), col(RelationRow.target_id).in_(chunk)))
        for row in session.exec(query):
            found[row.id] = relation_from_row(row)
    return list(found.values())


def hiding_relations(session: Session, memory_id: str) -> list[Relation]:
    """Judged relations that hide ``memory_id`` from default recall (as target or source, per the table)."""
    hide_target = [name for name, sem in RELATION_TYPES.items() if sem.recall == "hide_target"]
    hide_source = [name for name, sem in RELATION_TYPES.items() if sem.recall == "hide_source"]
    query = select(RelationRow).where(RelationRow.status == "judged", or_(
        (col(RelationRow.target_id) == memory_id) & col(RelationRow.type).in_(hide_target),
        (col(RelationRow.source_id) == memory_id) & col(RelationRow.type).in_(hide_source)))
    return [relation_from_row(row) for row in session.exec(query)]


def supersedes_touching(session: Session, ids: Iterable[str]) -> list[Relation]:
    """Judged ``supersedes`` relations with an end among ``ids`` (the links of a history chain)."""
    wanted = list(dict.fromkeys(ids))
    query = select(RelationRow).where(RelationRow.type == "supersedes", RelationRow.status == "judged", or_(
        col(RelationRow.source_id).in_(wanted), col(RelationRow.target_id).in_(wanted)))
    return [relation_from_row(row) for row in session.exec(query)]


def memory(session: Session, memory_id: str) -> Memory | None:
    row = session.exec(select(MemoryRow).where(MemoryRow.id == memory_id)).first()
    return None if row is None else memory_from_row(row)


def close_memory(session: Session, memory_id: str, *, valid_to_ms: int, superseded_by: str) -> Memory:
    """Record that ``memory_id`` stopped holding at ``valid_to_ms`` because ``superseded_by`` replaced it."""
    row = session.exec(select(MemoryRow).where(MemoryRow.id == memory_id)).one()
    row.valid_to, row.superseded_by = valid_to_ms, superseded_by
    session.add(row)
    session.flush()
    return memory_from_row(row)


def set_memory_status(session: Session, memory_id: str, status: str, *, only_from: str) -> Memory | None:
    """Set ``status`` on ``memory_id`` if it is now ``only_from`` (a consolidation archives only active ones)."""
    row = session.exec(select(MemoryRow).where(MemoryRow.id == memory_id)).first()
    if row is None or row.status != only_from:
        return None
    row.status = status
    session.add(row)
    session.flush()
    return memory_from_row(row)


def reopen_memory(session: Session, memory_id: str, *, superseded_by: str) -> Memory | None:
    """Undo :func:`close_memory` when the relation that closed it is revised or ignored."""
    row = session.exec(select(MemoryRow).where(MemoryRow.id == memory_id)).one()
    if row.superseded_by != superseded_by:
        return None
    row.valid_to, row.superseded_by = None, None
    session.add(row)
    session.flush()
    return memory_from_row(row)


def current_with_topic_key(session: Session, project_key: str, topic_key: str,
                           exclude: Iterable[str] = ()) -> list[tuple[int, Memory]]:
    """(seq, memory) of one project's memories claiming ``topic_key`` that nothing has superseded yet,
    in insertion order."""
    query = select(MemoryRow).where(
        MemoryRow.project_key == project_key, MemoryRow.topic_key == topic_key,
        col(MemoryRow.superseded_by).is_(None), col(MemoryRow.id).not_in(list(exclude)))
    return [(row.seq or 0, memory_from_row(row)) for row in session.exec(query.order_by(col(MemoryRow.seq)))]


def memories_with_topic_key(session: Session, topic_key: str, project: str | None = None) -> list[Memory]:
    """Every memory that ever claimed ``topic_key`` (of one project when given), oldest first."""
    query = select(MemoryRow).where(MemoryRow.topic_key == topic_key)
    if project is not None:
        query = query.where(MemoryRow.project_key == project)
    return [memory_from_row(row) for row in session.exec(query.order_by(col(MemoryRow.seq)))]


def memories_derived_from(session: Session, ids: Sequence[str]) -> list[Memory]:
    """Memories whose ``parent_id`` or ``superseded_by`` is among ``ids`` (corrections of them, and
    memories forgotten in their favour)."""
    wanted = list(ids)
    query = select(MemoryRow).where(col(MemoryRow.parent_id).in_(wanted) | col(MemoryRow.superseded_by).in_(wanted))
    return [memory_from_row(row) for row in session.exec(query)]


def memories_by_ids(session: Session, ids: Sequence[str]) -> list[Memory]:
    query = select(MemoryRow).where(col(MemoryRow.id).in_(list(ids)))
    return [memory_from_row(row) for row in session.exec(query)]

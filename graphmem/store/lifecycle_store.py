"""Lifecycle reads and writes: reinforcement, status changes, deletion, correction with lineage, review.

Functions over the caller's session (the unit of work's transaction for writes), returning core values,
never rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, delete, func, update
from sqlmodel import Session, col, select

from graphmem.core.values import Memory, Relation
from graphmem.errors import ConflictError, NotFound
from graphmem.store import purge
from graphmem.store.convert import memory_from_row, relation_from_row
from graphmem.store.repository import MemoryDraft, StoredBatch, _chunks, insert_memories
from graphmem.store.tables import ConceptRow, MemoryRow, MentionRow, RelationRow

__all__ = ["LifeRow", "delete_memories", "insert_correction", "life_rows", "review_due", "set_status",
           "touch", "update_memories"]

# The memory fields a lifecycle operation may change; content and identity never change in place
# (a correction is a new memory), which is what keeps history and as_of honest.
_MUTABLE = frozenset({"status", "valid_to", "superseded_by", "review_after", "meta", "use_count",
                      "last_used_at", "strength"})


@dataclass(frozen=True, slots=True)
class LifeRow:
    """The columns decay, gc and prune need, without the content (cheap to scan)."""

    id: str
    kind: str
    project: str | None
    status: str
    created_at: int
    last_used_at: int
    use_count: int
    strength: float


def life_rows(session: Session, statuses: Sequence[str], project: str | None = None, *,
              exclude_kinds: Sequence[str] = (), used_before_ms: int | None = None) -> list[LifeRow]:
    """Memories in ``statuses`` (optionally of one project, idle since ``used_before_ms``)."""
    # sqlmodel's select() overloads stop at four columns; SQLAlchemy's select takes any number
    query = select(MemoryRow.id, MemoryRow.kind, MemoryRow.project, MemoryRow.status,  # type: ignore[call-overload]
                   MemoryRow.created_at, MemoryRow.last_used_at, MemoryRow.use_count,
                   MemoryRow.strength).where(
        col(MemoryRow.status).in_(list(statuses)))
    if project is not None:
        query = query.where(MemoryRow.project == project)
    if exclude_kinds:
        query = query.where(col(MemoryRow.kind).not_in(list(exclude_kinds)))
    if used_before_ms is not None:
        query = query.where(col(MemoryRow.last_used_at) < used_before_ms)
    return [LifeRow(*row) for row in session.exec(query.order_by(col(MemoryRow.seq)))]


def touch(session: Session, ids: Sequence[str], now_ms: int, boost: float, max_strength: float) -> list[Memory]:
    """use_count + 1 and last_used = now; strength + boost, capped at ``max_strength``."""
    table = MemoryRow.__table__
    boosted = table.c.strength + boost
    capped = case((boosted > max_strength, max_strength), else_=boosted)
    session.execute(update(table).where(table.c.id.in_(list(ids))).values(
        use_count=table.c.use_count + 1, last_used_at=now_ms,
        strength=case((table.c.strength > max_strength, table.c.strength), else_=capped)))
    return _memories(session, ids)


def set_status(session: Session, ids: Sequence[str], status: str) -> list[Memory]:
    """One status for many memories in one statement per chunk (gc and prune archive thousands)."""
    table = MemoryRow.__table__
    for chunk in _chunks(list(dict.fromkeys(ids))):
        session.execute(update(table).where(table.c.id.in_(list(chunk))).values(status=status))
    return _memories(session, ids)


def update_memories(session: Session, changes: Mapping[str, Mapping[str, Any]],
                    before_commit: Callable[[list[Memory]], None] | None = None) -> list[Memory]:
    """Set lifecycle fields per memory id in one transaction; ``before_commit`` may still abort it."""
    for memory_id, fields in changes.items():
        unknown = set(fields) - _MUTABLE
        if unknown:
            raise ValueError(f"not a lifecycle field: {', '.join(sorted(unknown))}")
        row = session.exec(select(MemoryRow).where(MemoryRow.id == memory_id)).first()
        if row is None:
            raise NotFound("memory id", memory_id)
        for name, value in fields.items():
            setattr(row, name, value)
        session.add(row)
    session.flush()
    updated = _memories(session, list(changes))
    if before_commit is not None:
        before_commit(updated)
    return updated


def delete_memories(session: Session, ids: Sequence[str]) -> int:
    """Hard delete: the memories, their mentions and every relation touching them; recount df."""
    wanted = list(dict.fromkeys(ids))
    seqs = [seq for chunk in _chunks(wanted) for seq in session.exec(
        select(MemoryRow.seq).where(col(MemoryRow.id).in_(chunk)))]
    concepts: set[int] = set()
    for chunk in _chunks(wanted):
        session.execute(delete(RelationRow).where(
            col(RelationRow.source_id).in_(chunk) | col(RelationRow.target_id).in_(chunk)))
    for chunk in _chunks(seqs):
        concepts.update(session.exec(select(MentionRow.concept_seq).where(
            col(MentionRow.memory_seq).in_(chunk))))
        session.execute(delete(MentionRow).where(col(MentionRow.memory_seq).in_(chunk)))
        session.execute(delete(MemoryRow).where(col(MemoryRow.seq).in_(chunk)))
    concept_table, mention_table = ConceptRow.__table__, MentionRow.__table__
    live_df = (select(func.count()).select_from(mention_table)
               .where(mention_table.c.concept_seq == concept_table.c.seq).scalar_subquery())
    for chunk in _chunks(sorted(concepts)):
        session.execute(update(concept_table).where(concept_table.c.seq.in_(list(chunk)))
                        .values(df=live_df))
    purge.drop_unused_concepts(session, concepts)  # their names are often words of the deleted text
    purge.optimize_fulltext(session)
    return len(seqs)


def insert_correction(session: Session, draft: MemoryDraft, original_id: str, relation: Mapping[str, Any],
                      now_ms: int) -> tuple[StoredBatch, Relation, Memory]:
    """Insert the corrected version, a judged ``supersedes`` relation to the original, and close the
    original (valid_to = now, superseded_by = new id), all in one transaction."""
    original = session.exec(select(MemoryRow).where(MemoryRow.id == original_id)).first()
    if original is None:
        raise NotFound("memory id", original_id)
    if original.superseded_by:
        raise ConflictError(f"{original_id} is already superseded by {original.superseded_by}; "
                            "correct the current version")
    batch = insert_memories(session, [draft])
    new_id, duplicate = batch.outcomes[0]
    if duplicate:
        raise ConflictError(f"the correction repeats existing memory {new_id}; use forget with "
                            f"superseded_by={new_id} instead")
    row = RelationRow(**relation, source_id=new_id, target_id=original_id)
    session.add(row)
    original.valid_to = now_ms if original.valid_to is None else min(original.valid_to, now_ms)
    original.superseded_by = new_id
    session.add(original)
    session.flush()
    return batch, relation_from_row(row), memory_from_row(original)


def review_due(session: Session, now_ms: int, project: str | None, limit: int) -> tuple[list[Memory], int]:
    """Current memories whose ``review_after`` has passed, most overdue first, and their total."""
    condition = ((col(MemoryRow.review_after) <= now_ms)
                 & col(MemoryRow.status).in_(["active", "promoted"])
                 & col(MemoryRow.superseded_by).is_(None)
                 & (col(MemoryRow.valid_to).is_(None) | (col(MemoryRow.valid_to) > now_ms)))
    if project is not None:
        condition = condition & (MemoryRow.project == project)
    total = session.exec(select(func.count()).select_from(MemoryRow).where(condition)).one()
    rows = session.exec(select(MemoryRow).where(condition)
                        .order_by(col(MemoryRow.review_after), col(MemoryRow.seq)).limit(limit)).all()
    return [memory_from_row(row) for row in rows], int(total)


def _memories(session: Session, ids: Iterable[str]) -> list[Memory]:
    wanted = list(dict.fromkeys(ids))
    rows = {row.id: row for chunk in _chunks(wanted)
            for row in session.exec(select(MemoryRow).where(col(MemoryRow.id).in_(chunk)))}
    return [memory_from_row(rows[i]) for i in wanted if i in rows]


"""Sessions, saved prompts, and what a session start shows: recent memories, pending conflicts, skills.

Functions over the caller's session. Times are epoch milliseconds, as in every table.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import BindParameter, bindparam, case, inspect, text, update
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from graphmem.core.values import Memory, Relation
from graphmem.errors import NotFound
from graphmem.store.bulk import sqlite_cursor
from graphmem.store.convert import memory_from_row, relation_from_row
from graphmem.store.repository import _chunks
from graphmem.store.tables import MemoryRow, PromptRow, RelationRow, SessionRow

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "PromptRecord",
    "SessionRecord",
    "active_skills",
    "add_prompt",
    "claim_live_session",
    "create_session",
    "end_session",
    "extend_session",
    "get_session",
    "live_session",
    "pending_conflicts",
    "prompts_for",
    "recent_memories",
    "recent_sessions",
    "session_memories",
    "touch_session",
]

_SKILL_FIELDS = ("id", "name", "description", "status", "version", "domain", "project")


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str
    project: str | None
    client: str | None
    started_at: int
    last_activity_at: int
    ended_at: int | None
    timeout_s: int


@dataclass(frozen=True, slots=True)
class PromptRecord:
    id: str
    session_id: str | None
    project: str | None
    content: str
    created_at: int


def live_session(session: Session, project: str | None, client: str | None, now_ms: int, *,
                 any_client: bool) -> SessionRecord | None:
    """The most recently active open session of ``project`` (and ``client``), idle for less than
    its timeout."""
    query = select(SessionRow).where(col(SessionRow.ended_at).is_(None),
                                     _same(SessionRow.project, project))
    if not any_client:
        query = query.where(_same(SessionRow.client, client))
    for row in session.exec(query.order_by(col(SessionRow.last_activity_at).desc())):
        if now_ms - row.last_activity_at < row.timeout_s * 1000:
            return _session(row)
    return None


def claim_live_session(session: Session, project: str | None, client: str | None, now_ms: int, *,
                       any_client: bool) -> SessionRecord | None:
    """:func:`live_session` and :func:`touch_session` in one statement (the store hot path): the live
    session's last activity moves to ``now_ms`` and its row comes back."""
    touched = session.connection().execute(_claim(any_client), {
        "live_project": project, "live_client": client, "now_ms": now_ms}).first()
    return None if touched is None else SessionRecord(*touched)


@functools.cache
def _claim(any_client: bool) -> Any:
    table = SessionRow.__table__
    now: BindParameter[int] = bindparam("now_ms")
    live = select(table.c.id).where(
        table.c.ended_at.is_(None), table.c.project.is_not_distinct_from(bindparam("live_project")),
        now - table.c.last_activity_at < table.c.timeout_s * 1000)
    if not any_client:
        live = live.where(table.c.client.is_not_distinct_from(bindparam("live_client")))
    latest = live.order_by(table.c.last_activity_at.desc()).limit(1).scalar_subquery()
    return (update(table).where(table.c.id == latest)
            .values(last_activity_at=case((table.c.last_activity_at < now, now), else_=table.c.last_activity_at))
            .returning(*(table.c[name] for name in SessionRecord.__dataclass_fields__)))


def create_session(session: Session, record: SessionRecord) -> SessionRecord:
    session.add(SessionRow(**_fields(record)))
    return record


def extend_session(session: Session, session_id: str, first_ms: int, last_ms: int) -> bool:
    """Widen a session's span to cover ``first_ms``..``last_ms``; False when no such session exists.

    One ``UPDATE`` that widens the row where it must (the store hot path: every store of an MCP connection names
    the connection's session, and the ORM's load, flush and update of its row were about 0.7 ms of such a
    store's CPU at 600 memories, docs/benchmarks.md issue 22), then a lookup only when nothing needed widening.
    Through the ORM when this transaction already holds the row as an object (added or loaded), which stays
    the one account of its fields until it is flushed."""
    if _held(session, session_id):
        return _extend_held(session, session_id, first_ms, last_ms)
    connection = session.connection()
    parameters = {"session_id": session_id, "first_ms": first_ms, "last_ms": last_ms}
    if connection.dialect.name == "sqlite":  # the driver's cursor: SQLAlchemy's execute was half of the cost
        with sqlite_cursor(connection) as cursor:
            if cursor.execute(_WIDEN_SQLITE, parameters).fetchone() is not None:
                return True
            return cursor.execute("SELECT 1 FROM session WHERE id = :session_id", parameters).fetchone() is not None
    if connection.execute(_widen(), parameters).first() is not None:
        return True
    return connection.execute(_exists(), parameters).first() is not None


# _widen() on SQLite, through the driver (tests/store/test_session_extend.py runs both on their databases).
_WIDEN_SQLITE = ("UPDATE session SET started_at = CASE WHEN started_at > :first_ms THEN :first_ms ELSE started_at END, "
                 "last_activity_at = CASE WHEN last_activity_at < :last_ms THEN :last_ms ELSE last_activity_at END "
                 "WHERE id = :session_id AND (started_at > :first_ms OR last_activity_at < :last_ms) RETURNING id")


def _held(session: Session, session_id: str) -> bool:
    if not session.identity_map and not session.new:  # a store's transaction holds no ORM object
        return False
    return (identity_key(SessionRow, session_id) in session.identity_map
            or any(isinstance(obj, SessionRow) and obj.id == session_id for obj in session.new))


@functools.cache
def _widen() -> Any:
    table = SessionRow.__table__
    first: BindParameter[int] = bindparam("first_ms")
    last: BindParameter[int] = bindparam("last_ms")
    return (update(table)
            .where(table.c.id == bindparam("session_id"),
                   (table.c.started_at > first) | (table.c.last_activity_at < last))
            .values(started_at=case((table.c.started_at > first, first), else_=table.c.started_at),
                    last_activity_at=case((table.c.last_activity_at < last, last), else_=table.c.last_activity_at))
            .returning(table.c.id))


@functools.cache
def _exists() -> Any:
    table = SessionRow.__table__
    return select(table.c.id).where(table.c.id == bindparam("session_id"))


def _extend_held(session: Session, session_id: str, first_ms: int, last_ms: int) -> bool:
    row = session.get(SessionRow, session_id)
    if row is None:
        return False
    if first_ms < row.started_at or last_ms > row.last_activity_at:
        row.started_at = min(row.started_at, first_ms)
        row.last_activity_at = max(row.last_activity_at, last_ms)
        session.add(row)
    return True


def touch_session(session: Session, session_id: str, now_ms: int) -> None:
    row = session.get(SessionRow, session_id)
    if row is not None and row.last_activity_at < now_ms:
        row.last_activity_at = now_ms
        session.add(row)


def end_session(session: Session, session_id: str, now_ms: int) -> SessionRecord:
    row = session.get(SessionRow, session_id)
    if row is None:
        raise NotFound("session id", session_id)
    if row.ended_at is None:
        row.ended_at = now_ms
        session.add(row)
        session.flush()
    return _session(row)


def get_session(session: Session, session_id: str) -> SessionRecord:
    row = session.get(SessionRow, session_id)
    if row is None:
        raise NotFound("session id", session_id)
    return _session(row)


def recent_sessions(session: Session, limit: int, project: str | None) -> list[SessionRecord]:
    query = select(SessionRow)
    if project is not None:
        query = query.where(SessionRow.project == project)
    query = query.order_by(col(SessionRow.started_at).desc(), col(SessionRow.id).desc()).limit(limit)
    return [_session(row) for row in session.exec(query)]


def session_memories(session: Session, session_ids: Sequence[str],
                     per_session: int) -> dict[str, tuple[list[Memory], int]]:
    """Each session's memories in creation order (at most ``per_session``) and their full count."""
    found: dict[str, list[Memory]] = {sid: [] for sid in session_ids}
    for chunk in _chunks(list(session_ids)):
        query = (select(MemoryRow).where(col(MemoryRow.session_id).in_(chunk))
                 .order_by(col(MemoryRow.created_at), col(MemoryRow.seq)))
        for row in session.exec(query):
            found[row.session_id or ""].append(memory_from_row(row))
    return {sid: (memories[:per_session], len(memories)) for sid, memories in found.items()}


def add_prompt(session: Session, record: PromptRecord) -> PromptRecord:
    session.add(PromptRow(**_fields(record)))
    return record


def prompts_for(session: Session, session_ids: Sequence[str]) -> dict[str, list[PromptRecord]]:
    found: dict[str, list[PromptRecord]] = {sid: [] for sid in session_ids}
    for chunk in _chunks(list(session_ids)):
        query = (select(PromptRow).where(col(PromptRow.session_id).in_(chunk))
                 .order_by(col(PromptRow.created_at), col(PromptRow.id)))
        for row in session.exec(query):
            found[row.session_id or ""].append(PromptRecord(**_fields(row, PromptRecord)))
    return found


def recent_memories(session: Session, project: str | None, limit: int, now_ms: int) -> list[Memory]:
    """Current memories of ``project``, most recently created or used first."""
    query = select(MemoryRow).where(col(MemoryRow.status).in_(["active", "promoted"]),
                                    col(MemoryRow.superseded_by).is_(None),
                                    col(MemoryRow.valid_to).is_(None)
                                    | (col(MemoryRow.valid_to) > now_ms))
    if project is not None:
        query = query.where(MemoryRow.project == project)
    query = query.order_by(col(MemoryRow.last_used_at).desc(), col(MemoryRow.seq).desc()).limit(limit)
    return [memory_from_row(row) for row in session.exec(query)]


def pending_conflicts(session: Session, types: Sequence[str], project: str | None,
                      limit: int) -> list[Relation]:
    """Pending (unjudged) relations of the conflict types, newest first; with ``project``, those
    touching one of its memories."""
    query = select(RelationRow).where(RelationRow.status == "pending",
                                      col(RelationRow.type).in_(list(types)))
    if project is not None:
        ids = select(MemoryRow.id).where(MemoryRow.project == project)
        query = query.where(col(RelationRow.source_id).in_(ids) | col(RelationRow.target_id).in_(ids))
    query = query.order_by(col(RelationRow.created_at).desc(), col(RelationRow.id)).limit(limit)
    return [relation_from_row(row) for row in session.exec(query)]


def active_skills(session: Session, limit: int) -> list[dict[str, Any]]:
    """Rows of a ``skill`` table with status ``active``, if another module created one; else []."""
    inspector = inspect(session.connection())
    if not inspector.has_table("skill"):
        return []
    columns = {column["name"] for column in inspector.get_columns("skill")}
    shown = [name for name in _SKILL_FIELDS if name in columns]
    if "status" not in columns or not shown:
        return []
    # The column names come from _SKILL_FIELDS, never from input.
    sql = text(f"SELECT {', '.join(shown)} FROM skill WHERE status = 'active' LIMIT :limit")
    return [dict(zip(shown, row, strict=True)) for row in session.connection().execute(sql, {"limit": limit})]


def _same(column: Any, value: str | None) -> Any:
    return col(column).is_(None) if value is None else column == value


def _session(row: SessionRow) -> SessionRecord:
    return SessionRecord(**_fields(row, SessionRecord))


def _fields(source: Any, target: type[DataclassInstance] | None = None) -> dict[str, Any]:
    names = (target or type(source)).__dataclass_fields__
    return {name: getattr(source, name) for name in names}

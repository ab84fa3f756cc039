"""Automatic sessions: a stored observation without a ``session_id`` joins the live session of its project;
one that names a session (an import of past observations) creates or widens that session's row.

It runs inside the store's own transaction, so attaching (and opening a session when none is live)
commits or rolls back with the memories themselves: no second transaction per store. That is why it
lives with the memories' write path, below the sessions feature that starts, ends and lists sessions.

A session can also be *reserved* (:class:`ReservedSessions`): promised to a caller, a client connection, but
not written. The first write that names it creates its row inside that write's own transaction, so a first
write that fails leaves no empty session behind.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

from graphmem.core.time import to_ms
from graphmem.ids import new_id
from graphmem.settings import LifecycleSettings
from graphmem.store import session_store
from graphmem.store.drafts import MemoryDraft
from graphmem.store.session_store import SessionRecord

__all__ = ["ReservedSessions", "adopt_sessions", "attach_sessions", "live_or_new"]


class ReservedSessions:
    """Sessions handed out but not written yet, by id (thread-safe; one per service).

    A reservation stays until its holder sees the row committed (``SessionService.settle``), so a write
    that rolls back, or stores only a duplicate, leaves it for the next one.
    """

    def __init__(self) -> None:
        self._records: dict[str, SessionRecord] = {}
        self._lock = threading.Lock()

    def reserve(self, record: SessionRecord) -> str:
        with self._lock:
            self._records[record.id] = record
        return record.id

    def get(self, session_id: str) -> SessionRecord | None:
        with self._lock:
            return self._records.get(session_id)

    def discard(self, session_ids: Sequence[str]) -> None:
        with self._lock:
            for session_id in session_ids:
                self._records.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._records)


def attach_sessions(session: Any, drafts: Sequence[MemoryDraft], settings: LifecycleSettings,
                    now_ms: int) -> list[MemoryDraft]:
    """The drafts, each without a session given the live session of its project (opening one if needed)."""
    if not settings.auto_sessions:
        return list(drafts)
    by_project: dict[str | None, str] = {}
    attached = []
    for draft in drafts:
        if not draft.session_id and draft.project not in by_project:
            record, _ = live_or_new(session, settings, draft.project, None, now_ms, any_client=True)
            by_project[draft.project] = record.id
        attached.append(draft if draft.session_id else draft.in_session(by_project[draft.project]))
    return attached


def adopt_sessions(session: Any, drafts: Sequence[MemoryDraft], settings: LifecycleSettings,
                   reserved: ReservedSessions | None = None) -> None:
    """Make every ``session_id`` the drafts name a session row spanning its memories' times.

    A session the store does not know yet (imported observations keep their ids) starts at its
    earliest memory, was last active at its latest, and takes the project most of its memories have;
    a known session is widened when a memory falls outside its span. Pass only the drafts that were
    inserted and named their session themselves (not duplicates, not automatic attachments). A reserved
    session is written as it was reserved (its project and client), widened to its memories.
    """
    named: dict[str, list[MemoryDraft]] = {}
    for draft in drafts:
        if draft.session_id:
            named.setdefault(draft.session_id, []).append(draft)
    for session_id, members in named.items():
        times = [to_ms(draft.created_at) for draft in members]
        if session_store.extend_session(session, session_id, min(times), max(times)):
            continue
        promised = reserved.get(session_id) if reserved is not None else None
        if promised is not None:
            session_store.create_session(session, dataclasses.replace(
                promised, started_at=min(promised.started_at, *times),
                last_activity_at=max(promised.last_activity_at, *times)))
        else:
            project = Counter(draft.project for draft in members).most_common(1)[0][0]
            session_store.create_session(session, SessionRecord(
                session_id, project, None, min(times), max(times), None, settings.session_timeout_s))


def live_or_new(session: Any, settings: LifecycleSettings, project: str | None, client: str | None,
                now_ms: int, *, any_client: bool, timeout_s: int | None = None,
                new: bool = False) -> tuple[SessionRecord, bool]:
    """The live session of ``project`` (and ``client``), touched, or a new one; and whether it was reused."""
    if not new:
        live = session_store.claim_live_session(session, project, client, now_ms, any_client=any_client)
        if live is not None:
            return live, True
    record = SessionRecord(new_id("ses"), project, client, now_ms, now_ms, None,
                           timeout_s or settings.session_timeout_s)
    return session_store.create_session(session, record), False

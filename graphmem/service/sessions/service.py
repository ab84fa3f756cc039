"""Sessions, saved prompts and the timeline.

A session is a stretch of work in one project (and optionally one client, e.g. an IDE). It starts:

* automatically: ``store`` without a ``session_id`` attaches the memory to the most recently active
  open session of its project (any client) that has been idle for less than its timeout (2 h by
  default), or opens one;
* explicitly: ``start(project, client, timeout_s)`` reuses the live session of that project *and*
  client, or opens a new one (``new=True`` always opens one).

A start returns what an agent needs to begin: the project's recent memories, due reviews, pending
conflicts, and active skills when a ``skill`` table exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmem.core.relations import RELATION_TYPES
from graphmem.core.time import from_ms
from graphmem.errors import NotFound
from graphmem.ids import new_id
from graphmem.service.lifecycle.context import LifecycleContext
from graphmem.service.lifecycle.decay_scores import describe
from graphmem.service.memories.reports import LifecycleReport
from graphmem.service.memories.session_attach import ReservedSessions, live_or_new
from graphmem.service.metrics import MetricsRecorder, measured
from graphmem.service.scrub import scrub_text
from graphmem.service.sessions.results import ConflictItem, PromptItem, SessionInfo, SessionReport, TimelineEntry
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count
from graphmem.store import session_store
from graphmem.store.session_store import PromptRecord, SessionRecord

__all__ = ["SessionService"]

_CONFLICT_TYPES = tuple(name for name, row in RELATION_TYPES.items() if row.recall == "surface_conflict")
_MAX_TIMEOUT_S = 7 * 24 * 3600

# The review queue of a session start: ``LifecycleService.review_queue`` (measured there).
ReviewQueue = Callable[[str | None, int], LifecycleReport]


class SessionService:
    """Session use cases (reached as ``service.sessions``)."""

    def __init__(self, uow: UnitOfWork, life: LifecycleContext, metrics: MetricsRecorder,
                 review_queue: ReviewQueue, reserved: ReservedSessions | None = None) -> None:
        self.uow = uow
        self.life = life  # the clock and decay parameters every item is described with
        self.metrics = metrics
        self.review_queue = review_queue  # the due reviews of a session start
        self.settings = uow.settings.lifecycle
        self.reserved = reserved if reserved is not None else ReservedSessions()  # shared with the writes

    @measured("session.start")
    def start(self, project: str | None = None, client: str | None = None, *, timeout_s: int | None = None,
              new: bool = False) -> SessionReport:
        """Reuse or open a session, and return recent memories, due reviews, open conflicts and skills."""
        project, client = _name("project", project), _name("client", client)
        if timeout_s is not None:
            timeout_s = check_count("timeout_s", timeout_s, 60, _MAX_TIMEOUT_S)
        now = self.life.now_ms()
        with self.uow.write() as write:
            record, reused = live_or_new(write.session, self.settings, project, client, now, any_client=False,
                                         timeout_s=timeout_s, new=new)
        with self.uow.read() as session:
            recent = session_store.recent_memories(session, project, self.settings.recent_memories, now)
            conflicts = session_store.pending_conflicts(session, _CONFLICT_TYPES, project, 20)
            skills = session_store.active_skills(session, 20)
        return SessionReport(
            "start", session=self._info(record, now), reused=reused,
            recent_memories=tuple(describe(m, self.life.params, now) for m in recent),
            due_reviews=self.review_queue(project, 20).items,
            open_conflicts=tuple(ConflictItem(r.id, r.type, r.source_id, r.target_id, r.confidence, r.reason,
                                              r.created_at.isoformat()) for r in conflicts),
            active_skills=tuple(skills),
            message=("resumed" if reused else "started") + f" session {record.id}")

    def reserve(self, project: str | None = None, client: str | None = None) -> str:
        """A new session's id, not written: the first memory or prompt stored under it writes its row in
        that write's own transaction (a client connection's session, so a failed first write leaves no
        empty session behind). Call :meth:`settle` after a write that named it succeeded."""
        now = self.life.now_ms()
        return self.reserved.reserve(SessionRecord(new_id("ses"), _name("project", project), _name("client", client),
                                                   now, now, None, self.settings.session_timeout_s))

    def settle(self, session_id: str) -> bool:
        """Forget the reservation of ``session_id`` once its row is in the store; whether it is."""
        if self.reserved.get(session_id) is None:
            return True
        with self.uow.read() as session:
            if not self._written(session, session_id):
                return False
        self.reserved.discard([session_id])
        return True

    @staticmethod
    def _written(session: Any, session_id: str) -> bool:
        try:
            session_store.get_session(session, session_id)
        except NotFound:
            return False
        return True

    @measured("session.end")
    def end(self, session_id: str | None = None, project: str | None = None,
            client: str | None = None) -> SessionReport:
        """End a session by id, or the live session of ``project`` (and ``client``)."""
        now = self.life.now_ms()
        with self.uow.write() as write:
            if session_id is None:
                live = session_store.live_session(write.session, _name("project", project), _name("client", client),
                                                  now, any_client=client is None)
                if live is None:
                    raise NotFound("open session for project", str(project))
                session_id = live.id
            session_id = _name("session_id", session_id) or ""
            if self.reserved.get(session_id) is not None and not self._written(write.session, session_id):
                # A connection's session that no write has opened yet: nothing to end, and nothing to keep.
                self.reserved.discard([session_id])
                raise NotFound("open session for project", str(project))
            record = session_store.end_session(write.session, session_id, now)
        return SessionReport("end", session=self._info(record, now), message=f"ended session {record.id}")

    @measured("session.save_prompt")
    def save_prompt(self, content: str, session_id: str | None = None, project: str | None = None,
                    client: str | None = None) -> SessionReport:
        """Keep the user's prompt for a session (the live one of ``project`` when no id is given)."""
        text = scrub_text("content", content, self.life.settings.limits.max_content_chars,
                          required=True) or ""
        now = self.life.now_ms()
        with self.uow.write() as write:
            if session_id is not None:
                session_id = _name("session_id", session_id) or ""
                promised = self.reserved.get(session_id)
                try:
                    record = session_store.get_session(write.session, session_id)
                except NotFound:
                    if promised is None:
                        raise
                    record = session_store.create_session(write.session, promised)
                session_store.touch_session(write.session, record.id, now)
            else:
                record, _ = live_or_new(write.session, self.settings, _name("project", project),
                                        _name("client", client), now, any_client=client is None)
            prompt = session_store.add_prompt(write.session, PromptRecord(
                new_id("prm"), record.id, project or record.project, text, now))
        return SessionReport("save_prompt", session=self._info(record, now), prompt=_prompt(prompt),
                             message=f"saved prompt {prompt.id} in session {record.id}")

    def recent(self, project: str | None = None, limit: int = 20) -> tuple[Any, ...]:
        """Current memories, most recently created or used first (what a session start shows)."""
        limit = check_count("limit", limit, 1, 500)
        now = self.life.now_ms()
        with self.uow.read() as session:
            recent = session_store.recent_memories(session, _name("project", project), limit, now)
        return tuple(describe(m, self.life.params, now) for m in recent)

    @measured("session.timeline")
    def timeline(self, limit: int = 5, session_id: str | None = None, project: str | None = None,
                 per_session: int = 50) -> SessionReport:
        """Recent sessions, newest first, each with its observations (oldest first) and prompts."""
        limit = check_count("limit", limit, 1, 100)
        per_session = check_count("per_session", per_session, 1, 1_000)
        with self.uow.read() as session:
            if session_id is not None:
                sessions = [session_store.get_session(session, _name("session_id", session_id) or "")]
            else:
                sessions = session_store.recent_sessions(session, limit, _name("project", project))
            ids = [s.id for s in sessions]
            memories = session_store.session_memories(session, ids, per_session)
            prompts = session_store.prompts_for(session, ids)
        now = self.life.now_ms()
        entries = tuple(TimelineEntry(
            session=self._info(s, now),
            observations=tuple(describe(m, self.life.params, now) for m in memories[s.id][0]),
            observation_count=memories[s.id][1], prompts=tuple(_prompt(p) for p in prompts[s.id]))
            for s in sessions)
        return SessionReport("timeline", timeline=entries, message=f"{len(entries)} sessions")

    @staticmethod
    def _info(record: SessionRecord, now: int) -> SessionInfo:
        live = record.ended_at is None and now - record.last_activity_at < record.timeout_s * 1000
        return SessionInfo(
            id=record.id, project=record.project, client=record.client,
            started_at=from_ms(record.started_at).isoformat(),
            last_activity_at=from_ms(record.last_activity_at).isoformat(),
            ended_at=None if record.ended_at is None else from_ms(record.ended_at).isoformat(),
            timeout_s=record.timeout_s, open=live)


def _name(field: str, value: str | None) -> str | None:
    return scrub_text(field, value, 200)


def _prompt(record: PromptRecord) -> PromptItem:
    return PromptItem(id=record.id, session_id=record.session_id, content=record.content,
                      created_at=from_ms(record.created_at).isoformat())

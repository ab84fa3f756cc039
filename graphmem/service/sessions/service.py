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

from dataclasses import replace
from typing import TYPE_CHECKING

from graphmem.core.relations import RELATION_TYPES
from graphmem.errors import InvalidInput, NotFound
from graphmem.ids import new_id
from graphmem.service.lifecycle.decay_scores import describe
from graphmem.service.lifecycle.results import (
    ConflictItem,
    PromptItem,
    SessionInfo,
    SessionReport,
    TimelineEntry,
)
from graphmem.service.memories.drafts import Observation
from graphmem.service.validation import check_count, check_text, strip_private
from graphmem.store.convert import from_ms
from graphmem.store.session_store import PromptRecord, SessionRecord, SessionRepository

if TYPE_CHECKING:
    from graphmem.service.lifecycle.service import LifecycleService

__all__ = ["SessionService"]

_CONFLICT_TYPES = tuple(name for name, row in RELATION_TYPES.items() if row.recall == "surface_conflict")
_MAX_TIMEOUT_S = 7 * 24 * 3600


class SessionService:
    """Session use cases; reached as ``MemoryService.lifecycle.sessions``."""

    def __init__(self, lifecycle: LifecycleService) -> None:
        self.lifecycle = lifecycle
        self.settings = lifecycle.settings.lifecycle
        self.repository = SessionRepository(lifecycle.service.engine)

    def attach(self, observation: Observation) -> Observation:
        """Give an observation without a session the live session of its project (opening one if needed)."""
        if observation.session_id or not self.settings.auto_sessions:
            return observation
        record, _ = self._live_or_new(observation.project, None, any_client=True)
        return replace(observation, session_id=record.id)

    def start(self, project: str | None = None, client: str | None = None, *, timeout_s: int | None = None,
              new: bool = False) -> SessionReport:
        """Reuse or open a session, and return recent memories, due reviews, open conflicts and skills."""
        project, client = _name("project", project), _name("client", client)
        if timeout_s is not None:
            timeout_s = check_count("timeout_s", timeout_s, 60, _MAX_TIMEOUT_S)
        record, reused = self._live_or_new(project, client, any_client=False, timeout_s=timeout_s, new=new)
        now = self.lifecycle.now_ms()
        recent = self.repository.recent_memories(project, self.settings.recent_memories, now)
        conflicts = self.repository.pending_conflicts(_CONFLICT_TYPES, project, 20)
        return SessionReport(
            "start", session=self._info(record, now), reused=reused,
            recent_memories=tuple(describe(m, self.lifecycle.params, now) for m in recent),
            due_reviews=self.lifecycle.review_queue(project, 20).items,
            open_conflicts=tuple(ConflictItem(r.id, r.type, r.source_id, r.target_id, r.confidence, r.reason,
                                              r.created_at.isoformat()) for r in conflicts),
            active_skills=tuple(self.repository.active_skills(20)),
            message=("resumed" if reused else "started") + f" session {record.id}")

    def end(self, session_id: str | None = None, project: str | None = None,
            client: str | None = None) -> SessionReport:
        """End a session by id, or the live session of ``project`` (and ``client``)."""
        now = self.lifecycle.now_ms()
        if session_id is None:
            live = self.repository.live_session(_name("project", project), _name("client", client), now,
                                                any_client=client is None)
            if live is None:
                raise NotFound("open session for project", str(project))
            session_id = live.id
        record = self.repository.end_session(_name("session_id", session_id) or "", now)
        return SessionReport("end", session=self._info(record, now), message=f"ended session {record.id}")

    def save_prompt(self, content: str, session_id: str | None = None, project: str | None = None,
                    client: str | None = None) -> SessionReport:
        """Keep the user's prompt for a session (the live one of ``project`` when no id is given)."""
        text = strip_private(check_text("content", content, self.lifecycle.settings.limits.max_content_chars,
                                        required=True) or "").strip()
        if not text:
            raise InvalidInput("content is empty once <private> blocks are removed")
        now = self.lifecycle.now_ms()
        if session_id is not None:
            record = self.repository.get_session(_name("session_id", session_id) or "")
            self.repository.touch_session(record.id, now)
        else:
            record, _ = self._live_or_new(_name("project", project), _name("client", client),
                                          any_client=client is None)
        prompt = self.repository.add_prompt(PromptRecord(new_id("prm"), record.id, project or record.project,
                                                         text, now))
        return SessionReport("save_prompt", session=self._info(record, now), prompt=_prompt(prompt),
                             message=f"saved prompt {prompt.id} in session {record.id}")

    def timeline(self, limit: int = 5, session_id: str | None = None, project: str | None = None,
                 per_session: int = 50) -> SessionReport:
        """Recent sessions, newest first, each with its observations (oldest first) and prompts."""
        limit = check_count("limit", limit, 1, 100)
        per_session = check_count("per_session", per_session, 1, 1_000)
        if session_id is not None:
            sessions = [self.repository.get_session(_name("session_id", session_id) or "")]
        else:
            sessions = self.repository.recent_sessions(limit, _name("project", project))
        ids = [s.id for s in sessions]
        memories = self.repository.session_memories(ids, per_session)
        prompts = self.repository.prompts_for(ids)
        now = self.lifecycle.now_ms()
        entries = tuple(TimelineEntry(
            session=self._info(s, now),
            observations=tuple(describe(m, self.lifecycle.params, now) for m in memories[s.id][0]),
            observation_count=memories[s.id][1], prompts=tuple(_prompt(p) for p in prompts[s.id]))
            for s in sessions)
        return SessionReport("timeline", timeline=entries, message=f"{len(entries)} sessions")

    def _live_or_new(self, project: str | None, client: str | None, *, any_client: bool,
                     timeout_s: int | None = None, new: bool = False) -> tuple[SessionRecord, bool]:
        now = self.lifecycle.now_ms()
        if not new:
            live = self.repository.live_session(project, client, now, any_client=any_client)
            if live is not None:
                self.repository.touch_session(live.id, now)
                return replace(live, last_activity_at=max(live.last_activity_at, now)), True
        record = SessionRecord(new_id("ses"), project, client, now, now, None,
                               timeout_s or self.settings.session_timeout_s)
        return self.repository.create_session(record), False

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
    return check_text(field, value, 200) or None


def _prompt(record: PromptRecord) -> PromptItem:
    return PromptItem(id=record.id, session_id=record.session_id, content=record.content,
                      created_at=from_ms(record.created_at).isoformat())

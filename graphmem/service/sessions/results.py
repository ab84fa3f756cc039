"""Result values of the session use cases: start, end, timeline and saved prompts (mirrored in Pydantic by
``graphmem.server.models.sessions``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphmem.service.lifecycle.results import LifecycleItem

__all__ = ["ConflictItem", "PromptItem", "SessionInfo", "SessionReport", "TimelineEntry"]


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    project: str | None
    client: str | None
    started_at: str
    last_activity_at: str
    ended_at: str | None
    timeout_s: int
    open: bool


@dataclass(frozen=True, slots=True)
class ConflictItem:
    """A pending conflict relation that still needs a judgment."""

    relation_id: str
    type: str
    source_id: str
    target_id: str
    confidence: float
    reason: str | None
    created_at: str


@dataclass(frozen=True, slots=True)
class PromptItem:
    id: str
    session_id: str | None
    content: str
    created_at: str


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One session with its observations (oldest first) and saved prompts."""

    session: SessionInfo
    observations: tuple[LifecycleItem, ...]
    observation_count: int  # all of them, even when ``observations`` is cut at per_session
    prompts: tuple[PromptItem, ...] = ()


@dataclass(frozen=True, slots=True)
class SessionReport:
    """What a session action returns; a start carries what an agent needs to begin."""

    action: str
    session: SessionInfo | None = None
    reused: bool = False
    recent_memories: tuple[LifecycleItem, ...] = ()
    due_reviews: tuple[LifecycleItem, ...] = ()
    open_conflicts: tuple[ConflictItem, ...] = ()
    active_skills: tuple[dict[str, Any], ...] = ()
    timeline: tuple[TimelineEntry, ...] = ()
    prompt: PromptItem | None = None
    message: str = ""

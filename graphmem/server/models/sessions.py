"""Output models of the session tools."""

from __future__ import annotations

from typing import Any

from graphmem.server.models.base import Out
from graphmem.server.models.lifecycle import LifecycleItemOut

__all__ = ["ConflictItemOut", "PromptOut", "SessionInfoOut", "SessionOut", "TimelineEntryOut"]


class SessionInfoOut(Out):
    id: str
    project: str | None
    client: str | None
    started_at: str
    last_activity_at: str
    ended_at: str | None
    timeout_s: int
    open: bool


class ConflictItemOut(Out):
    relation_id: str
    type: str
    source_id: str
    target_id: str
    confidence: float
    reason: str | None
    created_at: str


class PromptOut(Out):
    id: str
    session_id: str | None
    content: str
    created_at: str


class TimelineEntryOut(Out):
    session: SessionInfoOut
    observations: list[LifecycleItemOut]
    observation_count: int
    prompts: list[PromptOut] = []


class SessionOut(Out):
    action: str
    session: SessionInfoOut | None = None
    reused: bool = False
    recent_memories: list[LifecycleItemOut] = []
    due_reviews: list[LifecycleItemOut] = []
    open_conflicts: list[ConflictItemOut] = []
    active_skills: list[dict[str, Any]] = []
    timeline: list[TimelineEntryOut] = []
    prompt: PromptOut | None = None
    message: str = ""

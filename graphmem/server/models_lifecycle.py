"""Pydantic output models of the lifecycle and session tools (read from the service's dataclasses)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ConflictItemOut",
    "LifecycleItemOut",
    "LifecycleOut",
    "MetricOut",
    "PromptOut",
    "SessionInfoOut",
    "SessionOut",
    "TimelineEntryOut",
]


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class LifecycleItemOut(_Out):
    """One memory as the lifecycle sees it; fields that do not apply to the action are null."""

    id: str
    kind: str | None = None
    project: str | None = None
    status: str | None = None
    content: str | None = None
    score: float | None = None
    use_count: int | None = None
    strength: float | None = None
    created_at: str | None = None
    last_used_at: str | None = None
    review_after: str | None = None
    days_overdue: float | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    superseded_by: str | None = None
    parent_id: str | None = None
    current: bool | None = None
    eligible: bool | None = None
    reasons: list[str] = []
    vault_path: str | None = None


class MetricOut(_Out):
    operation: str
    calls: int
    errors: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    max_ms: float
    total_ms: float
    first_at: str
    last_at: str


class LifecycleOut(_Out):
    action: str
    items: list[LifecycleItemOut]
    dry_run: bool
    count: int
    total: int
    created_id: str | None = None
    relation_id: str | None = None
    message: str
    metrics: list[MetricOut] = []


class SessionInfoOut(_Out):
    id: str
    project: str | None
    client: str | None
    started_at: str
    last_activity_at: str
    ended_at: str | None
    timeout_s: int
    open: bool


class ConflictItemOut(_Out):
    relation_id: str
    type: str
    source_id: str
    target_id: str
    confidence: float
    reason: str | None
    created_at: str


class PromptOut(_Out):
    id: str
    session_id: str | None
    content: str
    created_at: str


class TimelineEntryOut(_Out):
    session: SessionInfoOut
    observations: list[LifecycleItemOut]
    observation_count: int
    prompts: list[PromptOut] = []


class SessionOut(_Out):
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

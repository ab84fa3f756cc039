"""Result values of the lifecycle, session and metrics use cases (mirrored in Pydantic by the MCP layer).

Every item carries the memory id, so an agent can act on what it sees (KiroGraph's review and search
output hid the ids that mark_reviewed and judge need).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "ConflictItem",
    "LifecycleItem",
    "LifecycleReport",
    "MetricSummary",
    "PromptItem",
    "SessionInfo",
    "SessionReport",
    "TimelineEntry",
]


@dataclass(frozen=True, slots=True)
class LifecycleItem:
    """One memory as a lifecycle operation sees it; fields that do not apply stay None."""

    id: str
    kind: str | None = None
    project: str | None = None
    status: str | None = None
    content: str | None = None
    score: float | None = None  # decay score (use_count+1)^β · D(Δt) · strength, now
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
    current: bool | None = None  # history: the version default recall shows
    eligible: bool | None = None  # promotion: meets the criteria
    reasons: tuple[str, ...] = ()  # why not eligible, or why skipped
    vault_path: str | None = None


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """Counters and latency of one operation, across restarts until reset."""

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


@dataclass(frozen=True, slots=True)
class LifecycleReport:
    """What a lifecycle action did, or with ``dry_run`` would do."""

    action: str
    items: tuple[LifecycleItem, ...] = ()
    dry_run: bool = False
    count: int = 0  # memories changed (or, in a dry run, that would change)
    total: int = 0  # candidates before the limit
    created_id: str | None = None
    relation_id: str | None = None
    message: str = ""
    metrics: tuple[MetricSummary, ...] = ()

    def __post_init__(self) -> None:
        # Candidates before the limit are never fewer than those acted on: an action on named memories
        # (touch, forget, correct...) has as many candidates as it changed.
        if self.total < self.count:
            object.__setattr__(self, "total", self.count)


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

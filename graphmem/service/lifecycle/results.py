"""Result values of the lifecycle use cases (mirrored in Pydantic by the MCP layer); sessions and metrics
keep theirs in ``sessions/results.py`` and ``metrics.py``.

Every item carries the memory id, so an agent can act on what it sees (KiroGraph's review and search
output hid the ids that mark_reviewed and judge need).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.service.metrics import MetricSummary

__all__ = ["LifecycleItem", "LifecycleReport"]


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

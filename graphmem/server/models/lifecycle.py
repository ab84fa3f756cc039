"""Output models of the lifecycle tools (read from the service's dataclasses)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["LifecycleItemOut", "LifecycleOut", "MetricOut"]


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


def _absent(value: object) -> bool:
    return value is None or value == []


class LifecycleItemOut(_Out):
    """One memory as the lifecycle sees it; fields that do not apply to the action are left out.

    An item has twenty fields and most actions fill a few: leaving out the empty ones keeps a review
    queue or a timeline short enough to read in an agent's context.
    """

    id: str
    kind: str | None = Field(None, exclude_if=_absent)
    project: str | None = Field(None, exclude_if=_absent)
    status: str | None = Field(None, exclude_if=_absent)
    content: str | None = Field(None, exclude_if=_absent)
    score: float | None = Field(None, exclude_if=_absent, description="decay score now")
    use_count: int | None = Field(None, exclude_if=_absent)
    strength: float | None = Field(None, exclude_if=_absent)
    created_at: str | None = Field(None, exclude_if=_absent)
    last_used_at: str | None = Field(None, exclude_if=_absent)
    review_after: str | None = Field(None, exclude_if=_absent)
    days_overdue: float | None = Field(None, exclude_if=_absent)
    valid_from: str | None = Field(None, exclude_if=_absent)
    valid_to: str | None = Field(None, exclude_if=_absent)
    superseded_by: str | None = Field(None, exclude_if=_absent)
    parent_id: str | None = Field(None, exclude_if=_absent)
    current: bool | None = Field(None, exclude_if=_absent, description="history: the version recall shows")
    eligible: bool | None = Field(None, exclude_if=_absent, description="promote: meets the criteria")
    reasons: list[str] = Field([], exclude_if=_absent, description="why not eligible, or what else applied")
    vault_path: str | None = Field(None, exclude_if=_absent)


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

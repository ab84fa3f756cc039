"""Output models of the memory tools: store, open, history, capture."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, field_serializer

from graphmem.server.models.base import Out, optional

__all__ = ["CaptureOut", "ChangeOut", "HistoryOut", "MemoryBriefOut", "MemoryOut", "OpenOut", "RelationOut", "StoreOut",
           "TopicKeyOut"]


class StoreOut(Out):
    id: str
    kind: str
    duplicate: bool
    concepts: list[str]
    project: str | None = optional()
    topic_key: str | None = optional()
    superseded: list[str] = optional([], "ids this store replaced (same topic key)")
    redacted: dict[str, int] = optional({}, "secrets replaced by [REDACTED:kind], by kind (never the value)")


class MemoryOut(Out):
    id: str
    content: str
    kind: str
    status: str
    created_at: datetime
    project: str | None = optional()
    topic_key: str | None = optional()
    tags: list[str] = optional([])
    entities: list[str] = optional([])
    source: str | None = optional()
    context: str | None = optional()
    meta: dict[str, Any] = optional({})
    session_id: str | None = optional()
    last_used_at: datetime | None = optional()
    use_count: int = 0
    strength: float = 1.0
    valid_from: datetime | None = optional()
    valid_to: datetime | None = optional()
    superseded_by: str | None = optional()
    review_after: datetime | None = optional()
    parent_id: str | None = optional()
    outcome: str | None = optional()
    task_type: str | None = optional()
    tools_used: list[str] = optional([])

    @field_serializer("created_at", "last_used_at", "valid_from", "valid_to", "review_after")
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()


class RelationOut(Out):
    id: str
    source_id: str
    target_id: str
    type: str
    confidence: float
    status: str
    reason: str | None = optional()
    evidence: str | None = optional()
    meta: dict[str, Any] = optional({})
    created_at: datetime
    judged_at: datetime | None = optional()

    @field_serializer("created_at", "judged_at")
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()


class OpenOut(Out):
    memories: list[MemoryOut]
    relations: list[RelationOut]
    not_found: list[str]
    concepts: dict[str, list[str]]


class MemoryBriefOut(Out):
    """Enough of a memory to judge a relation without opening it."""

    id: str
    kind: str
    content: str
    project: str | None = optional()
    topic_key: str | None = optional()
    created_at: str
    valid_from: str
    valid_to: str | None = optional()
    superseded_by: str | None = optional()
    status: str


class HistoryEventOut(Out):
    old_id: str
    new_id: str
    at: str
    via: str
    relation_id: str | None = optional()
    reason: str | None = optional()


class HistoryVersionOut(MemoryBriefOut):
    """One version of a memory's history."""

    parent_id: str | None = optional()
    current: bool = Field(description="the version default recall shows")


class HistoryOut(Out):
    ref: str
    memories: list[HistoryVersionOut]
    events: list[HistoryEventOut]
    current_ids: list[str] = Field(description="the versions recall shows now")


class CapturedItemOut(Out):
    kind: str
    content: str
    section: str
    line: int
    id: str | None
    duplicate: bool


class SkippedLineOut(Out):
    line: int
    text: str
    reason: str


class CaptureOut(Out):
    items: list[CapturedItemOut]
    skipped: list[SkippedLineOut]
    sections: list[str]
    stored: int
    duplicates: int
    dry_run: bool
    ids: list[str] = optional([], "ids of the stored memories")
    truncated: list[str] = optional([], "what a cap of the answer cut")


class ChangeOut(Out):
    """What a correct, forget, restore or touch did to a memory."""

    id: str = Field(description="the memory acted on")
    action: str
    message: str
    created_id: str | None = optional(None, "correct: the new version")
    status: str | None = optional(None, "the memory's status now")
    ids: list[str] = optional([], "touch: every memory reinforced")

    @classmethod
    def of(cls, report: Any) -> ChangeOut:
        ids = [item.id for item in report.items]
        first = report.items[0] if report.items else None
        return cls(id=ids[0] if ids else "", action=report.action, message=report.message,
                   created_id=report.created_id, status=getattr(first, "status", None),
                   ids=ids if len(ids) > 1 else [])


class TopicKeyOut(Out):
    topic_key: str

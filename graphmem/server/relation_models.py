"""Pydantic output models of the relation tools (they mirror ``graphmem.service.relations.results``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, field_serializer

from graphmem.server.models import RelationOut

__all__ = [
    "CaptureOut",
    "ConflictPairOut",
    "FactListOut",
    "FactOut",
    "FactResultOut",
    "FactToolOut",
    "HistoryOut",
    "LintOut",
    "MemoryBriefOut",
    "PendingOut",
    "RelationOutcomeOut",
    "RelationToolOut",
    "ScanOut",
]


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class MemoryBriefOut(_Out):
    id: str
    kind: str
    content: str
    project: str | None
    topic_key: str | None
    created_at: str
    valid_from: str
    valid_to: str | None
    superseded_by: str | None
    status: str


class RelationOutcomeOut(_Out):
    relation: RelationOut
    action: str
    message: str
    source: MemoryBriefOut
    target: MemoryBriefOut
    superseded: list[str]
    restored: list[str]


class PendingItemOut(_Out):
    relation: RelationOut
    source: MemoryBriefOut
    target: MemoryBriefOut


class PendingOut(_Out):
    items: list[PendingItemOut]
    total: int
    offset: int
    limit: int
    has_more: bool


class ConflictPairOut(_Out):
    a: MemoryBriefOut
    b: MemoryBriefOut
    score: float
    kind: str
    reason: str
    shared_concepts: list[str]
    newer_id: str
    suggested_relation: str
    signals: list[str]


class ScanOut(_Out):
    candidates: list[ConflictPairOut]
    scanned: int
    pairs_compared: int
    settled_pairs_skipped: int


class HistoryEventOut(_Out):
    old_id: str
    new_id: str
    at: str
    via: str
    relation_id: str | None
    reason: str | None


class HistoryOut(_Out):
    ref: str
    memories: list[MemoryBriefOut]
    events: list[HistoryEventOut]
    current_ids: list[str]


class RelationToolOut(_Out):
    """One of the fields is set, named after the action's result: outcome (relate, compare, judge,
    ignore), pending, scan, history or topic_key (suggest_key)."""

    action: str
    outcome: RelationOutcomeOut | None = None
    pending: PendingOut | None = None
    scan: ScanOut | None = None
    history: HistoryOut | None = None
    topic_key: str | None = None


class FactOut(_Out):
    id: str
    subject: str
    predicate: str
    object: str
    confidence: float
    valid_from: datetime
    created_at: datetime
    valid_to: datetime | None
    superseded_by: str | None
    reason: str | None
    source_id: str | None
    meta: dict[str, Any]

    @field_serializer("valid_from", "created_at", "valid_to")
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()


class FactResultOut(_Out):
    fact: FactOut
    closed: list[FactOut]
    duplicate: bool
    message: str


class FactListOut(_Out):
    facts: list[FactOut]
    as_of: str | None
    subject: str | None


class FactToolOut(_Out):
    """``result`` for add / invalidate, ``facts`` for at / timeline."""

    action: str
    result: FactResultOut | None = None
    facts: FactListOut | None = None


class CapturedItemOut(_Out):
    kind: str
    content: str
    section: str
    line: int
    id: str | None
    duplicate: bool


class SkippedLineOut(_Out):
    line: int
    text: str
    reason: str


class CaptureOut(_Out):
    items: list[CapturedItemOut]
    skipped: list[SkippedLineOut]
    sections: list[str]
    stored: int
    duplicates: int
    dry_run: bool


class LintFindingOut(_Out):
    check: str
    subject: str
    detail: str
    fixable: bool
    fixed: bool


class LintOut(_Out):
    findings: list[LintFindingOut]
    counts: dict[str, int]
    fixed: int
    fix: bool
    ok: bool

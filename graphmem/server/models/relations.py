"""Output models of the relation tools: relate, propose, pending, judge, ignore, scan."""

from __future__ import annotations

from pydantic import Field

from graphmem.server.models.base import Out, optional
from graphmem.server.models.memories import MemoryBriefOut, RelationOut

__all__ = ["ConflictPairOut", "PendingOut", "RelationOutcomeOut", "ScanOut"]


class RelationOutcomeOut(Out):
    relation: RelationOut
    action: str = Field(description="created, updated, unchanged, judged or ignored")
    message: str
    source: MemoryBriefOut
    target: MemoryBriefOut
    superseded: list[str] = optional([], "memories this call closed")
    restored: list[str] = optional([], "memories this call re-opened")


class PendingItemOut(Out):
    relation: RelationOut
    source: MemoryBriefOut
    target: MemoryBriefOut


class PendingOut(Out):
    items: list[PendingItemOut]
    total: int
    offset: int
    limit: int
    has_more: bool


class PairSideOut(Out):
    id: str
    kind: str
    content: str


class ConflictPairOut(Out):
    a: PairSideOut
    b: PairSideOut
    score: float
    kind: str
    reason: str
    shared_concepts: list[str]
    newer_id: str
    suggested_relation: str


class ScanOut(Out):
    candidates: list[ConflictPairOut] = Field(description="the strongest candidates, best first")
    total_candidates: int
    scanned: int
    pairs_compared: int
    settled_pairs_skipped: int

"""Pydantic output models: the structured content MCP clients receive.

They mirror the service's frozen dataclasses and read them with ``from_attributes``, so the
conversion happens once, here at the edge.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, field_serializer

__all__ = [
    "AssociateOut",
    "CompositionOut",
    "ConflictOut",
    "GraphOut",
    "GraphStatsOut",
    "MemoryHitOut",
    "MemoryOut",
    "OpenOut",
    "PlanStepOut",
    "RelationOut",
    "SearchHitOut",
    "SearchOut",
    "SeedNodeOut",
    "StatusOut",
    "StoreOut",
]


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class StoreOut(_Out):
    id: str
    kind: str
    duplicate: bool
    concepts: list[str]
    project: str | None = None
    topic_key: str | None = None
    superseded: list[str] = []
    redacted: dict[str, int] = {}  # secret kind → count replaced by [REDACTED:kind]; never the value


class SeedNodeOut(_Out):
    id: str
    name: str
    query_concept: str
    match: str
    weight: float


class MemoryHitOut(_Out):
    id: str
    type: str
    content: str
    project: str | None
    activation_score: float
    concepts: list[str]
    direct: bool
    created_at: str
    topic_key: str | None = None
    tags: list[str] = []


class ConflictOut(_Out):
    memory_ids: list[str]
    reason: str
    relation_id: str | None
    relation_type: str | None
    newer_id: str
    stronger_id: str | None = None


class PlanStepOut(_Out):
    order: int
    memory_id: str
    supplies: list[str]
    also_covers: list[str]
    why: str


class CompositionOut(_Out):
    sources: list[MemoryHitOut]
    coverage_percent: float
    min_coverage: float
    coverage_met: bool
    covered: list[str]
    gaps: list[str]
    conflicts: list[ConflictOut]
    integration_plan: list[PlanStepOut]
    stop_reason: str


class AssociateOut(_Out):
    mode: str
    query_concepts: list[str]
    seed_nodes: list[SeedNodeOut]
    unmatched_concepts: list[str]
    activated_count: int
    memories: list[MemoryHitOut]
    composition: CompositionOut | None = None


class SearchHitOut(_Out):
    id: str
    score: float
    kind: str
    content: str
    project: str | None
    bm25_rank: int | None
    activation_rank: int | None
    created_at: str
    topic_key: str | None = None
    tags: list[str] = []
    concepts: list[str] = []
    status: str = "active"
    decay_score: float | None = None
    review_candidate: bool = False


class SearchOut(_Out):
    query: str
    hits: list[SearchHitOut]
    total_candidates: int
    offset: int
    limit: int
    unmatched_concepts: list[str] = []


class MemoryOut(_Out):
    id: str
    content: str
    kind: str
    project: str | None
    topic_key: str | None
    tags: list[str]
    entities: list[str]
    source: str | None
    context: str | None
    meta: dict[str, Any]
    session_id: str | None
    created_at: datetime
    last_used_at: datetime
    use_count: int
    strength: float
    status: str
    valid_from: datetime
    valid_to: datetime | None
    superseded_by: str | None
    review_after: datetime | None
    parent_id: str | None

    @field_serializer("created_at", "last_used_at", "valid_from", "valid_to", "review_after")
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()


class RelationOut(_Out):
    id: str
    source_id: str
    target_id: str
    type: str
    confidence: float
    status: str
    reason: str | None
    evidence: str | None
    meta: dict[str, Any]
    created_at: datetime
    judged_at: datetime | None

    @field_serializer("created_at", "judged_at")
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()


class OpenOut(_Out):
    memories: list[MemoryOut]
    relations: list[RelationOut]
    not_found: list[str]
    concepts: dict[str, list[str]]


class GraphOut(_Out):
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    total_nodes: int
    offset: int
    limit: int
    has_more: bool


class GraphStatsOut(_Out):
    """The graph's shape (``graphmem.service.export.stats.GraphStats``)."""

    nodes: int
    edges: int
    memories: int
    concepts: int
    concept_kinds: dict[str, int]
    edge_families: dict[str, int]
    degree: dict[str, Any]
    top_concepts: list[dict[str, Any]]
    components: dict[str, Any]
    orphans: dict[str, Any]
    communities: dict[str, Any] = {}


class StatusOut(_Out):
    database: str
    memories: int
    by_kind: dict[str, int]
    by_status: dict[str, int]
    concepts: int
    mentions: int
    concept_edges: int
    relations: int
    sessions: int
    graph_nodes: int
    graph_edges: int
    nlp_model: str
    activation_method: str
    graph: GraphStatsOut | None = None

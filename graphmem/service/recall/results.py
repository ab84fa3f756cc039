"""Result values the service returns (frozen dataclasses; the MCP layer mirrors them in Pydantic)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphmem.service.recall.relevance import Evidence
from graphmem.service.recall.skills import SkillHit

__all__ = [
    "AssociateResult",
    "CompositionResult",
    "ConflictReport",
    "GraphView",
    "MemoryHit",
    "NotedAssociateResult",
    "NotedSearchResult",
    "PlanStepResult",
    "SearchHit",
    "SearchResult",
    "SeedNode",
]


@dataclass(frozen=True, slots=True)
class SeedNode:
    id: str
    name: str
    query_concept: str
    match: str  # exact | fallback | ngram
    weight: float


@dataclass(frozen=True, slots=True)
class MemoryHit:
    id: str
    type: str
    content: str
    project: str | None
    activation_score: float
    concepts: tuple[str, ...]  # the concepts that carried activation to this memory, strongest first
    direct: bool  # mentions a seed concept itself (False = reached only through other concepts)
    created_at: str
    topic_key: str | None = None
    tags: tuple[str, ...] = ()
    score: float = 0.0  # the ranking key: memories are ordered by it, best first
    relevance: float = 0.0  # calibrated probability of a wanted hit (recall/relevance.py)
    evidence: Evidence | None = None  # what the relevance was computed from (not shown by the tools)


@dataclass(frozen=True, slots=True)
class ConflictReport:
    memory_ids: tuple[str, str]
    reason: str
    relation_id: str | None
    relation_type: str | None
    newer_id: str
    stronger_id: str | None = None
    # False: the second memory is not a chosen source but one the query activated that disagrees with one
    in_selection: bool = True


@dataclass(frozen=True, slots=True)
class PlanStepResult:
    order: int
    memory_id: str
    supplies: tuple[str, ...]
    also_covers: tuple[str, ...]
    why: str


@dataclass(frozen=True, slots=True)
class CoveredBy:
    """A needed concept that a chosen source covers through another concept close in meaning."""

    need: str
    concept: str
    memory_id: str
    similarity: float


@dataclass(frozen=True, slots=True)
class CompositionResult:
    sources: tuple[MemoryHit, ...]
    coverage_percent: float
    min_coverage: float
    coverage_met: bool
    covered: tuple[str, ...]
    gaps: tuple[str, ...]
    conflicts: tuple[ConflictReport, ...]
    integration_plan: tuple[PlanStepResult, ...]
    stop_reason: str
    covered_by: tuple[CoveredBy, ...] = ()  # needs a source covers through a concept close in meaning
    truncated: tuple[str, ...] = ()  # what a cap of the composition cut (recall/compose.py), one line each


@dataclass(frozen=True, slots=True)
class AssociateResult:
    query_concepts: tuple[str, ...]
    seed_nodes: tuple[SeedNode, ...]
    unmatched_concepts: tuple[str, ...]
    activated_count: int
    memories: tuple[MemoryHit, ...]
    composition: CompositionResult | None = None
    mode: str = "recall"
    skills: tuple[SkillHit, ...] = ()  # with include=skills|all (service.learning.recall)


@dataclass(frozen=True, slots=True)
class SearchHit:
    id: str
    score: float
    kind: str
    content: str
    project: str | None
    bm25_rank: int | None
    activation_rank: int | None
    created_at: str
    topic_key: str | None = None
    tags: tuple[str, ...] = ()
    concepts: tuple[str, ...] = ()
    status: str = "active"  # lifecycle: active or promoted (one score scale for both)
    decay_score: float | None = None  # (use_count+1)^β · D(Δt) · strength now
    review_candidate: bool = False  # in the decay danger zone: a touch would keep it
    relevance: float = 0.0  # calibrated probability of a wanted hit (recall/relevance.py)
    evidence: Evidence | None = None  # what the relevance was computed from (not shown by the tools)


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    hits: tuple[SearchHit, ...]
    total_candidates: int
    offset: int
    limit: int
    unmatched_concepts: tuple[str, ...] = ()
    skills: tuple[SkillHit, ...] = ()  # with include=skills|all (service.learning.recall)


@dataclass(frozen=True, slots=True)
class NotedSearchResult(SearchResult):
    """A search answer with its notes, for callers that show them (the MCP tools); the CLI and the Python
    API ask for none, so their output keeps its shape."""

    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # hit id → notes (recall/notes.py)


@dataclass(frozen=True, slots=True)
class NotedAssociateResult(AssociateResult):
    """An associate answer with the notes of every memory it shows (the sources, in composition mode)."""

    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GraphView:
    nodes: tuple[dict[str, Any], ...]
    edges: tuple[dict[str, Any], ...]
    total_nodes: int
    offset: int
    limit: int
    has_more: bool

"""Output models of recall: search hits, associative recall and composition, the graph and status.

Hits are compact by default (id, score, kind, content, matched concepts, notes); ``detail="full"``
fills the other fields. Composition names its sources by id: their text is in ``memories``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from graphmem.server.models.base import Out, optional

__all__ = ["AssociateOut", "CompositionOut", "GraphOut", "GraphStatsOut", "MemoryHitOut", "ProjectionsOut",
           "ReplicaOut", "SearchHitOut", "SearchOut", "SeedNodeOut", "SkillHitOut", "StatusOut"]

RELEVANCE = "calibrated chance (0..1) that the hit is wanted"
NOTES = "warnings about this hit: superseded by X (shown through as_of), contradicted by Y, pending conflict Z"


class SeedNodeOut(Out):
    id: str
    name: str
    query_concept: str | None = optional()
    match: str | None = optional()
    weight: float | None = optional()


class MemoryHitOut(Out):
    id: str
    type: str
    content: str
    project: str | None = optional()
    score: float
    relevance: float = Field(description=RELEVANCE)
    activation_score: float
    concepts: list[str] = optional([], "the concepts that carried activation here, strongest first")
    direct: bool = Field(description="mentions a query concept itself (false: reached through other concepts)")
    created_at: str | None = optional()
    topic_key: str | None = optional()
    tags: list[str] = optional([])
    notes: list[str] = optional([], NOTES)


class ConflictOut(Out):
    memory_ids: list[str]
    reason: str
    relation_id: str | None = optional()
    relation_type: str | None = optional()
    newer_id: str
    stronger_id: str | None = optional()
    in_selection: bool = Field(True, description="both memories are chosen sources (false: the second is an "
                                                  "activated memory left out that disagrees with the first)")


class PlanStepOut(Out):
    order: int
    memory_id: str
    supplies: list[str]
    also_covers: list[str] = optional([])
    why: str


class CompositionOut(Out):
    source_ids: list[str] = Field(description="the chosen memories, in plan order; their text is in memories")
    coverage_percent: float
    min_coverage: float
    coverage_met: bool
    covered: list[str]
    gaps: list[str]
    conflicts: list[ConflictOut]
    integration_plan: list[PlanStepOut]
    stop_reason: str
    covered_by: dict[str, str] = Field(
        default_factory=dict, description="need → the concept close in meaning that covered it")


class SkillHitOut(Out):
    """A skill the query matched (include=skills|all); skill_detail decides which fields are filled."""

    id: str
    name: str
    status: str
    score: float = Field(description="share of the query's words found in name (best), trigger or steps")
    project: str | None = optional()
    trigger: str | None = optional()
    step_count: int | None = optional()
    steps: list[str] = optional([])
    source_ids: list[str] = optional([])
    version: int | None = optional()
    successes: int | None = optional()
    failures: int | None = optional()


TRUNCATED = "what a cap cut"
SKILLS = "skills the query matched, with include=skills or all (memory_skills for the full record)"


class AssociateOut(Out):
    mode: str
    query_concepts: list[str]
    seed_nodes: list[SeedNodeOut]
    unmatched_concepts: list[str]
    activated_count: int
    memories: list[MemoryHitOut]
    composition: CompositionOut | None = None
    skills: list[SkillHitOut] = optional([], SKILLS)
    truncated: list[str] = optional([], TRUNCATED)


class SearchHitOut(Out):
    id: str
    score: float
    relevance: float = Field(description=RELEVANCE)
    kind: str
    content: str
    concepts: list[str] = optional([], "the query concepts this memory matched")
    notes: list[str] = optional([], NOTES)
    project: str | None = optional()
    topic_key: str | None = optional()
    tags: list[str] = optional([])
    created_at: str | None = optional()
    bm25_rank: int | None = optional()
    activation_rank: int | None = optional()
    status: str | None = optional()
    decay_score: float | None = optional()
    review_candidate: bool | None = optional(None, "in the decay danger zone: using it keeps it")


class SearchOut(Out):
    query: str
    hits: list[SearchHitOut]
    total_candidates: int
    offset: int
    unmatched_concepts: list[str] = optional([])
    skills: list[SkillHitOut] = optional([], SKILLS)
    truncated: list[str] = optional([], TRUNCATED)


class GraphOut(Out):
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    total_nodes: int
    offset: int
    limit: int
    has_more: bool


class GraphStatsOut(Out):
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


class ReplicaOut(Out):
    reachable: bool
    primary_generation: int
    replica_generation: int | None = optional()  # absent while the replica cannot be reached
    lag_generations: int | None = optional()  # writes committed on the primary, not yet replayed on the replica


class ProjectionsOut(Out):
    partition: str
    budget_mib: int
    held_mib: float
    projects: list[str]  # the projects whose projections the server holds now ("(whole store)": all of them)
    memories: int  # summed over the projections held (the whole store's, when held, counts its memories again)


class StatusOut(Out):
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
    default_project: str | None = optional()  # the project of calls that name none (graphmem serve in a repository)
    graph: GraphStatsOut | None = optional()
    projections: ProjectionsOut | None = optional()  # only on a partitioned server (projection.partition)
    replica: ReplicaOut | None = optional()  # only with a read replica (replica_db)

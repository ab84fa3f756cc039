"""Pydantic output models of the learning tools, read from the service's dataclasses (``from_attributes``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["BriefOut", "BriefStatusOut", "ClustersOut", "ConsolidateOut", "DuplicatesOut", "LearnOut",
           "SkillListOut", "SkillOut"]


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class ClusterItemOut(_Out):
    id: str
    memory_ids: list[str]
    cohesion: float
    shared_concepts: list[str]
    action: str
    project: str | None
    kinds: list[str]
    previews: list[str]


class ClustersOut(_Out):
    clusters: list[ClusterItemOut]
    memories_considered: int
    candidate_pairs: int
    link_threshold: float
    max_cluster_size: int
    specificity_cap: int


class DuplicatePairOut(_Out):
    left_id: str
    right_id: str
    score: float
    shared_concepts: list[str]
    project: str | None
    kind: str
    left_preview: str
    right_preview: str


class DuplicatesOut(_Out):
    pairs: list[DuplicatePairOut]
    memories_considered: int
    candidate_pairs: int
    threshold: float


class PreviewOut(_Out):
    cluster_id: str
    cohesion: float
    memory_ids: list[str]
    content: str
    kind: str
    project: str | None
    tags: list[str]
    entities: list[str]
    valid_from: str
    use_count: int
    strength: float
    dropped_statements: list[str]


class ConsolidateOut(_Out):
    action: str
    merged_id: str | None
    archived: list[str]
    restored: list[str]
    relation_ids: list[str]
    previews: list[PreviewOut]
    message: str


class SkillVersionOut(_Out):
    version: int
    action: str
    actor: str
    at: str
    reason: str | None
    status: str


class SkillOut(_Out):
    id: str
    name: str
    project: str | None
    trigger: str
    steps: list[str]
    source_ids: list[str]
    status: str
    version: int
    successes: int
    failures: int
    successor_id: str | None
    history: list[SkillVersionOut]


class SkillListOut(_Out):
    skills: list[SkillOut]


class LearnOut(_Out):
    id: str
    duplicate: bool
    related_ids: list[str]
    threshold: int
    message: str
    skill_id: str | None


class BriefStatusOut(_Out):
    project: str | None
    count: int
    threshold: int
    ready: bool
    targets: list[str]


class BriefLineOut(_Out):
    section: str
    memory_id: str
    text: str


class BriefOut(_Out):
    project: str | None
    lines: list[BriefLineOut]
    written: list[str]
    markdown: str
    status: BriefStatusOut
    skipped: bool
    message: str

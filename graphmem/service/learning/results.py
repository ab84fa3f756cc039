"""Result values of the learning use cases: clusters, duplicates, consolidation, skills and briefs.

Frozen dataclasses, mirrored in Pydantic by the MCP layer; every one carries the ids the next call
needs (a cluster id to consolidate, a skill id to activate, a memory id per brief line).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BriefLine",
    "BriefResult",
    "BriefStatus",
    "ClusterItem",
    "ClusterReport",
    "ConsolidationPreview",
    "ConsolidationResult",
    "DuplicatePair",
    "DuplicateReport",
    "PatternNotice",
    "Skill",
    "SkillList",
    "SkillVersion",
]


@dataclass(frozen=True, slots=True)
class ClusterItem:
    """One cluster: its stable id, members, cohesion, the concepts that justify it and what to do."""

    id: str
    memory_ids: tuple[str, ...]
    cohesion: float
    shared_concepts: tuple[str, ...]
    action: str  # merge, link or keep
    project: str | None
    kinds: tuple[str, ...]
    previews: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ClusterReport:
    clusters: tuple[ClusterItem, ...]
    memories_considered: int
    candidate_pairs: int
    link_threshold: float
    max_cluster_size: int
    specificity_cap: int


@dataclass(frozen=True, slots=True)
class DuplicatePair:
    """Two memories that state the same thing, with their score and the concepts they share."""

    left_id: str
    right_id: str
    score: float
    shared_concepts: tuple[str, ...]
    project: str | None
    kind: str
    left_preview: str
    right_preview: str


@dataclass(frozen=True, slots=True)
class DuplicateReport:
    pairs: tuple[DuplicatePair, ...]
    memories_considered: int
    candidate_pairs: int
    threshold: float


@dataclass(frozen=True, slots=True)
class ConsolidationPreview:
    """What consolidating a cluster would write: the merged memory's fields, and the originals."""

    cluster_id: str
    cohesion: float
    memory_ids: tuple[str, ...]
    content: str
    kind: str
    project: str | None
    tags: tuple[str, ...]
    entities: tuple[str, ...]
    valid_from: str
    use_count: int
    strength: float
    dropped_statements: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConsolidationResult:
    """A consolidation applied (or undone): the merged memory, its originals and the relations."""

    action: str  # applied, undone, preview
    merged_id: str | None
    archived: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    relation_ids: tuple[str, ...] = ()
    previews: tuple[ConsolidationPreview, ...] = ()
    message: str = ""


@dataclass(frozen=True, slots=True)
class SkillVersion:
    """One audit entry: the version it made, what changed, who, when and why."""

    version: int
    action: str
    actor: str
    at: str
    reason: str | None
    status: str


@dataclass(frozen=True, slots=True)
class Skill:
    id: str
    name: str
    project: str | None
    trigger: str
    steps: tuple[str, ...]
    source_ids: tuple[str, ...]
    status: str
    version: int
    successes: int
    failures: int
    successor_id: str | None = None
    history: tuple[SkillVersion, ...] = ()

    def summary(self) -> str:
        return f"{self.name} ({self.id}, {self.status}) — {len(self.steps)}-step: {self.trigger}"


@dataclass(frozen=True, slots=True)
class SkillList:
    skills: tuple[Skill, ...]


@dataclass(frozen=True, slots=True)
class PatternNotice:
    """What storing a memory told the pattern detector: how many related memories, how far to a skill."""

    related_ids: tuple[str, ...]
    threshold: int
    message: str
    skill_id: str | None = None


@dataclass(frozen=True, slots=True)
class BriefLine:
    section: str
    memory_id: str
    text: str


@dataclass(frozen=True, slots=True)
class BriefStatus:
    project: str | None
    count: int
    threshold: int
    ready: bool
    targets: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BriefResult:
    """A synthesized brief: its lines, the files written, and the counter after it."""

    project: str | None
    lines: tuple[BriefLine, ...]
    written: tuple[str, ...]
    markdown: str
    status: BriefStatus
    skipped: bool = False
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

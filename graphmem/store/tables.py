"""Every table graphmem stores, in one module.

Times are stored as UTC epoch milliseconds (BIGINT): portable across SQLite and PostgreSQL,
cheap to compare in ``as_of`` filters, and exact in an export → import round trip.
Memories have an integer ``seq`` (the FTS rowid and the graph projection's key) and an opaque
string ``id`` that clients see.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, Column, Index, Table, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "SCHEMA_VERSION",
    "BriefStateRow",
    "ChangeRow",
    "ConceptEdgeRow",
    "ConceptRow",
    "FactRow",
    "MemoryRow",
    "MentionRow",
    "MetaRow",
    "MetricRow",
    "PromptRow",
    "RelationRow",
    "SessionRow",
    "SkillRow",
    "SkillVersionRow",
    "StoreGenerationRow",
]

# The schema version, recorded in ``graphmem_meta``; each version is one Alembic revision of
# ``graphmem/store/migrations`` (version N = revision "000N"), and a test keeps the two in step.
SCHEMA_VERSION = 5


class MemoryRow(SQLModel, table=True):
    __tablename__ = "memory"
    __table__: ClassVar[Table]  # built by SQLModel for table=True; declared for the type checker
    __table_args__ = (
        UniqueConstraint("project_key", "content_hash", name="uq_memory_project_hash"),
        Index("ix_memory_project_status", "project_key", "status"),
    )

    seq: int | None = Field(default=None, primary_key=True)
    id: str = Field(unique=True, index=True)
    content: str = Field(sa_column=Column(Text, nullable=False))
    content_hash: str
    kind: str = Field(index=True)
    project: str | None = None
    # project_key is project or "" so the unique constraint also dedupes memories with no project
    # (NULLs never collide in a SQL unique index).
    project_key: str = ""
    topic_key: str | None = Field(default=None, index=True)
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    entities: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    source: str | None = None
    context: str | None = Field(default=None, sa_column=Column(Text))
    meta: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    session_id: str | None = Field(default=None, index=True)
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_used_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    use_count: int = 0
    strength: float = 1.0
    status: str = "active"
    valid_from: int = Field(sa_column=Column(BigInteger, nullable=False))
    valid_to: int | None = Field(default=None, sa_column=Column(BigInteger))
    superseded_by: str | None = None
    review_after: int | None = Field(default=None, sa_column=Column(BigInteger))
    parent_id: str | None = None
    concept_count: int = 0
    # Kyew's learn fields, first-class so search, associate and export can filter on them.
    outcome: str | None = None  # success, failure, partial, unknown
    task_type: str | None = None
    tools_used: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=True))


class ConceptRow(SQLModel, table=True):
    __tablename__ = "concept"
    __table__: ClassVar[Table]

    seq: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, index=True)
    kind: str
    df: int = 0
    aliases: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class MentionRow(SQLModel, table=True):
    """Memory–concept link with payload: salience weight and repeat count."""

    __tablename__ = "mention"
    __table__: ClassVar[Table]

    memory_seq: int = Field(primary_key=True, foreign_key="memory.seq")
    concept_seq: int = Field(primary_key=True, foreign_key="concept.seq", index=True)
    weight: float
    count: int = 1


class ConceptEdgeRow(SQLModel, table=True):
    """Concept–concept co-occurrence evidence (a_seq < b_seq)."""

    __tablename__ = "concept_edge"
    __table__: ClassVar[Table]

    a_seq: int = Field(primary_key=True, foreign_key="concept.seq")
    b_seq: int = Field(primary_key=True, foreign_key="concept.seq")
    count: int = 0


class RelationRow(SQLModel, table=True):
    __tablename__ = "relation"
    __table__: ClassVar[Table]
    __table_args__ = (UniqueConstraint("source_id", "target_id", "type", name="uq_relation_triple"),)

    id: str = Field(primary_key=True)
    source_id: str = Field(index=True, foreign_key="memory.id")
    target_id: str = Field(index=True, foreign_key="memory.id")
    type: str
    confidence: float = 1.0
    reason: str | None = Field(default=None, sa_column=Column(Text))
    evidence: str | None = Field(default=None, sa_column=Column(Text))
    meta: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = "judged"
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    judged_at: int | None = Field(default=None, sa_column=Column(BigInteger))


class SessionRow(SQLModel, table=True):
    __tablename__ = "session"
    __table__: ClassVar[Table]

    id: str = Field(primary_key=True)
    project: str | None = None
    client: str | None = None
    started_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_activity_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    ended_at: int | None = Field(default=None, sa_column=Column(BigInteger))
    timeout_s: int = 7200


class MetaRow(SQLModel, table=True):
    """Key/value facts about the store itself (schema version, counters)."""

    __tablename__ = "graphmem_meta"
    __table__: ClassVar[Table]

    key: str = Field(primary_key=True)
    value: str = Field(sa_column=Column(Text, nullable=False))


class PromptRow(SQLModel, table=True):
    """A user prompt saved for a session, so a later session can reconstruct what was asked."""

    __tablename__ = "prompt"
    __table__: ClassVar[Table]

    id: str = Field(primary_key=True)
    session_id: str | None = Field(default=None, index=True)
    project: str | None = None
    content: str = Field(sa_column=Column(Text, nullable=False))
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))


class MetricRow(SQLModel, table=True):
    """Per-operation call counters and timings, summed across processes and restarts."""

    __tablename__ = "metric"
    __table__: ClassVar[Table]

    operation: str = Field(primary_key=True)
    calls: int = 0
    errors: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0
    # Latency histogram over fixed bucket bounds (graphmem.service.metrics.BUCKETS_MS): additive, so
    # counts from several processes merge exactly and percentiles survive a restart.
    buckets: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    first_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    last_at: int = Field(sa_column=Column(BigInteger, nullable=False))


class FactRow(SQLModel, table=True):
    """A temporal fact (subject, predicate, object) over ``[valid_from, valid_to)``.

    Subject and object are concept keys (rows in ``concept``), so facts live in the concept graph;
    a newer object for the same (subject, predicate) closes this fact (``superseded_by``).
    """

    __tablename__ = "fact"
    __table__: ClassVar[Table]
    __table_args__ = (Index("ix_fact_subject_predicate", "subject", "predicate"),)

    id: str = Field(primary_key=True)
    subject: str = Field(index=True)
    predicate: str
    object: str = Field(index=True)
    confidence: float = 1.0
    valid_from: int = Field(sa_column=Column(BigInteger, nullable=False))
    valid_to: int | None = Field(default=None, sa_column=Column(BigInteger))
    superseded_by: str | None = None
    reason: str | None = Field(default=None, sa_column=Column(Text))
    source_id: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))


class StoreGenerationRow(SQLModel, table=True):
    """One row (id=1): the store's write generation, bumped by every committed write."""
    __tablename__ = "store_generation"
    __table__: ClassVar[Table]
    id: int = Field(default=1, primary_key=True)
    generation: int = Field(default=0, sa_type=BigInteger)


class ChangeRow(SQLModel, table=True):
    """The change log: what each write generation changed, so other processes follow it."""
    __tablename__ = "change_log"
    __table__: ClassVar[Table]
    seq: int | None = Field(default=None, primary_key=True)
    generation: int = Field(index=True, sa_type=BigInteger)
    kind: str
    refs: list[str] = Field(default_factory=list, sa_type=JSON)
    at: int = Field(sa_type=BigInteger)



class SkillRow(SQLModel, table=True):
    """A skill drawn from a pattern of related memories: its current version (history in skill_version)."""

    __tablename__ = "skill"
    __table__: ClassVar[Table]
    __table_args__ = (UniqueConstraint("project_key", "name", name="uq_skill_project_name"),)

    id: str = Field(primary_key=True)
    name: str
    project: str | None = None
    project_key: str = Field(default="", index=True)
    trigger: str = Field(sa_column=Column(Text, nullable=False))
    steps: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    source_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="draft", index=True)  # draft, active, deprecated, rejected
    successor_id: str | None = None
    version: int = 1
    successes: int = 0
    failures: int = 0
    created_at: int = Field(sa_column=Column(BigInteger, nullable=False))
    updated_at: int = Field(sa_column=Column(BigInteger, nullable=False))


class SkillVersionRow(SQLModel, table=True):
    """One version of a skill: a snapshot of its fields and the audit entry of the change (who, when, why)."""

    __tablename__ = "skill_version"
    __table__: ClassVar[Table]

    seq: int | None = Field(default=None, primary_key=True)
    skill_id: str = Field(index=True, foreign_key="skill.id")
    version: int
    snapshot: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    action: str  # drafted, activated, deprecated, rejected, edited, rolled_back, outcome
    actor: str
    reason: str | None = Field(default=None, sa_column=Column(Text))
    at: int = Field(sa_column=Column(BigInteger, nullable=False))


class BriefStateRow(SQLModel, table=True):
    """Per project: where the last brief left the observation counter, the threshold, the target files."""

    __tablename__ = "brief_state"
    __table__: ClassVar[Table]

    project_key: str = Field(primary_key=True)
    last_seq: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    threshold: int = 5
    targets: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    last_brief_at: int | None = Field(default=None, sa_column=Column(BigInteger))

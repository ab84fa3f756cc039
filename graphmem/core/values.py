"""Frozen core values: the one shape memories and relations take between store, core and service.

:class:`Observation` is a memory on its way in (validated, not yet stored); :class:`Memory` is one stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal

__all__ = [
    "KINDS",
    "OUTCOMES",
    "RELATION_STATUSES",
    "STATUSES",
    "Kind",
    "Memory",
    "Observation",
    "Relation",
    "RelationStatus",
    "Status",
]

Kind = Literal["note", "decision", "error", "pattern", "architecture", "summary", "solution", "prompt"]
KINDS: tuple[str, ...] = ("note", "decision", "error", "pattern", "architecture", "summary", "solution", "prompt")

Status = Literal["active", "promoted", "archived", "forgotten"]
STATUSES: tuple[str, ...] = ("active", "promoted", "archived", "forgotten")

# How the work a memory records turned out (Kyew's ``learn`` outcome); None when not said.
OUTCOMES: tuple[str, ...] = ("success", "failure", "partial", "unknown")

RelationStatus = Literal["pending", "judged", "ignored"]
RELATION_STATUSES: tuple[str, ...] = ("pending", "judged", "ignored")


@dataclass(frozen=True, slots=True)
class Memory:
    """One stored observation with its lifecycle fields. Times are timezone-aware UTC."""

    id: str
    content: str
    kind: str
    project: str | None
    created_at: datetime
    last_used_at: datetime
    valid_from: datetime
    topic_key: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    source: str | None = None
    context: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    use_count: int = 0
    strength: float = 1.0
    status: str = "active"
    valid_to: datetime | None = None
    superseded_by: str | None = None
    review_after: datetime | None = None
    parent_id: str | None = None
    outcome: str | None = None  # one of OUTCOMES
    task_type: str | None = None
    tools_used: tuple[str, ...] = ()

    def valid_at(self, instant: datetime) -> bool:
        """Whether the memory held at ``instant``: ``valid_from <= instant < valid_to``."""
        return self.valid_from <= instant and (self.valid_to is None or instant < self.valid_to)


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed memory → memory edge with its judgment state."""

    id: str
    source_id: str
    target_id: str
    type: str
    confidence: float
    status: str
    created_at: datetime
    reason: str | None = None
    evidence: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    judged_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    """One validated observation on its way into the store: the fields its writer chooses.

    The store turns it into the row (``graphmem.store.drafts``) and adds what no writer chooses (the
    use counters, the status, the dedupe key). ``id``, ``created_at`` and ``valid_from`` are asked
    for, not settled: unset, the draft picks a new id and "now". ``redacted`` is reported, never stored.
    """

    content: str
    kind: str = "note"
    project: str | None = None
    topic_key: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    source: str | None = None
    context: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    review_after: datetime | None = None
    valid_from: datetime | None = None
    created_at: datetime | None = None
    id: str | None = None
    parent_id: str | None = None
    outcome: str | None = None
    task_type: str | None = None
    tools_used: tuple[str, ...] = ()
    redacted: Mapping[str, int] = field(default_factory=dict)  # secret kind → count replaced

    @classmethod
    def revising(cls, memory: Memory) -> Observation:
        """A new version of ``memory``: every field it was stored with carried over (a field of both classes
        needs no line here), and its id as the parent. The version gets its own id, times and session.

        >>> from datetime import UTC
        >>> now = datetime(2026, 3, 1, tzinfo=UTC)
        >>> old = Memory("mem_1", "Use JWT", "decision", "web", now, now, now, topic_key="decision/sessions")
        >>> revision = Observation.revising(old)
        >>> (revision.kind, revision.project, revision.topic_key, revision.parent_id, revision.created_at)
        ('decision', 'web', 'decision/sessions', 'mem_1', None)
        """
        carried = {name: getattr(memory, name) for name in _CARRIED}
        return cls(**carried, parent_id=memory.id)


# What a revision takes from the memory it revises: every observation field but its identity, its times, its
# session (the revision joins the live one), who its parent is and the redaction count of its own text.
_CARRIED = tuple(f.name for f in fields(Observation)
                 if f.name not in {"id", "created_at", "valid_from", "review_after", "session_id", "parent_id",
                                 "redacted"})

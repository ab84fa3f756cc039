"""Result values of the relation, conflict, fact, history, capture and lint use cases.

Frozen dataclasses, like :mod:`graphmem.service.recall.results`; every one carries the ids an agent needs
for its next call (a pending relation's id to judge it, both memory ids of a conflict to compare them).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.core.facts import Fact
from graphmem.core.values import Memory, Relation

__all__ = [
    "ConflictPair",
    "FactList",
    "FactResult",
    "MemoryBrief",
    "PendingItem",
    "PendingPage",
    "RelationOutcome",
    "ScanResult",
    "brief",
]

_BRIEF_CHARS = 240


@dataclass(frozen=True, slots=True)
class MemoryBrief:
    """Enough of a memory to judge a relation without opening it."""

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


def brief(memory: Memory) -> MemoryBrief:
    content = memory.content
    if len(content) > _BRIEF_CHARS:
        content = content[: _BRIEF_CHARS - 1] + "…"
    return MemoryBrief(
        id=memory.id, kind=memory.kind, content=content, project=memory.project, topic_key=memory.topic_key,
        created_at=memory.created_at.isoformat(), valid_from=memory.valid_from.isoformat(),
        valid_to=memory.valid_to.isoformat() if memory.valid_to else None,
        superseded_by=memory.superseded_by, status=memory.status)


@dataclass(frozen=True, slots=True)
class RelationOutcome:
    """What relate / compare / judge / ignore did.

    ``action`` is one of created, updated, unchanged, judged, ignored.
    """

    relation: Relation
    action: str
    message: str
    source: MemoryBrief
    target: MemoryBrief
    superseded: tuple[str, ...] = ()  # memories this call closed (valid_to, superseded_by set)
    restored: tuple[str, ...] = ()  # memories this call re-opened (their superseding relation went away)


@dataclass(frozen=True, slots=True)
class PendingItem:
    relation: Relation
    source: MemoryBrief
    target: MemoryBrief


@dataclass(frozen=True, slots=True)
class PendingPage:
    items: tuple[PendingItem, ...]
    total: int
    offset: int
    limit: int
    has_more: bool


@dataclass(frozen=True, slots=True)
class ConflictPair:
    """A scan candidate: two memories that may contradict, and the relation to propose with compare."""

    a: MemoryBrief
    b: MemoryBrief
    score: float
    kind: str  # polarity | topic_key | value | choice | outcome
    reason: str
    shared_concepts: tuple[str, ...]
    newer_id: str
    suggested_relation: str
    signals: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScanResult:
    candidates: tuple[ConflictPair, ...]
    scanned: int  # memories whose neighbourhoods were examined
    pairs_compared: int
    settled_pairs_skipped: int  # pairs left out because a relation already links them
    found: int = 0  # candidates before the cap: more than len(candidates) when truncated
    max_candidates: int = 20  # the cap applied (settable: ``scan(max_candidates=...)``)
    truncated: bool = False  # found > max_candidates: raise the cap to see the rest
    across_projects: bool = False  # whether memories of different projects were compared


@dataclass(frozen=True, slots=True)
class FactResult:
    """What adding or invalidating a fact did: the fact, the facts it closed, whether it was a duplicate."""

    fact: Fact
    closed: tuple[Fact, ...] = ()
    duplicate: bool = False
    message: str = ""


@dataclass(frozen=True, slots=True)
class FactList:
    facts: tuple[Fact, ...]
    as_of: str | None = None
    subject: str | None = None

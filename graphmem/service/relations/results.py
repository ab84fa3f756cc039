"""Result values of the relation, conflict and fact use cases.

Frozen dataclasses, like :mod:`graphmem.service.recall.results`; every one carries the ids an agent needs
for its next call (a pending relation's id to judge it, both memory ids of a conflict to compare them).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.core.facts import Fact
from graphmem.core.values import Relation
from graphmem.service.memories.results import MemoryBrief

__all__ = [
    "ConflictPair",
    "FactList",
    "FactResult",
    "PendingItem",
    "PendingPage",
    "RelationOutcome",
    "ScanResult",
]

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

"""Temporal facts: (subject, predicate, object) triples that hold over ``[valid_from, valid_to)``.

A new object for the same subject and predicate closes the fact it replaces (as the
``kg_add_fact(..., invalidate_previous=True)`` tool of the ``memory_associate`` server does), so
"where does Alice work?" has one answer at every instant and the old answers stay queryable. The
rules here are pure; the service stores what they decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.core.validity import holds_at

__all__ = ["FACT_SPREAD", "Fact", "FactPlan", "facts_at", "plan_new_fact", "timeline"]

# Activation a fact passes between its subject and object concepts, relative to a mention edge of
# weight 1 (times the fact's confidence): as strong as a "supports" relation between two memories, so
# "alice" reaches memories about "globex" once alice works there.
FACT_SPREAD = 0.8


@dataclass(frozen=True, slots=True)
class Fact:
    """One temporal fact. ``subject`` and ``object`` are concept keys (normalized), ``predicate`` too."""

    id: str
    subject: str
    predicate: str
    object: str
    confidence: float
    valid_from: datetime
    created_at: datetime
    valid_to: datetime | None = None
    superseded_by: str | None = None
    reason: str | None = None
    source_id: str | None = None  # the memory the fact was read from, if any
    meta: Mapping[str, Any] = field(default_factory=dict)

    def holds_at(self, instant: datetime) -> bool:
        return holds_at(self.valid_from, self.valid_to, instant)


@dataclass(frozen=True, slots=True)
class FactPlan:
    """What adding a fact changes: facts to close (id, valid_to), and the new fact's own end."""

    close: tuple[tuple[str, datetime], ...] = ()
    valid_to: datetime | None = None
    superseded_by: str | None = None
    duplicate_of: str | None = None


def plan_new_fact(open_facts: Sequence[Fact], obj: str, valid_from: datetime, *,
                  invalidate_previous: bool = True) -> FactPlan:
    """Decide what a new fact ``(s, p, obj)`` from ``valid_from`` does to the open facts of ``(s, p)``.

    - An open fact with the same object that already holds at ``valid_from`` makes the new one a
      duplicate (nothing is written).
    - With ``invalidate_previous``, an open fact with another object that began no later than
      ``valid_from`` is closed at ``valid_from``; one that begins later (the new fact is back-dated)
      instead ends the new fact where it begins, so the history stays a sequence without overlaps.

    >>> from datetime import UTC
    >>> t = lambda day: datetime(2026, 1, day, tzinfo=UTC)
    >>> acme = Fact("f1", "alice", "works at", "acme", 1.0, t(1), t(1))
    >>> plan_new_fact([acme], "globex", t(5)).close == (("f1", t(5)),)
    True
    >>> plan_new_fact([acme], "acme", t(5)).duplicate_of
    'f1'
    """
    for fact in open_facts:
        if fact.object == obj and fact.valid_from <= valid_from:
            return FactPlan(duplicate_of=fact.id)
    if not invalidate_previous:
        return FactPlan()
    others = [fact for fact in open_facts if fact.object != obj]
    close = tuple((fact.id, valid_from) for fact in others if fact.valid_from <= valid_from)
    later = sorted((fact for fact in others if fact.valid_from > valid_from),
                   key=lambda fact: (fact.valid_from, fact.id))
    if later:
        return FactPlan(close=close, valid_to=later[0].valid_from, superseded_by=later[0].id)
    return FactPlan(close=close)


def facts_at(facts: Iterable[Fact], instant: datetime) -> list[Fact]:
    """The facts holding at ``instant``, ordered by subject, predicate, object."""
    return sorted((f for f in facts if f.holds_at(instant)), key=lambda f: (f.subject, f.predicate, f.object))


def timeline(facts: Iterable[Fact]) -> list[Fact]:
    """Facts in the order they began (ties by creation), for a subject's history."""
    return sorted(facts, key=lambda f: (f.valid_from, f.created_at, f.id))

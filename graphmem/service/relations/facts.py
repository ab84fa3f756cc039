"""Temporal facts: add (closing the fact a new object replaces), invalidate at a time, state at t, timeline.

Subjects and objects are normalized exactly like concept keys (``nlp.normalize_key``), so the fact
"Alice works at ACME Corp" and the memory "Alice moved the ACME corp billing jobs" meet at the same
concept nodes, and recall can cross from one to the other.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from graphmem.core.facts import Fact, plan_new_fact
from graphmem.core.redaction import mask_placeholders
from graphmem.core.time import from_ms, to_ms
from graphmem.errors import ConflictError, InvalidInput, NotFound
from graphmem.ids import new_id
from graphmem.service.memories.reads import resolve
from graphmem.service.relations.results import FactList, FactResult
from graphmem.service.scrub import scrub_meta, scrub_text
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, check_range, check_text, parse_instant
from graphmem.store import fact_store
from graphmem.store.changes import FACTS
from graphmem.store.projection import GraphProjection
from graphmem.store.repository import StoredBatch
from nlp import normalize_key

__all__ = ["FactService"]

_KEY_CHARS = 300


def _key(name: str, value: Any) -> str:
    """A subject, predicate or object in concept-key form; empty or punctuation-only is refused."""
    # Subjects and objects become concepts: a secret or a private block never does.
    key = normalize_key(mask_placeholders(scrub_text(name, value, _KEY_CHARS, required=True) or ""))
    if not key:
        raise InvalidInput(f"{name} has nothing left once normalized (only punctuation, a secret "
                           "or a private block?)")
    return key


def _filter_key(name: str, value: Any) -> str | None:
    return None if value is None or value == "" else _key(name, value)


class FactService:
    """``service.facts``: temporal (subject, predicate, object) facts in the concept graph."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def add(self, subject: str, predicate: str, object: str, *, confidence: float = 1.0,
            valid_from: Any = None, invalidate_previous: bool = True, reason: str | None = None,
            source: str | None = None, meta: Mapping[str, Any] | None = None) -> FactResult:
        """Record that ``subject predicate object`` holds from ``valid_from`` (default now)."""
        s, p, o = _key("subject", subject), _key("predicate", predicate), _key("object", object)
        confidence = check_range("confidence", confidence, 0.0, 1.0)
        start = parse_instant("valid_from", valid_from) or from_ms(_now_ms())
        reason = scrub_text("reason", reason, 2_000)
        meta = scrub_meta("meta", meta)
        source_id = resolve(self.uow.repository, [source])[source] if source else None
        with self.uow.write() as write:
            result, batch = self._add_in(
                write.session, (s, p, o), confidence=confidence, start=start,
                invalidate_previous=invalidate_previous, reason=reason, source_id=source_id,
                meta=dict(meta or {}))
            if not result.duplicate:
                write.changed(FACTS, [result.fact.id])
                write.then(lambda projection: _follow_fact(projection, batch, result.fact))
        return result

    def _add_in(self, session: Any, triple: tuple[str, str, str], *, confidence: float, start: datetime,
                invalidate_previous: bool, reason: str | None, source_id: str | None,
                meta: dict[str, Any]) -> tuple[FactResult, StoredBatch]:
        s, p, o = triple
        open_facts = fact_store.facts_where(session, subject=s, predicate=p, open_only=True)
        plan = plan_new_fact(open_facts, o, start, invalidate_previous=bool(invalidate_previous))
        batch = StoredBatch()
        if plan.duplicate_of is not None:
            existing = next(f for f in open_facts if f.id == plan.duplicate_of)
            return FactResult(fact=existing, duplicate=True,
                              message=f"{existing.id} already holds since "
                                      f"{existing.valid_from.isoformat()}"), batch
        fact_id = new_id("fact")
        fact = fact_store.insert_fact(session, {
            "id": fact_id, "subject": s, "predicate": p, "object": o, "confidence": confidence,
            "valid_from": to_ms(start), "valid_to": None if plan.valid_to is None else to_ms(plan.valid_to),
            "superseded_by": plan.superseded_by, "reason": reason, "source_id": source_id, "meta": meta,
            "created_at": _now_ms()})
        closed = tuple(fact_store.close_fact(session, old_id, valid_to_ms=to_ms(end), superseded_by=fact_id,
                                             reason=f"replaced by {fact_id}: {s} {p} {o}")
                       for old_id, end in plan.close)
        fact_store.ensure_concepts(session, (s, o), batch)
        message = f"added {fact_id}" + (f"; closed {', '.join(f.id for f in closed)}" if closed else "")
        return FactResult(fact=fact, closed=closed, message=message), batch

    def invalidate(self, fact_id: str, at: Any = None, reason: str | None = None) -> FactResult:
        """Close a fact at ``at`` (default now); the past keeps it, state-at-t after ``at`` does not."""
        fact_id = check_text("fact_id", fact_id, 200, required=True) or ""
        end = parse_instant("at", at) or from_ms(_now_ms())
        reason = scrub_text("reason", reason, 2_000)
        with self.uow.write() as write:
            session = write.session
            fact = fact_store.get_fact(session, fact_id)
            if fact is None:
                raise NotFound("fact id", fact_id)
            if fact.valid_to is not None:
                raise ConflictError(f"{fact_id} already stopped holding at {fact.valid_to.isoformat()}")
            if end < fact.valid_from:
                raise InvalidInput(f"at {end.isoformat()} is before the fact began "
                                   f"({fact.valid_from.isoformat()})")
            closed = fact_store.close_fact(session, fact_id, valid_to_ms=to_ms(end), superseded_by=None,
                                           reason=reason or "invalidated")
        return FactResult(fact=closed, closed=(closed,), message=f"{fact_id} holds until {end.isoformat()}")

    def at(self, instant: Any = None, subject: str | None = None, predicate: str | None = None,
           object: str | None = None, limit: int = 100) -> FactList:
        """The facts that held at ``instant`` (default now), filtered by subject, predicate, object."""
        when = parse_instant("instant", instant) or from_ms(_now_ms())
        limit = check_count("limit", limit, 1, 10_000)
        s, p = _filter_key("subject", subject), _filter_key("predicate", predicate)
        o = _filter_key("object", object)
        with self.uow.read() as session:
            facts = fact_store.facts_where(session, subject=s, predicate=p, obj=o, at_ms=to_ms(when))
        return FactList(facts=tuple(facts[:limit]), as_of=when.isoformat(), subject=s)

    def timeline(self, subject: str, limit: int = 500) -> FactList:
        """Every fact about ``subject`` (as subject or object) in the order they began, closed ones too."""
        s = _key("subject", subject)
        limit = check_count("limit", limit, 1, 10_000)
        with self.uow.read() as session:
            facts = fact_store.facts_where(session, entity=s)
        return FactList(facts=tuple(facts[:limit]), subject=s)


def _follow_fact(projection: GraphProjection, concepts: StoredBatch, fact: Fact) -> None:
    projection.apply_batch(concepts)  # the subject and object concept nodes, when new
    projection.apply_fact(fact.subject, fact.object, fact.confidence)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000

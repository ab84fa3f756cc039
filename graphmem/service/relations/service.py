"""Typed relations between memories: relate, compare → pending, judge, ignore.

Rules (KiroGraph's verified defects, not repeated):

- A relation type must be in the semantics table; an unknown one is refused with the valid list.
- ``compare`` on a pair already judged or ignored leaves it as it is and says so; only an explicit
  ``judge`` (or a direct ``relate``) changes a judged relation. A pair holds one verdict per question
  (``same_question``): after ``conflicts_with`` is judged, proposing ``contradicts`` changes nothing,
  and a pair already proposed as one conflict type is not proposed again as another.
- A judged ``supersedes`` sets ``valid_to`` / ``superseded_by`` on the replaced memory, and undoing
  it (ignore, or judging it as another type) re-opens that memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.core.relations import RELATION_TYPES, RelationSemantics, same_question, valid_relation_types
from graphmem.core.time import from_ms, to_ms
from graphmem.core.values import Relation
from graphmem.errors import ConflictError, InvalidInput, NotFound
from graphmem.ids import new_id
from graphmem.service.memories.reads import resolve
from graphmem.service.memories.relation_effects import RelationEffects, record_effects
from graphmem.service.memories.results import brief
from graphmem.service.relations.results import PendingItem, PendingPage, RelationOutcome
from graphmem.service.scrub import scrub_meta, scrub_text
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, check_range
from graphmem.store import relation_store

__all__ = ["RelationService", "check_relation_type"]

_TEXT_LIMIT = 2_000


def check_relation_type(name: str) -> RelationSemantics:
    """The semantics row of ``name``, or InvalidInput listing every valid type."""
    if not isinstance(name, str) or name not in RELATION_TYPES:
        valid = ", ".join(valid_relation_types())
        raise InvalidInput(f"unknown relation type {name!r}; valid types: {valid}")
    return RELATION_TYPES[name]


class RelationService:
    """Relation use cases (reached as ``service.relations``)."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    # -- creating relations -------------------------------------------------------------------
    def relate(self, source: str, target: str, type: str, *, confidence: float = 1.0,
               reason: str | None = None,
               evidence: str | None = None, meta: Mapping[str, Any] | None = None) -> RelationOutcome:
        """Assert a relation now (status ``judged``); a repeat updates confidence, reason and evidence."""
        return self._write(source, target, type, _checked_fields(confidence, reason, evidence, meta),
                           pending=False)

    def compare(self, source: str, target: str, type: str, *, confidence: float = 1.0,
                reason: str | None = None,
                evidence: str | None = None, meta: Mapping[str, Any] | None = None) -> RelationOutcome:
        """Propose a relation for judgment (status ``pending``); a judged or ignored one is left unchanged."""
        return self._write(source, target, type, _checked_fields(confidence, reason, evidence, meta),
                           pending=True)

    def _write(self, source: str, target: str, rel_type: str, fields: dict[str, Any], *,
               pending: bool) -> RelationOutcome:
        semantics = check_relation_type(rel_type)
        ids = resolve(self.uow.repository, [source, target])
        if ids[source] == ids[target] and not semantics.allow_self:
            raise InvalidInput(f"a memory cannot be {rel_type!r} itself ({ids[source]})")
        request = _WriteRequest(ids[source], ids[target], rel_type, semantics.symmetric, fields, pending,
                                _now())
        return self._locked(lambda session, effects: self._write_in(session, request, effects))

    def _write_in(self, session: Any, request: _WriteRequest, effects: RelationEffects) -> RelationOutcome:
        r = request
        existing = relation_store.find_relation(session, r.source_id, r.target_id, r.type,
                                                either_direction=r.symmetric)
        settled = _settling(session, r) if r.pending else None
        if settled is not None:
            return self._outcome(session, settled, "unchanged", _kept_message(settled), effects)
        status = {"status": "pending"} if r.pending else {"status": "judged", "judged_at": _ms(r.now)}
        if existing is None:
            relation = relation_store.insert_relation(session, {
                "id": new_id("rel"), "source_id": r.source_id, "target_id": r.target_id, "type": r.type,
                "created_at": _ms(r.now), **r.fields, "meta": dict(r.fields["meta"] or {}), **status})
            action, message = "created", f"{relation.status} {r.type} relation {relation.id}"
        else:
            changes = _merge(existing, r.fields) | status
            relation = relation_store.update_relation(session, existing.id, changes)
            action, message = "updated", _update_message(existing, relation)
        record_effects(session, existing, relation, r.now, effects)
        return self._outcome(session, relation, action, message, effects)

    # -- the judgment workflow ----------------------------------------------------------------
    def pending(self, limit: int = 20, offset: int = 0, memory: str | None = None) -> PendingPage:
        """Pending relations, oldest first, with both memories summarized (optionally those touching one)."""
        limit = check_count("limit", limit, 1, 500)
        offset = check_count("offset", offset, 0, 10_000_000)
        touching = [resolve(self.uow.repository, [memory])[memory]] if memory else None
        with self.uow.read() as session:
            relations, total = relation_store.relations_by_status(
                session, "pending", limit=limit, offset=offset, memory_ids=touching)
            items = tuple(PendingItem(r, *self._ends(session, r)) for r in relations)
        return PendingPage(items=items, total=total, offset=offset, limit=limit,
                           has_more=offset + len(items) < total)

    def judge(self, relation_id: str, type: str | None = None, *, confidence: float | None = None,
              reason: str | None = None, evidence: str | None = None,
              stronger: str | None = None) -> RelationOutcome:
        """Confirm a relation, or revise its type or confidence; ``stronger`` names the side that wins."""
        if type is not None:
            check_relation_type(type)
        fields = _checked_fields(1.0 if confidence is None else confidence, reason, evidence, None)
        fields["confidence"] = confidence  # None keeps the proposed confidence
        judgment = _Judgment(type, fields, stronger, _now())
        return self._locked(lambda session, effects: self._judge_in(session, relation_id, judgment, effects))

    def _judge_in(self, session: Any, relation_id: str, judgment: _Judgment,
                  effects: RelationEffects) -> RelationOutcome:
        existing = self._get(session, relation_id)
        new_type = judgment.type or existing.type
        self._refuse_collision(session, existing, new_type)
        changes = _merge(existing, judgment.fields) | {
            "type": new_type, "status": "judged", "judged_at": _ms(judgment.now)}
        if judgment.stronger is not None:
            stronger_id = self._side(existing, judgment.stronger)
            changes["meta"] = {**changes.get("meta", existing.meta), "stronger_id": stronger_id}
        relation = relation_store.update_relation(session, existing.id, changes)
        record_effects(session, existing, relation, judgment.now, effects)
        return self._outcome(session, relation, "judged", _judge_message(existing, relation), effects)

    def ignore(self, relation_id: str, reason: str | None = None) -> RelationOutcome:
        """Dismiss a relation: it stops affecting recall and its pair is never proposed again."""
        reason = scrub_text("reason", reason, _TEXT_LIMIT)
        now = _now()
        return self._locked(lambda session, effects: self._ignore_in(
            session, relation_id, reason, now, effects))

    def _ignore_in(self, session: Any, relation_id: str, reason: str | None, now: datetime,
                   effects: RelationEffects) -> RelationOutcome:
        existing = self._get(session, relation_id)
        if existing.status == "ignored":
            return self._outcome(session, existing, "unchanged", f"{existing.id} was already ignored",
                                 effects)
        changes: dict[str, Any] = {"status": "ignored", "judged_at": _ms(now)}
        if reason:
            changes["reason"] = reason
        relation = relation_store.update_relation(session, existing.id, changes)
        record_effects(session, existing, relation, now, effects)
        return self._outcome(session, relation, "ignored",
                             f"ignored {existing.type} {existing.id} (was {existing.status})", effects)

    # -- helpers ------------------------------------------------------------------------------
    def _locked(self, body: Callable[[Any, RelationEffects], RelationOutcome]) -> RelationOutcome:
        """Run one write use case: under the write lock, in one transaction, then follow in the graph."""
        effects = RelationEffects()
        with self.uow.write() as write:
            outcome = body(write.session, effects)
            effects.record(write)
        return outcome

    def _get(self, session: Any, relation_id: str) -> Relation:
        relation = relation_store.get_relation(session, relation_id) if isinstance(relation_id, str) else None
        if relation is None:
            raise NotFound("relation id", str(relation_id))
        return relation

    def _refuse_collision(self, session: Any, relation: Relation, new_type: str) -> None:
        if new_type == relation.type:
            return
        clash = relation_store.find_relation(session, relation.source_id, relation.target_id, new_type,
                                             either_direction=RELATION_TYPES[new_type].symmetric)
        if clash is not None:
            raise ConflictError(f"{relation.source_id} and {relation.target_id} already have a {new_type} "
                                f"relation "
                                f"({clash.id}, {clash.status}); judge that one and ignore {relation.id}")

    def _side(self, relation: Relation, ref: str) -> str:
        memory_id = resolve(self.uow.repository, [ref])[ref]
        if memory_id not in (relation.source_id, relation.target_id):
            raise InvalidInput(f"stronger must be {relation.source_id} or {relation.target_id}, not {ref!r}")
        return memory_id

    def _ends(self, session: Any, relation: Relation) -> tuple[Any, Any]:
        source = relation_store.memory(session, relation.source_id)
        target = relation_store.memory(session, relation.target_id)
        if source is None or target is None:
            raise NotFound("memory of relation " + relation.id, relation.source_id if source is None
                           else relation.target_id)
        return brief(source), brief(target)

    def _outcome(self, session: Any, relation: Relation, action: str, message: str,
                 effects: RelationEffects) -> RelationOutcome:
        source, target = self._ends(session, relation)
        return RelationOutcome(relation=relation, action=action, message=message, source=source,
                               target=target, superseded=tuple(effects.superseded),
                               restored=tuple(effects.restored))


@dataclass(frozen=True, slots=True)
class _WriteRequest:
    """A validated relate/compare call, ready to run inside the transaction."""

    source_id: str
    target_id: str
    type: str
    symmetric: bool
    fields: dict[str, Any]
    pending: bool
    now: datetime


@dataclass(frozen=True, slots=True)
class _Judgment:
    type: str | None
    fields: dict[str, Any]
    stronger: str | None
    now: datetime


def _checked_fields(confidence: float, reason: str | None, evidence: str | None,
                    meta: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"confidence": check_range("confidence", confidence, 0.0, 1.0),
            "reason": scrub_text("reason", reason, _TEXT_LIMIT),
            "evidence": scrub_text("evidence", evidence, _TEXT_LIMIT),
            "meta": scrub_meta("meta", meta) or None}


def _settling(session: Any, request: _WriteRequest) -> Relation | None:
    """The relation that already answers what ``compare`` would propose for this pair, if any.

    That is a judged or ignored relation of the same type, or any relation (even pending) of another
    type answering the same question: a second verdict would leave the pair both judged and open.
    """
    for relation in relation_store.relations_between(session, request.source_id, request.target_id):
        if relation.type == request.type:
            if relation.status != "pending" and _same_direction(relation, request):
                return relation
        elif same_question(relation.type, request.type):
            return relation
    return None


def _same_direction(relation: Relation, request: _WriteRequest) -> bool:
    return request.symmetric or (relation.source_id, relation.target_id) == (request.source_id, request.target_id)


def _merge(existing: Relation, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields a repeat or a judgment changes: given values win, omitted ones keep what was there."""
    changes = {name: value for name, value in fields.items() if value is not None and name != "meta"}
    if fields.get("meta"):
        changes["meta"] = {**existing.meta, **fields["meta"]}
    return changes


def _kept_message(existing: Relation) -> str:
    when = ("" if existing.status == "pending" else
            f" ({existing.status} at {existing.judged_at.isoformat() if existing.judged_at else '?'})")
    return (f"this pair already has {existing.status} {existing.type} relation {existing.id}{when}; "
            f"left unchanged. Use judge with relation_id={existing.id} to revise it.")


def _update_message(before: Relation, after: Relation) -> str:
    names = ("status", "confidence", "reason", "evidence")
    changed = [f"{name} {getattr(before, name)!r} → {getattr(after, name)!r}"
               for name in names if getattr(before, name) != getattr(after, name)]
    return f"updated {after.type} relation {after.id}: " + (", ".join(changed) or "no change")


def _judge_message(before: Relation, after: Relation) -> str:
    revised = f" (revised from {before.type})" if before.type != after.type else ""
    return f"judged {after.type}{revised} {after.id} with confidence {after.confidence}"


def _now() -> datetime:
    """Now, at the store's millisecond resolution (so a written time reads back equal)."""
    return from_ms(time.time_ns() // 1_000_000)


def _ms(instant: datetime) -> int:
    return to_ms(instant)

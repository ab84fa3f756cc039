"""Fact rows, and the concept rows that put facts into the graph.

A fact's subject and object are concept keys. Adding a fact makes sure both concepts exist; the
projection then joins them with a fact edge (``GraphProjection.apply_fact``, and on load from the
``fact`` rows), so activation flows from "alice" to "acme corp" through the fact. The fact edge is
its own edge, not co-occurrence evidence: it is there whether or not co-occurrence edges are enabled.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_
from sqlmodel import Session, col, select

from graphmem.core.facts import Fact
from graphmem.store.convert import from_ms
from graphmem.store.repository import ConceptRecord, StoredBatch
from graphmem.store.tables import ConceptRow, FactRow

__all__ = ["close_fact", "ensure_concepts", "fact_from_row", "facts_where", "get_fact", "insert_fact"]


def fact_from_row(row: FactRow) -> Fact:
    return Fact(id=row.id, subject=row.subject, predicate=row.predicate, object=row.object,
                confidence=row.confidence, valid_from=from_ms(row.valid_from),
                created_at=from_ms(row.created_at),
                valid_to=None if row.valid_to is None else from_ms(row.valid_to),
                superseded_by=row.superseded_by, reason=row.reason, source_id=row.source_id,
                meta=dict(row.meta))


def get_fact(session: Session, fact_id: str) -> Fact | None:
    row = session.get(FactRow, fact_id)
    return None if row is None else fact_from_row(row)


def facts_where(session: Session, *, subject: str | None = None, predicate: str | None = None,
                obj: str | None = None, entity: str | None = None, open_only: bool = False,
                at_ms: int | None = None) -> list[Fact]:
    """Facts matching the filters (``entity`` = subject or object), ordered by ``valid_from``."""
    query = select(FactRow)
    for column, value in ((FactRow.subject, subject), (FactRow.predicate, predicate), (FactRow.object, obj)):
        if value is not None:
            query = query.where(column == value)
    if entity is not None:
        query = query.where(or_(col(FactRow.subject) == entity, col(FactRow.object) == entity))
    if open_only:
        query = query.where(col(FactRow.valid_to).is_(None))
    if at_ms is not None:
        query = query.where(FactRow.valid_from <= at_ms,
                            or_(col(FactRow.valid_to).is_(None), col(FactRow.valid_to) > at_ms))
    query = query.order_by(col(FactRow.valid_from), col(FactRow.created_at), col(FactRow.id))
    return [fact_from_row(row) for row in session.exec(query)]


def insert_fact(session: Session, fields: dict[str, Any]) -> Fact:
    row = FactRow(**fields)
    session.add(row)
    session.flush()
    return fact_from_row(row)


def close_fact(session: Session, fact_id: str, *, valid_to_ms: int, superseded_by: str | None,
               reason: str | None) -> Fact:
    row = session.get(FactRow, fact_id)
    if row is None:
        raise LookupError(fact_id)
    row.valid_to, row.superseded_by = valid_to_ms, superseded_by
    if reason:
        row.reason = reason
    session.add(row)
    session.flush()
    return fact_from_row(row)


def ensure_concepts(session: Session, keys: tuple[str, ...], batch: StoredBatch) -> None:
    """Create missing concept rows for a fact's subject and object and record them in ``batch``, so the
    projection adds their nodes (``apply_batch``) before the fact's edge (``apply_fact``)."""
    batch.concepts.update({key: _concept(session, key) for key in dict.fromkeys(keys)})


def _concept(session: Session, key: str) -> ConceptRecord:
    row = session.exec(select(ConceptRow).where(ConceptRow.key == key)).first()
    if row is None:
        row = ConceptRow(key=key, kind="entity", df=0, aliases=[])
        session.add(row)
        session.flush()
    return ConceptRecord(row.seq or 0, row.key, row.kind, row.df)

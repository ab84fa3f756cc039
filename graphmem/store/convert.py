"""Row ↔ core-value conversion at the store boundary (epoch ms ↔ aware UTC datetimes).

``to_ms`` / ``from_ms`` live in :mod:`graphmem.core.time`; they are re-exported here for the store's modules.
"""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any, TypeAlias

from sqlalchemy.engine import Row

from graphmem.core.time import from_ms, to_ms
from graphmem.core.values import Memory, Relation
from graphmem.store.tables import MemoryRow, RelationRow

__all__ = ["from_ms", "memory_from_row", "relation_from_row", "to_ms"]


def _optional(ms: int | None) -> datetime | None:
    return None if ms is None else from_ms(ms)


# A memory's columns as attributes: an ORM row, a Core result row, or a bulk insert's namespace.
MemoryColumns: TypeAlias = MemoryRow | Row[*tuple[Any, ...]] | SimpleNamespace


def memory_from_row(row: MemoryColumns) -> Memory:
    return Memory(
        id=row.id, content=row.content, kind=row.kind, project=row.project,
        created_at=from_ms(row.created_at), last_used_at=from_ms(row.last_used_at),
        valid_from=from_ms(row.valid_from), topic_key=row.topic_key, tags=tuple(row.tags),
        entities=tuple(row.entities), source=row.source, context=row.context, meta=dict(row.meta),
        session_id=row.session_id, use_count=row.use_count, strength=row.strength, status=row.status,
        valid_to=_optional(row.valid_to), superseded_by=row.superseded_by,
        review_after=_optional(row.review_after), parent_id=row.parent_id,
        outcome=getattr(row, "outcome", None), task_type=getattr(row, "task_type", None),
        tools_used=tuple(getattr(row, "tools_used", None) or ()),
    )


def relation_from_row(row: RelationRow | Row[*tuple[Any, ...]]) -> Relation:
    return Relation(
        id=row.id, source_id=row.source_id, target_id=row.target_id, type=row.type,
        confidence=row.confidence, status=row.status, created_at=from_ms(row.created_at),
        reason=row.reason, evidence=row.evidence, meta=dict(row.meta), judged_at=_optional(row.judged_at),
    )

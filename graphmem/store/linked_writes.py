"""Memories and the relations between them, written in one transaction.

Importers of other systems' files (the MCP reference server's entities and relations) create
memories and link them in the same call; if either half failed alone the store would hold memories
without their links, so both go through the caller's one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from graphmem.core.values import Relation
from graphmem.ids import new_id
from graphmem.store.convert import relation_from_row
from graphmem.store.repository import MemoryDraft, StoredBatch, insert_memories
from graphmem.store.tables import RelationRow

__all__ = ["LinkDraft", "add_memories_linked"]


@dataclass(frozen=True, slots=True)
class LinkDraft:
    """A relation between two drafts of the same batch, by their positions in it."""

    source: int
    target: int
    type: str
    reason: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    confidence: float = 1.0


def add_memories_linked(session: Session, drafts: Sequence[MemoryDraft], links: Sequence[LinkDraft],
                        now_ms: int) -> tuple[StoredBatch, list[Relation]]:
    """Insert ``drafts`` (deduplicated as usual) and ``links`` between them; returns the batch and the
    relations that were new. A link whose triple already exists, or that joins a memory to itself
    (two drafts that deduplicated to one memory), is skipped, so re-importing a file adds nothing."""
    batch = insert_memories(session, drafts)
    ids = [memory_id for memory_id, _ in batch.outcomes]
    known = _existing_triples(session, ids)
    rows = []
    for link in links:
        triple = (ids[link.source], ids[link.target], link.type)
        if triple[0] == triple[1] or triple in known:
            continue
        known.add(triple)
        rows.append(RelationRow(id=new_id("rel", at_ms=now_ms), source_id=triple[0], target_id=triple[1],
                                type=link.type, confidence=link.confidence, reason=link.reason,
                                meta=dict(link.meta), status="judged", created_at=now_ms,
                                judged_at=now_ms))
    session.add_all(rows)
    session.flush()
    return batch, [relation_from_row(row) for row in rows]


def _existing_triples(session: Session, ids: Sequence[str]) -> set[tuple[str, str, str]]:
    wanted = sorted(set(ids))
    found: set[tuple[str, str, str]] = set()
    for start in range(0, len(wanted), 900):  # under SQLite's bound-parameter limit
        query = select(RelationRow.source_id, RelationRow.target_id, RelationRow.type).where(
            col(RelationRow.source_id).in_(wanted[start : start + 900]))
        found.update((s, t, k) for s, t, k in session.exec(query))
    return found

"""Topic-key upsert: storing with a topic key the project already uses replaces the memory it names.

KiroGraph documents topic keys as "addressing by concept across sessions" but never closes the old
observation, so both stay current and ``asOf`` filters nothing. Here the replacement is a judged
``supersedes`` relation written in the insert's own transaction, with the older memory's
``valid_to`` / ``superseded_by`` set, so recall shows the new memory, ``as_of`` an earlier instant
shows the old one, and ``history`` lists the chain.

Which memory wins is decided by time, not by insertion order: of the new memory and the current
holders of its key, the one with the latest ``valid_from`` stays current (an imported, back-dated
observation does not replace a newer one; it is itself closed by it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.core.time import to_ms
from graphmem.core.validity import superseded_until
from graphmem.core.values import Memory
from graphmem.ids import new_id
from graphmem.service.memories.relation_effects import RelationEffects
from graphmem.service.memories.results import StoreResult
from graphmem.store import relation_store
from graphmem.store.repository import StoredBatch

__all__ = ["TopicUpsert", "upsert_topic_keys"]


@dataclass(slots=True)
class TopicUpsert:
    """What the upsert wrote, to follow in the projection and to report in the store results."""

    effects: RelationEffects = field(default_factory=RelationEffects)
    superseded: dict[str, list[str]] = field(default_factory=dict)  # new memory id → ids it replaced

    def annotate(self, results: Sequence[StoreResult]) -> list[StoreResult]:
        """The store results with ``superseded`` filled in."""
        return [dataclasses.replace(r, superseded=tuple(self.superseded[r.id])) if r.id in self.superseded
                else r for r in results]


def upsert_topic_keys(session: Any, batch: StoredBatch, now: datetime) -> TopicUpsert:
    """For each fresh memory with a topic key, supersede the other current holders of the key."""
    upsert = TopicUpsert()
    for seq, memory in batch.memories:
        if not memory.topic_key:
            continue
        holders = relation_store.current_with_topic_key(session, memory.project or "", memory.topic_key,
                                                        exclude=[memory.id])
        for old_seq, old in holders:
            # Later validity wins; at equal validity the later insert (higher seq) wins.
            fresh_wins = (memory.valid_from, seq) > (old.valid_from, old_seq)
            newer, older = (memory, old) if fresh_wins else (old, memory)
            _supersede(session, newer, older, now, upsert)
            if older.id == memory.id:
                break  # the fresh memory itself was replaced: it holds the key no longer
    return upsert


def _supersede(session: Any, newer: Memory, older: Memory, now: datetime, upsert: TopicUpsert) -> None:
    now_ms = to_ms(now)
    relation = relation_store.insert_relation(session, {
        "id": new_id("rel"), "source_id": newer.id, "target_id": older.id, "type": "supersedes",
        "confidence": 1.0, "status": "judged", "created_at": now_ms, "judged_at": now_ms,
        "reason": f"topic key {older.topic_key!r} upsert: the newer memory replaces the older one",
        "meta": {"topic_key": older.topic_key, "upsert": True}})
    valid_to = superseded_until(older.valid_from, older.valid_to, newer.valid_from, now)
    closed = relation_store.close_memory(session, older.id, valid_to_ms=to_ms(valid_to),
                                         superseded_by=newer.id)
    upsert.effects.applied.append(relation)
    upsert.effects.memories[closed.id] = closed
    upsert.effects.hidden[closed.id] = True
    upsert.superseded.setdefault(newer.id, []).append(older.id)

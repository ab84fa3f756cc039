"""The one history of a memory, and ``open`` as of an instant.

A memory's history is everything reachable from it through judged ``supersedes`` relations (either
direction), ``superseded_by`` (a forget with a successor) and ``parent_id`` lineage (a correction keeps
its original as parent). It lists every version, oldest first, whether recall shows it now, and
what replaced what, and when: the replacement time is the replaced memory's ``valid_to`` (which a
judged ``supersedes`` sets), else the relation's judgment time. The CLI ``history`` / ``chain`` and
both MCP history actions read this one use case (``service.history.of``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.core.time import from_ms
from graphmem.core.values import Memory, Relation
from graphmem.errors import NotFound
from graphmem.service.memories.reads import concept_names
from graphmem.service.memories.results import HistoryEvent, HistoryResult, HistoryVersion, OpenResult
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_text
from graphmem.store import relation_store

__all__ = ["HistoryService", "open_at"]

_CURRENT = ("active", "promoted")
_MAX_CHAIN = 500  # a chain longer than this is a modelling error, not a history anyone reads


class HistoryService:
    """``service.history``: what replaced what, and when."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def of(self, ref: str, project: str | None = None) -> HistoryResult:
        """The history of a memory id or topic key (of one project when ``project`` is given), oldest first."""
        ref = check_text("ref", ref, 300, required=True) or ""
        project = check_text("project", project, 200)
        with self.uow.read() as session:
            start = relation_store.memories_by_ids(session, [ref]) or relation_store.memories_with_topic_key(
                session, ref, project)
            if not start:
                raise NotFound("memory id or topic key", ref)
            memories, relations = _chain(session, start)
        now = from_ms(time.time_ns() // 1_000_000)
        ordered = sorted(memories.values(), key=lambda m: (m.valid_from, m.created_at, m.id))
        versions = tuple(_version(m, _is_current(m, now)) for m in ordered)
        return HistoryResult(ref=ref, memories=versions, events=_events(memories, relations),
                             current_ids=tuple(v.id for v in versions if v.current))


def _is_current(memory: Memory, now: datetime) -> bool:
    return (memory.superseded_by is None and memory.status in _CURRENT
            and (memory.valid_to is None or memory.valid_to > now))


def _version(memory: Memory, current: bool) -> HistoryVersion:
    return HistoryVersion(
        id=memory.id, kind=memory.kind, content=memory.content, project=memory.project,
        topic_key=memory.topic_key, created_at=memory.created_at.isoformat(),
        valid_from=memory.valid_from.isoformat(),
        valid_to=memory.valid_to.isoformat() if memory.valid_to else None,
        superseded_by=memory.superseded_by, status=memory.status, parent_id=memory.parent_id, current=current)


def _chain(session: Any, start: list[Memory]) -> tuple[dict[str, Memory], dict[str, Relation]]:
    memories = {m.id: m for m in start}
    relations: dict[str, Relation] = {}
    frontier = list(memories)
    while frontier and len(memories) < _MAX_CHAIN:
        found = relation_store.supersedes_touching(session, frontier)
        relations.update((r.id, r) for r in found)
        linked = {i for r in found for i in (r.source_id, r.target_id)}
        linked |= {ref for m in memories.values() if m.id in frontier for ref in (m.parent_id, m.superseded_by)
                   if ref}
        children = relation_store.memories_derived_from(session, frontier)
        new_ids = (linked | {c.id for c in children}) - memories.keys()
        memories.update((m.id, m) for m in relation_store.memories_by_ids(session, sorted(new_ids)))
        frontier = sorted(new_ids & memories.keys())
    return memories, relations


def _events(memories: dict[str, Memory], relations: dict[str, Relation]) -> tuple[HistoryEvent, ...]:
    events = []
    covered = set()
    for relation in relations.values():
        old = memories.get(relation.target_id)
        closed_at = old.valid_to if old is not None else None
        when = closed_at or relation.judged_at or relation.created_at
        events.append(HistoryEvent(old_id=relation.target_id, new_id=relation.source_id, at=when.isoformat(),
                                   via="supersedes", relation_id=relation.id, reason=relation.reason))
        covered.add((relation.target_id, relation.source_id))
    for memory in memories.values():
        if memory.superseded_by and (memory.id, memory.superseded_by) not in covered:
            events.append(HistoryEvent(old_id=memory.id, new_id=memory.superseded_by,
                                       at=(memory.valid_to or memory.created_at).isoformat(), via="superseded_by"))
            covered.add((memory.id, memory.superseded_by))
    for memory in memories.values():
        if memory.parent_id and (memory.parent_id, memory.id) not in covered:
            events.append(HistoryEvent(old_id=memory.parent_id, new_id=memory.id,
                                       at=memory.created_at.isoformat(), via="parent"))
    return tuple(sorted(events, key=lambda e: (e.at, e.old_id, e.new_id)))


def open_at(uow: UnitOfWork, refs: Sequence[str], include_relations: bool, instant: datetime) -> OpenResult:
    """``open`` as the store was at ``instant``: a topic key names the memory that held it then, a memory
    created later is not found, later replacements and relations are not shown."""
    with uow.read() as session:
        found: dict[str, Memory] = {}
        for ref in dict.fromkeys(refs):
            candidates = relation_store.memories_by_ids(session, [ref]) or [
                m for m in relation_store.memories_with_topic_key(session, ref) if m.valid_at(instant)]
            existing = [m for m in candidates if m.created_at <= instant]
            if existing:
                found[ref] = _as_then(existing[-1], instant)
    memories = tuple({m.id: m for m in found.values()}.values())
    relations: tuple[Relation, ...] = ()
    if include_relations:
        relations = tuple(r for r in uow.repository.relations_touching([m.id for m in memories])
                          if r.created_at <= instant)
    projection = uow.fresh()  # a read: this process's queued writes applied first
    nodes = projection.memory_nodes
    concepts = {m.id: tuple(concept_names(projection, nodes[m.id])) for m in memories if m.id in nodes}
    return OpenResult(memories=memories, relations=relations, concepts=concepts,
                      not_found=tuple(ref for ref in refs if ref not in found))


def _as_then(memory: Memory, instant: datetime) -> Memory:
    """The memory without replacements that happened after ``instant``."""
    if memory.valid_to is not None and memory.valid_to > instant:
        return dataclasses.replace(memory, valid_to=None, superseded_by=None)
    return memory

"""Following the change log: bring a projection up to date with writes it did not make.

A process applies its own writes to its projection directly (the rows it just wrote are in hand).
Writes by any other process (a CLI import, a second server on the same database) reach it here: the
log says which memories, relations and facts each generation touched, and this module reads those
rows, in one snapshot, and applies them with the same projection methods the writer used. Nothing
is reloaded wholesale unless the log asks for it (a hard delete or another bulk rewrite), or unless
the log no longer reaches back to this reader (it keeps the newest ``KEEP_GENERATIONS`` generations).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from graphmem.core.relations import hidden_ends
from graphmem.store import relation_store
from graphmem.store.changes import FACTS, MEMORIES, RELATIONS, RELOAD, Change, changes_since, current_generation
from graphmem.store.convert import memory_from_row
from graphmem.store.engine import snapshot
from graphmem.store.projection import GraphProjection, RelationEdge
from graphmem.store.repository import ConceptRecord, StoredBatch
from graphmem.store.tables import ConceptRow, FactRow, MemoryRow, MentionRow, RelationRow

__all__ = ["follow"]

_CHUNK = 900  # stays under SQLite's bound-parameter limit on old builds


def follow(projection: GraphProjection, engine: Engine, after: int, *, upto: int | None = None) -> int:
    """Apply the changes committed after generation ``after`` (through ``upto``); return the generation
    the projection now reflects."""
    with snapshot(engine) as connection:
        reached = current_generation(connection) if upto is None else upto
        if reached <= after:
            return after
        changes = changes_since(connection, after, upto=reached)
        if _needs_reload(projection, after, changes):
            reload = True
        else:
            reload = False
            with projection.lock:
                _apply(projection, connection, changes)
    if reload:
        return projection.reload(engine)
    return reached


def _needs_reload(projection: GraphProjection, after: int, changes: Sequence[Change]) -> bool:
    # Every generation logs at least one row in its own transaction, so the log holds ``after + 1``
    # unless it was pruned past this reader (see ``prune_changes``): then only the rows can tell.
    if not changes or changes[0].generation != after + 1:
        return True
    kinds = {change.kind for change in changes}
    # Co-occurrence weights are increments over counts this process never saw; when that leg is
    # projected (off by default), another process's inserts are followed by a rebuild instead.
    return RELOAD in kinds or (MEMORIES in kinds and projection.settings.cooccurrence)


def _apply(projection: GraphProjection, connection: Connection, changes: Sequence[Change]) -> None:
    refs: dict[str, set[str]] = {MEMORIES: set(), FACTS: set(), RELATIONS: set()}
    for change in changes:
        refs.setdefault(change.kind, set()).update(change.refs)
    _follow_memories(projection, connection, refs[MEMORIES])
    _follow_facts(projection, connection, refs[FACTS])
    _follow_relations(projection, connection, refs[RELATIONS])


def _follow_memories(projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
    rows = _select_in(connection, (MemoryRow.__table__,), MemoryRow.__table__.c.id, ids)
    fresh = []
    for row in rows:
        memory = memory_from_row(row)
        if memory.id in projection.memory_nodes:
            projection.refresh_memory(memory)
        else:
            fresh.append((int(row.seq), memory))
    if not fresh:
        return
    batch = StoredBatch(memories=sorted(fresh, key=lambda item: item[0]))
    mention = MentionRow.__table__
    seqs = [seq for seq, _ in fresh]
    batch.mentions = [(int(m), int(c), float(w)) for m, c, w in _select_in(
        connection, (mention.c.memory_seq, mention.c.concept_seq, mention.c.weight), mention.c.memory_seq, seqs)]
    concept_seqs = sorted({c for _, c, _ in batch.mentions})
    batch.concepts = _concepts(connection, ConceptRow.__table__.c.seq, concept_seqs)
    projection.apply_batch(batch)


def _follow_facts(projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
    fact = FactRow.__table__
    facts = list(_select_in(connection, (fact.c.subject, fact.c.object, fact.c.confidence), fact.c.id, ids))
    unknown = sorted({key for s, o, _ in facts for key in (s, o)} - projection.concept_nodes.keys())
    if unknown:
        projection.apply_batch(StoredBatch(concepts=_concepts(connection, ConceptRow.__table__.c.key, unknown)))
    for subject, obj, confidence in facts:
        projection.apply_fact(subject, obj, confidence)


def _follow_relations(projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
    table = RelationRow.__table__
    columns = (table.c.id, table.c.source_id, table.c.target_id, table.c.type, table.c.confidence, table.c.status)
    current = {row[0]: RelationEdge(*row) for row in _select_in(connection, columns, table.c.id, ids)}
    ends: set[str] = set()
    for relation_id in sorted(ids):
        before, after = projection.relations.get(relation_id), current.get(relation_id)
        if before == after:
            continue
        if before is not None:
            projection.retract_relation(before)
        if after is not None:
            projection.apply_relation(after)
        ends |= hidden_ends(before) | hidden_ends(after)
    session = Session(bind=connection)
    for memory_id in sorted(ends):  # another judged relation may still hide the same memory
        projection.set_hidden(memory_id, bool(relation_store.hiding_relations(session, memory_id)))


def _concepts(connection: Connection, column: Any, values: Sequence[Any]) -> dict[str, ConceptRecord]:
    table = ConceptRow.__table__
    rows = _select_in(connection, (table.c.seq, table.c.key, table.c.kind, table.c.df), column, values)
    return {key: ConceptRecord(int(seq), key, kind, int(df)) for seq, key, kind, df in rows}


def _select_in(connection: Connection, columns: Sequence[Any], column: Any,
               values: Collection[Any]) -> Iterator[Any]:
    for chunk in _chunks(sorted(values)):
        yield from connection.execute(select(*columns).where(column.in_(chunk)))


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]

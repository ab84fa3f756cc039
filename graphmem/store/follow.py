"""Following the change log: bring a projection up to date with writes it did not make.

A process applies its own writes to its projection directly (the rows it just wrote are in hand).
Writes by any other process (a CLI import, a second server on the same database) reach it here: the
log says which memories, relations and facts each generation touched, and this module reads those
rows, in one snapshot, and applies them with the same projection methods the writer used. Nothing
is reloaded wholesale unless the log asks for it (a hard delete or another bulk rewrite), or unless
the log no longer reaches back to this reader (it keeps the newest ``KEEP_GENERATIONS`` generations).

A projection of some projects only follows through a :class:`FollowScope`
(:class:`graphmem.store.project_scope.ProjectScope`): it applies the memories and facts of its projects
(another project's new memory only counts in the store-wide figures of the concepts it mentions), and
rebuilds from its projects' rows instead of the whole store's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any, Protocol

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

__all__ = ["FollowScope", "apply_memory_rows", "concept_records", "follow", "mentions_of", "select_in"]

_CHUNK = 900  # stays under SQLite's bound-parameter limit on old builds


class FollowScope(Protocol):
    """How a projection of part of the store follows memories and facts, and rebuilds."""

    def follow_memories(self, projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None: ...

    def follow_facts(self, projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None: ...

    def reload(self, projection: GraphProjection, engine: Engine) -> int: ...


def follow(projection: GraphProjection, engine: Engine, after: int, *, upto: int | None = None,
           scope: FollowScope | None = None) -> int:
    """Apply the changes committed after generation ``after`` (through ``upto``); return the generation
    the projection now reflects. ``scope``: the projection holds part of the store (see the module)."""
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
                _apply(projection, connection, changes, scope)
    if reload:
        return projection.reload(engine) if scope is None else scope.reload(projection, engine)
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


def _apply(projection: GraphProjection, connection: Connection, changes: Sequence[Change],
           scope: FollowScope | None) -> None:
    refs: dict[str, set[str]] = {MEMORIES: set(), FACTS: set(), RELATIONS: set()}
    for change in changes:
        refs.setdefault(change.kind, set()).update(change.refs)
    if scope is None:
        _follow_memories(projection, connection, refs[MEMORIES])
        _follow_facts(projection, connection, refs[FACTS])
    else:
        scope.follow_memories(projection, connection, refs[MEMORIES])
        scope.follow_facts(projection, connection, refs[FACTS])
    # Relations with an end outside a partial projection add no edge there (apply_relation needs both
    # ends); the hidden flag of the end it holds is read from the rows, which see every project.
    _follow_relations(projection, connection, refs[RELATIONS])


def _follow_memories(projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
    apply_memory_rows(projection, connection, select_in(connection, (MemoryRow.__table__,),
                                                        MemoryRow.__table__.c.id, ids))


def apply_memory_rows(projection: GraphProjection, connection: Connection, rows: Iterable[Any]) -> None:
    """Refresh the memories of ``rows`` (memory table rows) the projection holds, insert the others with their
    mentions and concepts."""
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
    seqs = [seq for seq, _ in fresh]
    batch.mentions = mentions_of(connection, seqs)
    concept_seqs = sorted({c for _, c, _ in batch.mentions})
    batch.concepts = concept_records(connection, ConceptRow.__table__.c.seq, concept_seqs)
    projection.apply_batch(batch)


def mentions_of(connection: Connection, memory_seqs: Collection[int]) -> list[tuple[int, int, float]]:
    """The (memory seq, concept seq, weight) mention rows of ``memory_seqs``."""
    mention = MentionRow.__table__
    return [(int(m), int(c), float(w)) for m, c, w in select_in(
        connection, (mention.c.memory_seq, mention.c.concept_seq, mention.c.weight), mention.c.memory_seq,
        memory_seqs)]


def _follow_facts(projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
    fact = FactRow.__table__
    facts = list(select_in(connection, (fact.c.subject, fact.c.object, fact.c.confidence), fact.c.id, ids))
    unknown = sorted({key for s, o, _ in facts for key in (s, o)} - projection.concept_nodes.keys())
    if unknown:
        projection.apply_batch(StoredBatch(concepts=concept_records(connection, ConceptRow.__table__.c.key,
                                                                    unknown)))
    for subject, obj, confidence in facts:
        projection.apply_fact(subject, obj, confidence)


def _follow_relations(projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
    table = RelationRow.__table__
    columns = (table.c.id, table.c.source_id, table.c.target_id, table.c.type, table.c.confidence, table.c.status)
    current = {row[0]: RelationEdge(*row) for row in select_in(connection, columns, table.c.id, ids)}
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


def concept_records(connection: Connection, column: Any, values: Sequence[Any]) -> dict[str, ConceptRecord]:
    """The concepts whose ``column`` (seq or key) is one of ``values``, by key."""
    table = ConceptRow.__table__
    rows = select_in(connection, (table.c.seq, table.c.key, table.c.kind, table.c.df), column, values)
    return {key: ConceptRecord(int(seq), key, kind, int(df)) for seq, key, kind, df in rows}


def select_in(connection: Connection, columns: Sequence[Any], column: Any,
              values: Collection[Any]) -> Iterator[Any]:
    """``SELECT columns WHERE column IN values``, in chunks a SQLite build's parameter limit allows."""
    for chunk in _chunks(sorted(values)):
        yield from connection.execute(select(*columns).where(column.in_(chunk)))


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]

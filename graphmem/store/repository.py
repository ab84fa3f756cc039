"""The repository: transactional reads and writes of memories, concepts and their edges.

``insert_memories`` takes typed drafts (:mod:`graphmem.store.drafts`) and builds their rows itself.

Every public method runs in one transaction; a failure rolls everything back, so a failed call
leaves the store unchanged. Methods return core values or small frozen records, never rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, NamedTuple

from sqlalchemy import func
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session, col, select

from graphmem.core.values import Memory, Relation
from graphmem.errors import StorageError
from graphmem.store import bulk, fulltext
from graphmem.store import engine as engine_options
from graphmem.store.convert import memory_from_row, relation_from_row
from graphmem.store.drafts import MemoryDraft, memory_row
from graphmem.store.engine import WRITE_OPTION, read_connection
from graphmem.store.tables import ConceptEdgeRow, ConceptRow, MemoryRow, MentionRow, RelationRow, SessionRow

__all__ = ["ConceptRecord", "MemoryDraft", "Repository", "StoredBatch", "insert_memories"]

_CHUNK = 900  # stays under SQLite's bound-parameter limit on old builds


class ConceptRecord(NamedTuple):
    """A concept row's identity and document frequency (a tuple: bulk imports build ~10⁴ per batch)."""

    seq: int
    key: str
    kind: str
    df: int


@dataclass(slots=True)
class StoredBatch:
    """What one insert changed, so the graph projection can follow without reloading."""

    outcomes: list[tuple[str, bool]] = field(default_factory=list)  # (id, duplicate)
    memories: list[tuple[int, Memory]] = field(default_factory=list)
    concepts: dict[str, ConceptRecord] = field(default_factory=dict)
    mentions: list[tuple[int, int, float]] = field(default_factory=list)  # (memory_seq, concept_seq, w)
    edge_counts: list[tuple[int, int, int, int]] = field(default_factory=list)  # (a, b, before, after)


class Repository:
    """Reads and writes over one engine; with ``reads``, each read asks it for the engine to read from (a
    caught-up replica, see :mod:`graphmem.store.replicas`) while writes stay on ``engine``."""

    def __init__(self, engine: Engine, reads: Callable[[], Engine] | None = None) -> None:
        self.primary = engine
        self._reads = reads
        self._held: ContextVar[Connection | None] = ContextVar(f"graphmem_read_{id(self)}", default=None)

    @property
    def engine(self) -> Engine:
        """The engine the next read uses (the primary without a replica)."""
        return self.primary if self._reads is None else self._reads()

    @contextmanager
    def transaction(self, *, primary: bool = False) -> Iterator[Session]:
        """A read (or self-contained) session that commits on success and rolls back (raising
        StorageError) on a database error; on the primary with ``primary`` (rows written outside the store
        generation, which a replica's generation does not vouch for: the metrics)."""
        with Session(self.primary if primary else self.engine) as session, _failures_explained(session):
            yield session
            session.commit()

    @contextmanager
    def write_transaction(self) -> Iterator[Session]:
        """Like :meth:`transaction`, but holding the store's write lock from the first statement
        (SQLite ``BEGIN IMMEDIATE``; both engines wait at most ``engine.WRITE_WAIT_S`` for it)."""
        with Session(self.primary) as session, _failures_explained(session):
            connection = session.connection(execution_options={WRITE_OPTION: True})
            if connection.dialect.name == "postgresql":
                connection.exec_driver_sql(f"SET LOCAL lock_timeout = '{engine_options.WRITE_WAIT_S}s'")
            yield session
            session.commit()

    # -- reads ----------------------------------------------------------------------------------
    def memories_by_id(self, ids: Iterable[str]) -> dict[str, Memory]:
        return {m.id: m for m in self._memories_where(MemoryRow.__table__.c.id, list(dict.fromkeys(ids)))}

    def memories_by_seq(self, seqs: Iterable[int]) -> dict[int, Memory]:
        table = MemoryRow.__table__
        found: dict[int, Memory] = {}
        with read_connection(self.engine) as connection:
            for chunk in _chunks(list(dict.fromkeys(seqs))):
                # sqlmodel's select() overloads cover models and columns; a Core Table is valid SQLAlchemy
                for row in connection.execute(select(table).where(table.c.seq.in_(chunk))):  # type: ignore[call-overload]
                    found[row.seq] = memory_from_row(row)
        return found

    def concept_keys(self, ids: Iterable[str]) -> dict[str, list[str]]:
        """The keys of the concepts each memory mentions, oldest concept first: the rows' view of what the
        projection's ``concepts_of`` gives (a partitioned server opens memories without loading them)."""
        memory, mention, concept = MemoryRow.__table__, MentionRow.__table__, ConceptRow.__table__
        found: dict[str, list[str]] = {}
        with read_connection(self.engine) as connection:
            for chunk in _chunks(list(dict.fromkeys(ids))):
                rows = connection.execute(
                    select(memory.c.id, concept.c.key)
                    .join(mention, mention.c.memory_seq == memory.c.seq)
                    .join(concept, concept.c.seq == mention.c.concept_seq)
                    .where(memory.c.id.in_(chunk))
                    .order_by(memory.c.id, concept.c.seq))
                for memory_id, key in rows:
                    found.setdefault(memory_id, []).append(key)
        return found

    def memories_from_source(self, source: str) -> list[Memory]:
        """Every memory written with ``source`` (any status), oldest first (the reference dialect's entities)."""
        table = MemoryRow.__table__
        with read_connection(self.engine) as connection:
            return [memory_from_row(row) for row in connection.execute(
                select(table).where(table.c.source == source)  # type: ignore[call-overload]  # sqlmodel's select() is typed for models and columns; a Core table works
                .order_by(table.c.seq))]

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """One pooled read connection (:func:`~graphmem.store.engine.read_connection`) for the reads of one answer:
        inside, :meth:`hit_rows` and the recall notes (:func:`~graphmem.store.note_rows.note_rows`) share it, where
        each checkout and return cost ~25 µs of a 600-memory search. Per thread and task (a context variable);
        nested calls reuse the outer connection."""
        held = self._held.get()
        if held is not None:
            yield held
            return
        with read_connection(self.engine) as connection:
            token = self._held.set(connection)
            try:
                yield connection
            finally:
                self._held.reset(token)

    def hit_rows(self, seqs: Iterable[int]) -> dict[int, HitRow]:
        """The fields a recall hit shows, by seq: one query, only those columns (the recall hot path)."""
        wanted = list(dict.fromkeys(int(seq) for seq in seqs))
        found: dict[int, HitRow] = {}
        if not wanted:
            return found
        with self.reading() as connection:
            if connection.dialect.name == "postgresql":
                return _postgres_hit_rows(connection, wanted)
            # SQLite: the DB-API cursor: compiling an expanding IN and typing the JSON column cost more than the read.
            cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.execute(f"SELECT {_HIT_COLUMNS} FROM memory WHERE seq IN (SELECT value FROM json_each(?))",
                               ("[" + ",".join(map(str, wanted)) + "]",))
                for seq, mid, kind, content, project, created, topic_key, tags in cursor.fetchall():
                    # most memories have no tags: "[]" is not worth a json.loads (2 µs a hit)
                    parsed = (() if tags == "[]" else json.loads(tags)) if isinstance(tags, str) else tags
                    found[int(seq)] = HitRow(mid, kind, content, project, int(created), topic_key, tuple(parsed or ()))
            finally:
                cursor.close()
        return found

    def content_heads(self, seqs: Iterable[int], chars: int = 64) -> dict[int, str]:
        """The first ``chars`` characters of each memory's content, by seq (recall's turn detection)."""
        wanted = list(dict.fromkeys(int(seq) for seq in seqs))
        if not wanted:
            return {}
        if self.engine.dialect.name == "postgresql":  # one round trip, as hit_rows
            with read_connection(self.engine) as connection:
                return {int(seq): str(text or "")
                        for seq, text in connection.exec_driver_sql(_HEADS_POSTGRES, (int(chars), wanted))}
        with self.engine.connect() as connection:  # SQLite: the DB-API cursor, as hit_rows
            cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            try:
                cursor.execute("SELECT seq, substr(content, 1, ?) FROM memory "
                               "WHERE seq IN (SELECT value FROM json_each(?))",
                               (int(chars), "[" + ",".join(map(str, wanted)) + "]"))
                return {int(seq): str(text or "") for seq, text in cursor.fetchall()}
            finally:
                cursor.close()

    def _memories_where(self, column: Any, values: Sequence[Any]) -> list[Memory]:
        # Core rows expose columns as attributes, so the row → value conversion is shared with the
        # ORM path without paying for ORM identity-map bookkeeping on the recall hot path.
        table = MemoryRow.__table__
        with read_connection(self.engine) as connection:
            return [memory_from_row(row) for chunk in _chunks(values)
                    # sqlmodel's select() overloads cover models and columns; a Core Table is valid SQLAlchemy
                    for row in connection.execute(select(table).where(column.in_(chunk)))]  # type: ignore[call-overload]

    def ids_for_topic_keys(self, keys: Iterable[str]) -> dict[str, str]:
        """The newest current memory id per topic key."""
        found: dict[str, str] = {}
        with Session(self.engine) as session:
            for chunk in _chunks(list(dict.fromkeys(keys))):
                # Replaced memories first, so the last row per key (the one kept) is the newest holder
                # nothing superseded: a back-dated import inserted last does not take the key over.
                query = (select(MemoryRow.topic_key, MemoryRow.id)
                         .where(col(MemoryRow.topic_key).in_(chunk))
                         .order_by(col(MemoryRow.superseded_by).is_(None), col(MemoryRow.seq)))
                for topic_key, memory_id in session.exec(query):
                    found[topic_key or ""] = memory_id
        return found

    def relations_touching(self, ids: Iterable[str]) -> list[Relation]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Relation] = {}
        table = RelationRow.__table__
        with read_connection(self.engine) as connection:
            for chunk in _chunks(wanted):
                touching = table.c.source_id.in_(chunk) | table.c.target_id.in_(chunk)
                # sqlmodel's select() overloads cover models and columns; a Core Table is valid SQLAlchemy
                for row in connection.execute(select(table).where(touching)):  # type: ignore[call-overload]
                    found[row.id] = relation_from_row(row)
        return sorted(found.values(), key=lambda r: r.id)

    def bm25(self, query: str, limit: int, allowed_seqs: Sequence[int] | None = None,
             excluded_seqs: Sequence[int] | None = None, skip_terms: Collection[str] = (),
             project: str | None = None) -> list[tuple[int, float]]:
        with self.engine.connect() as connection:
            return fulltext.rank(connection, query, limit, allowed_seqs, excluded_seqs, skip_terms, project)

    def project_names(self) -> list[str]:
        """The store's projects, sorted (read through ``ix_memory_project_status``; memories without one
        are in no project)."""
        key = col(MemoryRow.project_key)
        with read_connection(self.engine) as connection:
            return list(connection.execute(select(key).where(key != "").distinct().order_by(key)).scalars())

    def counts(self) -> dict[str, Any]:
        """Row counts for status reports."""
        with Session(self.engine) as session:
            by_kind = dict(session.exec(select(MemoryRow.kind, func.count()).group_by(MemoryRow.kind)).all())
            by_status = dict(session.exec(select(MemoryRow.status, func.count()).group_by(MemoryRow.status)).all())
            return {
                "memories": sum(by_kind.values()),
                "by_kind": by_kind,
                "by_status": by_status,
                "concepts": session.exec(select(func.count()).select_from(ConceptRow)).one(),
                "mentions": session.exec(select(func.count()).select_from(MentionRow)).one(),
                "concept_edges": session.exec(select(func.count()).select_from(ConceptEdgeRow)).one(),
                "relations": session.exec(select(func.count()).select_from(RelationRow)).one(),
                "sessions": session.exec(select(func.count()).select_from(SessionRow)).one(),
            }


def insert_memories(session: Session, drafts: Sequence[MemoryDraft], *, edge_counts: bool = True) -> StoredBatch:
    """Insert drafts in the caller's transaction; the same normalized content in the same project is a
    duplicate (its existing id is reported, nothing is written for it).

    Co-occurrence rows are always written; with ``edge_counts`` false their counts are not read back
    (``StoredBatch.edge_counts`` stays empty), for a projection that does not project them."""
    batch = StoredBatch()
    fresh = _split_duplicates(session, drafts, batch)
    if not fresh:
        return batch
    # Bulk statements on the connection (graphmem/store/bulk.py): the ORM bulk path spent most of an
    # import in per-row bookkeeping we do not need (profiled: 7 s of 16 s of repository time per 2,500 rows).
    columns = bulk.MEMORY_INSERT.columns
    rows = [memory_row(draft) for draft in fresh]
    inserted = bulk.run(session.connection(), bulk.MEMORY_INSERT,
                        [tuple(row[name] for name in columns) for row in rows])
    seq_of = {memory_id: seq for seq, memory_id in inserted}
    concepts = _upsert_concepts(session, fresh)
    batch.concepts = concepts
    _insert_mentions(session, fresh, seq_of, concepts, batch)
    _add_cooccurrences(session, fresh, concepts, batch, edge_counts)
    # The inserted values are the drafts' own: build the core values from them, no read-back.
    # (a namespace, not a MemoryRow: model construction cost 0.3 ms a row on a bulk import).
    batch.memories = sorted((seq_of[row["id"]], memory_from_row(SimpleNamespace(**row))) for row in rows)
    return batch


def _split_duplicates(session: Session, drafts: Sequence[MemoryDraft],
                      batch: StoredBatch) -> list[MemoryDraft]:
    keys = sorted({(d.project_key, d.content_hash) for d in drafts})
    existing = {(project_key, content_hash): memory_id for project_key, content_hash, memory_id
                in bulk.existing_memories(session.connection(), keys)}
    fresh = []
    for draft in drafts:
        key = (draft.project_key, draft.content_hash)
        if key in existing:
            batch.outcomes.append((existing[key], True))
        else:
            existing[key] = draft.id
            batch.outcomes.append((draft.id, False))
            fresh.append(draft)
    return fresh


def _upsert_concepts(session: Session, drafts: Sequence[MemoryDraft]) -> dict[str, ConceptRecord]:
    """Create the concepts the drafts mention and add their document frequencies, in one upsert that
    returns every concept's row after the update (a select, an insert and an update before: three
    round trips on a single store's hot path)."""
    kinds: dict[str, str] = {}
    df_increment: dict[str, int] = {}
    for draft in drafts:
        for key, kind, _, _ in draft.mentions:
            kinds.setdefault(key, kind)
            df_increment[key] = df_increment.get(key, 0) + 1
    rows = bulk.run(session.connection(), bulk.CONCEPT_UPSERT,
                    [(key, kinds[key], df_increment[key], []) for key in sorted(kinds)])
    return {key: ConceptRecord(seq, key, kind, df) for seq, key, kind, df in rows}


def _insert_mentions(session: Session, drafts: Sequence[MemoryDraft], seq_of: dict[str, int],
                     concepts: dict[str, ConceptRecord], batch: StoredBatch) -> None:
    rows = []
    for draft in drafts:
        memory_seq = seq_of[draft.id]
        for key, _, weight, count in draft.mentions:
            rows.append((memory_seq, concepts[key].seq, weight, count))
    batch.mentions = [row[:3] for row in rows]
    bulk.run(session.connection(), bulk.MENTION_INSERT, rows)


def _add_cooccurrences(session: Session, drafts: Sequence[MemoryDraft],
                       concepts: dict[str, ConceptRecord], batch: StoredBatch, counts_back: bool) -> None:
    seq_of = {key: record.seq for key, record in concepts.items()}
    increments: dict[tuple[int, int], int] = {}
    for draft in drafts:
        for key_a, key_b, count in draft.cooccurrences:
            a, b = seq_of[key_a], seq_of[key_b]
            pair = (a, b) if a < b else (b, a)
            increments[pair] = increments.get(pair, 0) + count
    if not counts_back:
        bulk.run(session.connection(), bulk.EDGE_INCREMENT, [(a, b, n) for (a, b), n in increments.items()])
        return
    # RETURNING gives each pair's count after the upsert, so the count before is after minus the
    # increment: no read of the edge table (selecting every edge of a hub concept fetched 1.5M rows
    # per 500 observations at 100k memories).
    after = bulk.run(session.connection(), bulk.EDGE_UPSERT, [(a, b, n) for (a, b), n in increments.items()])
    batch.edge_counts = [(a, b, total - increments[(a, b)], total) for a, b, total in after]


@contextmanager
def _failures_explained(session: Session) -> Iterator[None]:
    try:
        yield
    except OperationalError as error:
        session.rollback()
        if _is_lock_timeout(error):
            raise StorageError(f"the store is busy: another process held its write lock for more than "
                               f"{engine_options.WRITE_WAIT_S} s; nothing was written, try again") from error
        raise StorageError(_database_error(error)) from error
    except SQLAlchemyError as error:
        session.rollback()
        raise StorageError(_database_error(error)) from error
    except BaseException:
        session.rollback()
        raise


def _is_lock_timeout(error: OperationalError) -> bool:
    message = str(error.orig).lower()
    return "database is locked" in message or "lock timeout" in message or "locknotavailable" in message


def _database_error(error: SQLAlchemyError) -> str:
    return f"database error, nothing was written: {error.__class__.__name__}: {str(error).splitlines()[0]}"


_HIT_COLUMNS = "seq, id, kind, content, project, created_at, topic_key, tags"
_HIT_POSTGRES = f"SELECT {_HIT_COLUMNS} FROM memory WHERE seq = ANY(%s::integer[])"
_HEADS_POSTGRES = "SELECT seq, substr(content, 1, %s) FROM memory WHERE seq = ANY(%s::integer[])"


def _postgres_hit_rows(connection: Connection, wanted: list[int]) -> dict[int, HitRow]:
    # One statement with the seqs as one array, in autocommit (read_connection): one round trip (a transaction's
    # BEGIN and ROLLBACK were two more), and one statement text for every page, which psycopg prepares once
    # (SQLAlchemy compiled an expanding IN of each page's size).
    found: dict[int, HitRow] = {}
    for seq, mid, kind, content, project, created, topic_key, tags in connection.exec_driver_sql(
            _HIT_POSTGRES, (wanted,)):
        found[int(seq)] = HitRow(mid, kind, content, project, int(created), topic_key, tuple(tags or ()))
    return found


class HitRow(NamedTuple):
    """A memory's fields as a recall hit shows them (:meth:`Repository.hit_rows`)."""

    id: str
    kind: str
    content: str
    project: str | None
    created_at: int  # epoch ms
    topic_key: str | None
    tags: tuple[str, ...]


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]

"""Lossless export and import of the whole store as JSON records.

Records (one per JSONL line, in this order): a ``header``, ``concept`` (by key), ``memory`` (by
creation order, with its mentions inline by concept key), ``concept_edge`` (by key pair),
``relation`` and ``session`` (by id), and ``prompt`` (saved user prompts, by time). Internal
integer keys (``seq``) never leave the store, so a file can be imported into a store that already
has rows: memories keep their ids, concepts merge by key, and a co-occurrence count merges as the
larger of the two, which makes importing the same file twice a no-op. Times stay epoch
milliseconds, so the round trip is exact.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from graphmem.store.tables import (
    ConceptEdgeRow,
    ConceptRow,
    FactRow,
    MemoryRow,
    MentionRow,
    PromptRow,
    RelationRow,
    SessionRow,
)

__all__ = ["FORMAT", "MEMORY_FIELDS", "ImportedRows", "export_records", "import_records", "missing_memories"]

FORMAT = "graphmem-jsonl"
MEMORY_FIELDS = (
    "id", "content", "kind", "project", "topic_key", "tags", "entities", "source", "context", "meta", "session_id",
    "created_at", "last_used_at", "use_count", "strength", "status", "valid_from", "valid_to", "superseded_by",
    "review_after", "parent_id", "content_hash", "outcome", "task_type", "tools_used",
)
_RELATION_FIELDS = ("id", "source_id", "target_id", "type", "confidence", "reason", "evidence", "meta", "status",
                    "created_at", "judged_at")
_DEFAULTS: dict[str, Any] = {"tags": list, "entities": list, "tools_used": list, "meta": dict, "use_count": int,
                             "strength": lambda: 1.0, "confidence": lambda: 1.0, "timeout_s": lambda: 7200}
_SESSION_FIELDS = ("id", "project", "client", "started_at", "last_activity_at", "ended_at", "timeout_s")
_PROMPT_FIELDS = ("id", "session_id", "project", "content", "created_at")
_FACT_FIELDS = ("id", "subject", "predicate", "object", "confidence", "valid_from", "valid_to", "superseded_by",
                "reason", "source_id", "meta", "created_at")


def export_records(engine: Engine, schema_version: int) -> Iterator[dict[str, Any]]:
    """Every row of the store as plain JSON-ready dicts, in a deterministic order."""
    yield {"type": "header", "format": FORMAT, "schema_version": schema_version}
    with Session(engine) as session:
        key_of = {}
        for row in session.exec(select(ConceptRow).order_by(col(ConceptRow.key))):
            key_of[row.seq] = row.key
            yield {"type": "concept", "key": row.key, "kind": row.kind, "aliases": list(row.aliases)}
        mentions: dict[int, list[list[Any]]] = {}
        for m in session.exec(select(MentionRow)):
            mentions.setdefault(m.memory_seq, []).append([key_of[m.concept_seq], m.weight, m.count])
        for memory in session.exec(select(MemoryRow).order_by(col(MemoryRow.created_at), col(MemoryRow.id))):
            record = {"type": "memory", **{name: getattr(memory, name) for name in MEMORY_FIELDS}}
            record["tools_used"] = record["tools_used"] or []  # NULL in rows older than migration 0003
            record["mentions"] = sorted(mentions.get(memory.seq or 0, []))
            yield record
        # An edge's pair is written in key order, not seq order: seqs differ between stores, and the
        # export of an imported store must equal the original file.
        edges = sorted([*sorted((key_of[e.a_seq], key_of[e.b_seq])), e.count]
                       for e in session.exec(select(ConceptEdgeRow)))
        for a, b, count in edges:
            yield {"type": "concept_edge", "a": a, "b": b, "count": count}
        for rel in session.exec(select(RelationRow).order_by(col(RelationRow.id))):
            # "type" names the record; the relation's own type travels as "relation_type".
            fields = {name: getattr(rel, name) for name in _RELATION_FIELDS if name != "type"}
            yield {"type": "relation", "relation_type": rel.type, **fields}
        for ses in session.exec(select(SessionRow).order_by(col(SessionRow.id))):
            yield {"type": "session", **{name: getattr(ses, name) for name in _SESSION_FIELDS}}
        for prompt in session.exec(select(PromptRow).order_by(col(PromptRow.created_at), col(PromptRow.id))):
            yield {"type": "prompt", **{name: getattr(prompt, name) for name in _PROMPT_FIELDS}}
        for fact in session.exec(select(FactRow).order_by(col(FactRow.id))):
            yield {"type": "fact", **{name: getattr(fact, name) for name in _FACT_FIELDS}}


@dataclass(slots=True)
class ImportedRows:
    """What an import chunk added: counts by record type, and the ids the projection must follow."""

    added: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("concepts", "memories", "concept_edges", "relations", "sessions", "prompts", "facts"), 0))
    memory_ids: list[str] = field(default_factory=list)
    relation_ids: list[str] = field(default_factory=list)
    fact_ids: list[str] = field(default_factory=list)


def import_records(session: Session, records: Sequence[dict[str, Any]], imported: ImportedRows) -> None:
    """Merge validated records into the store in the caller's transaction (one chunk of an import)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_type.setdefault(record["type"], []).append(record)
    edges = by_type.get("concept_edge", [])
    relations = [{**r, "type": r["relation_type"]} for r in by_type.get("relation", [])]
    added = imported.added
    concept_seq = _merge_concepts(session, by_type.get("concept", []),
                                  [*by_type.get("memory", []), *_edge_mentions(edges)], added)
    touched = _merge_memories(session, by_type.get("memory", []), concept_seq, imported)
    _merge_edges(session, edges, concept_seq, added)
    imported.relation_ids += _insert_missing(session, RelationRow, relations, _RELATION_FIELDS, added, "relations")
    _insert_missing(session, SessionRow, by_type.get("session", []), _SESSION_FIELDS, added, "sessions")
    _insert_missing(session, PromptRow, by_type.get("prompt", []), _PROMPT_FIELDS, added, "prompts")
    imported.fact_ids += _insert_missing(session, FactRow, by_type.get("fact", []), _FACT_FIELDS, added, "facts")
    _recount_df(session, touched)


def missing_memories(session: Session, ids: Collection[str]) -> set[str]:
    """Which of ``ids`` name no memory in the store."""
    wanted = sorted(set(ids))
    found: set[str] = set()
    for start in range(0, len(wanted), 900):
        found.update(session.exec(select(MemoryRow.id).where(col(MemoryRow.id).in_(wanted[start : start + 900]))))
    return set(wanted) - found


def _edge_mentions(edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Edges as pseudo-memories, so a concept only an edge names is created like a mentioned one."""
    return [{"mentions": [[edge["a"], 0.0, 0], [edge["b"], 0.0, 0]]} for edge in edges]


def _merge_concepts(session: Session, concepts: list[dict[str, Any]], memories: list[dict[str, Any]],
                    added: dict[str, int]) -> dict[str, int]:
    wanted = {c["key"]: c for c in concepts}
    for memory in memories:  # a memory may mention a concept the file does not list: create it
        for key, *_ in memory.get("mentions") or []:
            wanted.setdefault(key, {"key": key, "kind": "term", "aliases": []})
    seq_of = {row.key: row.seq or 0 for row in session.exec(select(ConceptRow))}
    for key, concept in wanted.items():
        if key not in seq_of:
            row = ConceptRow(key=key, kind=concept["kind"], df=0, aliases=list(concept.get("aliases", [])))
            session.add(row)
            session.flush()
            seq_of[key] = row.seq or 0
            added["concepts"] += 1
    return seq_of


def _merge_memories(session: Session, memories: list[dict[str, Any]], concept_seq: dict[str, int],
                    imported: ImportedRows) -> set[int]:
    """Insert the memories the store lacks; return the concepts their mentions touch."""
    touched: set[int] = set()
    existing_ids = set(session.exec(select(MemoryRow.id)))
    existing_hashes = set(session.exec(select(MemoryRow.project_key, MemoryRow.content_hash)))
    for record in memories:
        project_key = record.get("project") or ""
        if record["id"] in existing_ids or (project_key, record["content_hash"]) in existing_hashes:
            continue
        fields = _with_defaults(record, MEMORY_FIELDS)
        row = MemoryRow(**fields, project_key=project_key, concept_count=len(record.get("mentions") or []))
        session.add(row)
        session.flush()
        for key, weight, count in record.get("mentions") or []:
            session.add(MentionRow(memory_seq=row.seq or 0, concept_seq=concept_seq[key], weight=weight, count=count))
            touched.add(concept_seq[key])
        existing_ids.add(record["id"])
        existing_hashes.add((project_key, record["content_hash"]))
        imported.added["memories"] += 1
        imported.memory_ids.append(record["id"])
    session.flush()
    return touched


def _merge_edges(session: Session, edges: list[dict[str, Any]], concept_seq: dict[str, int],
                 added: dict[str, int]) -> None:
    if not edges:
        return
    rows = [{"a_seq": min(concept_seq[e["a"]], concept_seq[e["b"]]),
             "b_seq": max(concept_seq[e["a"]], concept_seq[e["b"]]), "count": e["count"]} for e in edges]
    # imported here: every process imports this module, and PostgreSQL's dialect costs a SQLite store 20-45 ms
    from sqlalchemy.dialects import postgresql, sqlite

    dialect_insert = sqlite.insert if session.get_bind().dialect.name == "sqlite" else postgresql.insert
    statement = dialect_insert(ConceptEdgeRow)
    greatest = "max" if session.get_bind().dialect.name == "sqlite" else "greatest"
    statement = statement.on_conflict_do_update(
        index_elements=["a_seq", "b_seq"],
        set_={"count": getattr(func, greatest)(ConceptEdgeRow.__table__.c.count, statement.excluded.count)})
    count_edges = select(func.count()).select_from(ConceptEdgeRow)
    before = session.exec(count_edges).one()
    session.execute(statement, rows)
    added["concept_edges"] += session.exec(count_edges).one() - before


def _insert_missing(session: Session, table: Any, records: list[dict[str, Any]], fields: tuple[str, ...],
                    added: dict[str, int], counter: str) -> list[str]:
    if not records:
        return []
    existing = set(session.exec(select(table.id)))
    inserted = []
    for record in records:
        if record["id"] not in existing:
            session.add(table(**_with_defaults(record, fields)))
            existing.add(record["id"])
            inserted.append(record["id"])
    added[counter] += len(inserted)
    session.flush()
    return inserted


def _with_defaults(record: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """The record's fields; an optional field it leaves out (or null) gets the column's default,
    because a JSON column stores None as JSON null, which no NOT NULL constraint catches."""
    values = {name: record.get(name) for name in fields}
    for name, default in _DEFAULTS.items():
        if name in values and values[name] is None:
            values[name] = default()
    return values


def _recount_df(session: Session, concepts: set[int]) -> None:
    ordered = sorted(concepts)
    for start in range(0, len(ordered), 900):
        session.execute(update(ConceptRow.__table__).where(
            ConceptRow.__table__.c.seq.in_(ordered[start : start + 900])).values(df=select(func.count()).select_from(
                MentionRow.__table__).where(MentionRow.__table__.c.concept_seq == ConceptRow.__table__.c.seq)
            .scalar_subquery()))

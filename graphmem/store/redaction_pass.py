"""Rewrite an existing store so no stored text holds a secret today's rules would have redacted.

A store written before a redaction rule existed keeps those secrets verbatim: in the memory row, in
its full-text index, in the concepts made from them, in relations, facts, prompts and skills. This
pass runs ``graphmem.core.redaction.redact`` over every text and JSON column of every table (keys
of JSON objects included), and for a memory whose text changed it also:

- recomputes ``content_hash`` and ``project_key`` from the new values (dedupe keeps working);
- drops its mentions of concepts made from a removed secret (the concept key, casefolded, lies
  inside the casefolded secret), then the concepts no memory mentions any more;
- lets the FTS5 triggers (store/fulltext.py) replace its index row, then merges the segments and
  checkpoints the WAL (store/purge.py), so the old words leave the file too.

The id, sequence, hash and bookkeeping columns are never touched: they hold no user text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import JSON, String, Table, Text, func, select, tuple_, update
from sqlmodel import Session, SQLModel

from graphmem.core.redaction import redact, secret_values
from graphmem.store import purge
from graphmem.store.tables import ConceptRow, MemoryRow, MentionRow

__all__ = ["RedactionPlan", "RowRewrite", "apply_plan", "plan_redaction"]

# Bookkeeping that holds no user text, or is derived from a column this pass rewrites itself.
# A concept is never renamed (two secrets would both become "[redacted:…]", one unique key): one whose
# key or alias holds a secret is dropped with its mentions instead (_secret_concepts).
_SKIPPED_TABLES = frozenset({"store_generation", "change_log", "metric", "graphmem_meta", "concept_edge", "mention",
                             "concept"})
_SKIPPED_COLUMNS = frozenset({"id", "content_hash", "project_key", "status", "kind", "type", "source_id",
                              "target_id", "session_id", "superseded_by", "parent_id", "successor_id", "skill_id"})
_BATCH = 500


@dataclass(frozen=True, slots=True)
class RowRewrite:
    """One row whose text changes: its table, primary key, new column values and what was redacted."""

    table: str
    key: dict[str, Any]
    values: dict[str, Any]
    counts: dict[str, int]
    secrets: tuple[str, ...] = ()  # held in memory only, to find the concepts made from them


@dataclass(slots=True)
class RedactionPlan:
    """Every row the pass would rewrite; ``counts`` by kind, ``columns`` as ``table.column`` → rows."""

    rewrites: list[RowRewrite] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    columns: Counter[str] = field(default_factory=Counter)
    concepts: int = 0  # concepts made from a secret (their key lies inside one)


def _text_columns(table: Table) -> list[str]:
    return [column.name for column in table.columns
            if isinstance(column.type, String | Text | JSON) and not column.primary_key
            and column.name not in _SKIPPED_COLUMNS]


def _redact_json(node: Any, counts: Counter[str], secrets: list[str]) -> Any:
    if isinstance(node, dict):
        return {_redact_str(key, counts, secrets): _redact_json(child, counts, secrets) for key, child in node.items()}
    if isinstance(node, list):
        return [_redact_json(child, counts, secrets) for child in node]
    return _redact_str(node, counts, secrets) if isinstance(node, str) else node


def _redact_str(value: str, counts: Counter[str], secrets: list[str]) -> str:
    redaction = redact(value)
    if redaction.counts:
        counts.update(redaction.counts)
        secrets.extend(secret_values(value))
    return redaction.text


def _rows(session: Session, table: Table) -> Iterator[Any]:
    keys = [column for column in table.primary_key.columns]
    last: tuple[Any, ...] | None = None
    while True:  # keyset pages: a big store is never read into memory at once
        query = select(table).order_by(*keys).limit(_BATCH)
        if last is not None:
            query = query.where(tuple_(*keys) > tuple_(*last))
        page = session.execute(query).mappings().all()
        if not page:
            return
        yield from page
        last = tuple(page[-1][column.name] for column in keys)


def _row_rewrite(table: Table, row: Any, columns: list[str], content_hash: Callable[[str], str]) -> RowRewrite | None:
    counts: Counter[str] = Counter()
    secrets: list[str] = []
    values = {}
    for name in columns:
        old = row[name]
        new = _redact_str(old, counts, secrets) if isinstance(old, str) else _redact_json(old, counts, secrets)
        if new != old:
            values[name] = new
    if not values:
        return None
    if table.name == "memory":
        values.update(_derived_memory_columns(values, content_hash))
    key = {column.name: row[column.name] for column in table.primary_key.columns}
    return RowRewrite(table.name, key, values, dict(counts), tuple(dict.fromkeys(secrets)))


def _derived_memory_columns(values: dict[str, Any], content_hash: Callable[[str], str]) -> dict[str, Any]:
    derived: dict[str, Any] = {}
    if "content" in values:
        derived["content_hash"] = content_hash(values["content"])
    if "project" in values:
        derived["project_key"] = values["project"] or ""
    return derived


def plan_redaction(session: Session, content_hash: Callable[[str], str]) -> RedactionPlan:
    """What ``apply_plan`` would rewrite; reads only. ``content_hash`` is the dedupe hash the writes use."""
    plan = RedactionPlan()
    for table in SQLModel.metadata.sorted_tables:
        columns = _text_columns(table)
        if table.name in _SKIPPED_TABLES or not columns:
            continue
        for row in _rows(session, table):
            rewrite = _row_rewrite(table, row, columns, content_hash)
            if rewrite is not None:
                plan.rewrites.append(rewrite)
                plan.counts.update(rewrite.counts)
                plan.columns.update(f"{table.name}.{name}" for name in rewrite.values)
    _keep_hashes_unique(session, plan, content_hash)
    plan.concepts = len({concept for _, concept in _secret_mentions(session, plan)})
    return plan


def _keep_hashes_unique(session: Session, plan: RedactionPlan, content_hash: Callable[[str], str]) -> None:
    """Two memories that differed only by a secret become the same text: the second gets a hash salted
    with its id, so the (project, hash) constraint holds and new stores still dedupe to the first."""
    taken: set[tuple[str, str]] = set()
    for rewrite in plan.rewrites:
        if rewrite.table != "memory" or "content_hash" not in rewrite.values:
            continue
        memory = MemoryRow.__table__.c
        row = session.execute(select(memory.id, memory.project_key, memory.content).where(
            memory.seq == rewrite.key["seq"])).one()
        project_key = rewrite.values.get("project_key", row.project_key)
        wanted = (project_key, rewrite.values["content_hash"])
        other = session.execute(select(memory.seq).where(
            memory.project_key == wanted[0], memory.content_hash == wanted[1],
            memory.seq != rewrite.key["seq"])).first()
        if other is not None or wanted in taken:
            rewrite.values["content_hash"] = content_hash(rewrite.values.get("content", row.content) + "\x00" + row.id)
        taken.add((project_key, rewrite.values["content_hash"]))


def _secret_mentions(session: Session, plan: RedactionPlan) -> set[tuple[int, int]]:
    """(memory seq, concept seq) of every mention whose concept was made from a removed secret."""
    found: set[tuple[int, int]] = set()
    for rewrite in plan.rewrites:
        if rewrite.table != "memory" or not rewrite.secrets:
            continue
        folded = [secret.casefold() for secret in rewrite.secrets]
        concept, mention = ConceptRow.__table__.c, MentionRow.__table__.c
        mentioned = session.execute(select(concept.seq, concept.key).join_from(
            ConceptRow.__table__, MentionRow.__table__, mention.concept_seq == concept.seq).where(
            mention.memory_seq == rewrite.key["seq"])).all()
        found.update((rewrite.key["seq"], seq) for seq, key in mentioned
                     if any(_made_from(key.casefold(), secret) for secret in folded))
    return found | _secret_concepts(session)


def _secret_concepts(session: Session) -> set[tuple[int, int]]:
    """Every mention of a concept whose own key or alias is a secret shape (``ghp_…`` survives casefolding)."""
    concept, mention = ConceptRow.__table__, MentionRow.__table__
    secret = [row.seq for row in _rows(session, concept)
              if redact(row.key).counts or any(redact(alias).counts for alias in row.aliases or ())]
    found: set[tuple[int, int]] = set()
    for start in range(0, len(secret), _BATCH):
        chunk = secret[start: start + _BATCH]
        found.update((int(memory_seq), int(concept_seq)) for memory_seq, concept_seq in session.execute(
            select(mention.c.memory_seq, mention.c.concept_seq).where(mention.c.concept_seq.in_(chunk))))
        found.update((-1, seq) for seq in chunk)  # a concept no memory mentions goes too
    return found


def _made_from(key: str, secret: str) -> bool:
    # A concept cut from a secret is a good part of it, or holds it whole (`mysql -pS3cret` gives the
    # identifier "ps3cret"); a word the secret happens to contain ("test" in "sk_test_…") is an ordinary
    # concept that other text names too.
    return (key in secret and len(key) >= max(6, len(secret) // 3)) or (len(secret) >= 6 and secret in key)


def apply_plan(session: Session, plan: RedactionPlan) -> None:
    """Rewrite the planned rows, drop the secret concepts, and purge the old text from the index."""
    mentions = _secret_mentions(session, plan)
    tables = SQLModel.metadata.tables
    for rewrite in plan.rewrites:
        table = tables[rewrite.table]
        condition = [table.c[name] == value for name, value in rewrite.key.items()]
        session.execute(update(table).where(*condition).values(**rewrite.values))
    mention = MentionRow.__table__
    for memory_seq, concept_seq in mentions:
        if memory_seq >= 0:
            session.execute(mention.delete().where(mention.c.memory_seq == memory_seq,
                                                   mention.c.concept_seq == concept_seq))
    concepts = {concept_seq for _, concept_seq in mentions}
    _recount_df(session, concepts)
    purge.drop_unused_concepts(session, concepts)
    purge.optimize_fulltext(session)


def _recount_df(session: Session, concepts: set[int]) -> None:
    concept, mention = ConceptRow.__table__, MentionRow.__table__
    live = select(func.count()).select_from(mention).where(mention.c.concept_seq == concept.c.seq).scalar_subquery()
    if concepts:
        session.execute(update(concept).where(concept.c.seq.in_(sorted(concepts))).values(df=live))

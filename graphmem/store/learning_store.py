"""Reads and writes of the learning features: the memory × concept matrix, skills, brief counters.

The matrix comes from the graph projection (the mention edges recall already holds), not from the
mention table, so clustering 100k memories costs no table scan and sees exactly what recall sees.
Skill and brief functions work over the caller's session, like every store module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sqlalchemy import func, inspect, text
from sqlmodel import Session, col, select

from graphmem.core.values import Relation
from graphmem.store.convert import relation_from_row
from graphmem.store.projection import CONCEPT, MEMORY, GraphProjection, VisibilityFilter
from graphmem.store.tables import BriefStateRow, MemoryRow, RelationRow, SkillRow, SkillVersionRow

__all__ = [
    "ConceptMatrix",
    "SkillRecord",
    "SkillVersionRecord",
    "add_skill_version",
    "brief_state",
    "concept_matrix",
    "consolidation_relations",
    "count_since",
    "get_skill",
    "insert_skill",
    "latest_seq",
    "list_skills",
    "neighbourhood_matrix",
    "rows_matrix",
    "save_brief_state",
    "skill_by_name",
    "skill_history",
    "skill_record",
    "skill_record_by_name",
    "skill_records",
    "skill_versions",
    "update_skill",
    "upgrade_learning",
]


@dataclass(frozen=True, slots=True)
class ConceptMatrix:
    """Visible memories (rows) × concepts (columns) with mention salience, plus per-row codes."""

    memory_ids: tuple[str, ...]
    matrix: sp.csr_array
    df: np.ndarray  # document frequency per column
    concept_keys: tuple[str, ...]
    projects: np.ndarray  # project code per row
    kinds: np.ndarray  # kind code per row
    n_docs: int


def concept_matrix(projection: GraphProjection, view: VisibilityFilter, now_ms: int) -> ConceptMatrix:
    """The mention matrix of the memories ``view`` admits, over every concept."""
    with projection.lock:
        rows = np.flatnonzero(projection.visible(view, now_ms))
        concepts = np.flatnonzero(projection.col("node_type") == CONCEPT)
        adjacency = projection.graph.adjacency()
        block = sp.csr_array(adjacency[rows][:, concepts])
        names = projection.names  # packed: take() decodes many at once
        return ConceptMatrix(
            memory_ids=tuple(names.take(rows.tolist())), matrix=block,
            df=projection.col("df")[concepts].copy(), concept_keys=tuple(names.take(concepts.tolist())),
            projects=projection.col("project")[rows].copy(), kinds=projection.col("kind")[rows].copy(),
            n_docs=projection.memory_count)


def neighbourhood_matrix(projection: GraphProjection, memory_id: str, view: VisibilityFilter, now_ms: int,
                         max_df: int) -> ConceptMatrix | None:
    """The mention matrix of ``memory_id`` (row 0) and the visible memories of its project that share one
    of its specific concepts (document frequency in [2, ``max_df``]), or None when it is not visible.

    Only those rows are read, through the graph's CSR rows: the cost is the memory's concepts times
    their document frequency (at most ``max_df`` each), not the project's size.
    """
    with projection.lock:
        node = projection.memory_nodes.get(memory_id)
        if node is None:
            return None
        visible = projection.visible(view, now_ms)
        if not visible[node]:
            return None
        types, df, projects = projection.col("node_type"), projection.col("df"), projection.col("project")
        concepts, _ = projection.graph.neighbors(node)
        concepts = concepts[types[concepts] == CONCEPT]
        specific = concepts[(df[concepts] >= 2) & (df[concepts] <= max_df)]
        found: set[int] = set()
        for concept in specific.tolist():
            targets, _ = projection.graph.neighbors(concept)
            found.update(targets[types[targets] == MEMORY].tolist())
        found.discard(node)
        others = np.array(sorted(found), dtype=np.int64)
        if others.size:
            others = others[visible[others] & (projects[others] == projects[node])]
        return rows_matrix(projection, [node, *others.tolist()])


def rows_matrix(projection: GraphProjection, nodes: Sequence[int]) -> ConceptMatrix:
    """The mention matrix of the memory ``nodes`` (in that order) over the concepts they mention; call with
    ``projection.lock`` held. Same weights and document frequencies as :func:`concept_matrix`."""
    types = projection.col("node_type")
    rows, columns, weights = [], [], []
    for row, node in enumerate(nodes):
        targets, values = projection.graph.neighbors(node)
        keep = types[targets] == CONCEPT
        rows.append(np.full(int(keep.sum()), row, dtype=np.int64))
        columns.append(targets[keep])
        weights.append(values[keep])
    concept_nodes, inverse = np.unique(np.concatenate(columns) if columns else np.zeros(0, np.int64),
                                       return_inverse=True)
    data = np.concatenate(weights) if weights else np.zeros(0)
    row_index = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    matrix = sp.csr_array((data, (row_index, inverse.ravel())), shape=(len(nodes), concept_nodes.size))
    ordered = np.asarray(nodes, dtype=np.int64)
    names = projection.names
    return ConceptMatrix(
        memory_ids=tuple(names.take(ordered.tolist())), matrix=matrix,
        df=projection.col("df")[concept_nodes].copy(), concept_keys=tuple(names.take(concept_nodes.tolist())),
        projects=projection.col("project")[ordered].copy(), kinds=projection.col("kind")[ordered].copy(),
        n_docs=projection.memory_count)


def consolidation_relations(session: Session, merged_id: str) -> list[Relation]:
    """The judged ``consolidated_from`` relations from ``merged_id`` to its originals."""
    query = select(RelationRow).where(RelationRow.source_id == merged_id, RelationRow.type == "consolidated_from",
                                      RelationRow.status == "judged").order_by(col(RelationRow.id))
    return [relation_from_row(row) for row in session.exec(query)]


# -- skills ------------------------------------------------------------------------------------
def get_skill(session: Session, skill_id: str) -> SkillRow | None:
    return session.get(SkillRow, skill_id)


def skill_by_name(session: Session, project_key: str, name: str) -> SkillRow | None:
    query = select(SkillRow).where(SkillRow.project_key == project_key, SkillRow.name == name)
    return session.exec(query).first()


def list_skills(session: Session, *, project: str | None, statuses: Sequence[str], limit: int = 100) -> list[SkillRow]:
    query = select(SkillRow).order_by(col(SkillRow.updated_at).desc(), col(SkillRow.id)).limit(limit)
    if project is not None:
        query = query.where(SkillRow.project_key == project)
    if statuses:
        query = query.where(col(SkillRow.status).in_(list(statuses)))
    return list(session.exec(query))


@dataclass(frozen=True, slots=True)
class SkillRecord:
    """A skill's current version as readers see it: a value, so it outlives the session that read it."""

    id: str
    name: str
    project: str | None
    trigger: str
    steps: tuple[str, ...]
    source_ids: tuple[str, ...]
    status: str
    version: int
    successes: int
    failures: int
    successor_id: str | None = None


@dataclass(frozen=True, slots=True)
class SkillVersionRecord:
    """One version of a skill: its audit entry and the snapshot of its fields."""

    version: int
    action: str
    actor: str
    at: int
    reason: str | None
    snapshot: dict[str, Any]


def _record(row: SkillRow) -> SkillRecord:
    return SkillRecord(id=row.id, name=row.name, project=row.project, trigger=row.trigger, steps=tuple(row.steps),
                       source_ids=tuple(row.source_ids), status=row.status, version=row.version,
                       successes=row.successes, failures=row.failures, successor_id=row.successor_id)


def skill_record(session: Session, skill_id: str) -> SkillRecord | None:
    row = get_skill(session, skill_id)
    return None if row is None else _record(row)


def skill_record_by_name(session: Session, project_key: str, name: str) -> SkillRecord | None:
    row = skill_by_name(session, project_key, name)
    return None if row is None else _record(row)


def insert_skill(session: Session, skill: SkillRecord, now: int, audit: dict[str, Any]) -> SkillRecord:
    """Write a new skill (version 1) and its first version entry."""
    row = SkillRow(id=skill.id, name=skill.name, project=skill.project, project_key=skill.project or "",
                   trigger=skill.trigger, steps=list(skill.steps), source_ids=list(skill.source_ids),
                   status=skill.status, created_at=now, updated_at=now)
    add_skill_version(session, row, audit)
    return _record(row)


def update_skill(session: Session, skill_id: str, fields: dict[str, Any], now: int,
                 audit: dict[str, Any]) -> SkillRecord:
    """Set ``fields`` of a skill as a new version (version + 1, with ``audit``); the skill must exist."""
    row = get_skill(session, skill_id)
    if row is None:
        raise KeyError(skill_id)
    for name, value in fields.items():
        setattr(row, name, value)
    row.version += 1
    row.updated_at = now
    add_skill_version(session, row, audit)
    return _record(row)


def skill_history(session: Session, skill_id: str) -> list[SkillVersionRecord]:
    return [SkillVersionRecord(v.version, v.action, v.actor, v.at, v.reason, dict(v.snapshot))
            for v in skill_versions(session, skill_id)]


def skill_records(session: Session, *, project: str | None, statuses: Sequence[str],
                  limit: int = 100) -> list[SkillRecord]:
    """:func:`list_skills` as values (recall scores them after its session has closed)."""
    return [_record(row) for row in list_skills(session, project=project, statuses=statuses, limit=limit)]


def add_skill_version(session: Session, skill: SkillRow, audit: dict[str, Any]) -> SkillVersionRow:
    """Write ``skill`` (its fields as they now are) and snapshot them as a new version with its audit."""
    session.add(skill)
    version = SkillVersionRow(skill_id=skill.id, version=skill.version, snapshot=skill_snapshot(skill), **audit)
    session.add(version)
    session.flush()
    return version


def skill_snapshot(skill: SkillRow) -> dict[str, Any]:
    names = ("name", "trigger", "steps", "source_ids", "status", "successor_id", "project")
    return {name: getattr(skill, name) for name in names}


def skill_versions(session: Session, skill_id: str) -> list[SkillVersionRow]:
    query = select(SkillVersionRow).where(SkillVersionRow.skill_id == skill_id).order_by(
        col(SkillVersionRow.version))
    return list(session.exec(query))


# -- briefs ------------------------------------------------------------------------------------
def brief_state(session: Session, project_key: str) -> BriefStateRow | None:
    return session.get(BriefStateRow, project_key)


def save_brief_state(session: Session, state: BriefStateRow) -> BriefStateRow:
    session.add(state)
    session.flush()
    return state


def latest_seq(session: Session, project_key: str) -> int:
    query = select(func.max(MemoryRow.seq)).where(MemoryRow.project_key == project_key)
    return int(session.exec(query).one() or 0)


def count_since(session: Session, project_key: str, after_seq: int) -> int:
    """Observations of the project stored after ``after_seq`` (summaries are not observations)."""
    query = select(func.count()).select_from(MemoryRow).where(
        MemoryRow.project_key == project_key, col(MemoryRow.seq) > after_seq, MemoryRow.kind != "summary")
    return int(session.exec(query).one())


# -- schema ------------------------------------------------------------------------------------
_MEMORY_COLUMNS = {"outcome": "VARCHAR", "task_type": "VARCHAR", "tools_used": "JSON"}


def upgrade_learning(connection: Any) -> list[str]:
    """Add the learning schema to an existing store, idempotently (SQLite and PostgreSQL).

    Creates the ``skill``, ``skill_version`` and ``brief_state`` tables if missing and adds the
    ``memory.outcome``, ``memory.task_type`` and ``memory.tools_used`` columns if missing; returns
    what it changed. Migration 0003 calls it.
    """
    changed: list[str] = []
    inspector = inspect(connection)
    for table in (SkillRow.__table__, SkillVersionRow.__table__, BriefStateRow.__table__):
        if not inspector.has_table(table.name):
            table.create(connection)
            changed.append(f"create table {table.name}")
    present = {column["name"] for column in inspector.get_columns("memory")}
    for name, sql_type in _MEMORY_COLUMNS.items():
        if name not in present:
            default = " DEFAULT '[]'" if name == "tools_used" else ""
            connection.execute(text(f"ALTER TABLE memory ADD COLUMN {name} {sql_type}{default}"))
            changed.append(f"add column memory.{name}")
    return changed

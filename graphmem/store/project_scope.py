"""A projection of some projects only: the loader a per-project projection pool is built on (docs/scaling.md).

:func:`load_projects` fills an empty :class:`GraphProjection` with the rows of the named projects, read as
:meth:`GraphProjection.load` reads the whole store (one snapshot, the same columns, the same build), each
table narrowed by ``memory.project_key`` (indexed): the projects' memories, their mentions, the concepts
those mention, co-occurrence edges between those concepts, relations with both ends inside the scope, and
the facts between its concepts. A concept keeps its store-wide document frequency (IDF and the hub cap
weigh it as in the whole store), and its mentions in other projects count in its out-strength (activation
leaving it splits as in the whole store). It reads what the projects hold, plus one (concept, weight) pair
per mention of their concepts elsewhere.

Nothing in the default server uses it yet: a server still projects the whole store. What a pool on top of
it must add (load on a project's first query, follow the change log for its projects only, evict the least
recently used under a memory budget, guest nodes for the far ends of cross-project relations, and a stored
per-concept out-strength so that the last read above costs what the projects hold) is in docs/scaling.md,
with the figures this loader measured (``scripts/bench_projects.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.engine import Engine

from graphmem.core.spreading_graph import WEIGHT
from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.projection import GraphProjection, SeqIndex

__all__ = ["load_projects"]

_IN_SCOPE = "SELECT seq FROM memory WHERE project_key IN :projects"
_CONCEPTS_IN_SCOPE = f"SELECT DISTINCT concept_seq FROM mention WHERE memory_seq IN ({_IN_SCOPE})"


def load_projects(projection: GraphProjection, engine: Engine, projects: Collection[str], *,
                  exact: bool = False) -> int:
    """Build ``projection`` (empty) from the rows of ``projects`` (project names; ``""`` is the memories with no
    project) and return the store generation the rows are at.

    A concept's mentions in other projects count in its out-strength: ``exact`` reads their weights (all the
    store's mentions of the scope's concepts: most of the store, for the common ones); by default each counts
    the mean weight of the concept's mentions inside the scope, and their number is the concept's store-wide
    document frequency less its mentions inside, so nothing outside the scope is read.
    """
    scope = {"projects": sorted(set(projects))}

    def query(sql: str) -> TextClause:
        return text(sql).bindparams(bindparam("projects", expanding=True))

    with snapshot(engine) as conn:
        generation = current_generation(conn)
        concepts = conn.execute(query(f"SELECT seq, key, kind, df FROM concept WHERE seq IN ({_CONCEPTS_IN_SCOPE}) "
                                      "ORDER BY seq"), scope).all()
        memories = conn.execute(query(
            "SELECT seq, id, project, kind, status, created_at, valid_from, valid_to, tags, concept_count, "
            "strength, use_count, last_used_at, outcome, task_type, tools_used FROM memory "
            "WHERE project_key IN :projects ORDER BY seq"), scope).all()
        # Plain tuples first: numpy probes a SQLAlchemy Row as a mapping, key by key (see GraphProjection.load).
        mentions = np.array([tuple(row) for row in conn.execute(query(
            f"SELECT memory_seq, concept_seq, weight FROM mention WHERE memory_seq IN ({_IN_SCOPE})"), scope)],
            dtype=np.float64).reshape(-1, 3)
        edges = (conn.execute(query(f"SELECT a_seq, b_seq, count FROM concept_edge WHERE a_seq IN "
                                    f"({_CONCEPTS_IN_SCOPE}) AND b_seq IN ({_CONCEPTS_IN_SCOPE})"), scope).all()
                 if projection.settings.cooccurrence else [])
        ids = "SELECT id FROM memory WHERE project_key IN :projects"
        relations = conn.execute(query(
            f"SELECT id, source_id, target_id, type, confidence, status FROM relation "
            f"WHERE source_id IN ({ids}) AND target_id IN ({ids})"), scope).all()
        keys = f"SELECT key FROM concept WHERE seq IN ({_CONCEPTS_IN_SCOPE})"
        facts = conn.execute(query(f"SELECT subject, object, confidence FROM fact "
                                   f"WHERE subject IN ({keys}) AND object IN ({keys})"), scope).all()
        contents = (conn.execute(query("SELECT content FROM memory WHERE project_key IN :projects ORDER BY seq"),
                                 scope).scalars().all() if projection.semantic.enabled else [])
        outside = (np.array([tuple(row) for row in conn.execute(query(
            f"SELECT concept_seq, weight FROM mention WHERE concept_seq IN ({_CONCEPTS_IN_SCOPE}) "
            f"AND memory_seq NOT IN ({_IN_SCOPE})"), scope)], dtype=np.float64).reshape(-1, 2) if exact else None)
    projection.build(concepts, memories, mentions, edges, relations, facts, contents)
    if concepts:
        _count_outside_mentions(projection, concepts, mentions, outside)
    return generation


def _count_outside_mentions(projection: GraphProjection, concepts: Sequence[Sequence[Any]], mentions: np.ndarray,
                            outside: np.ndarray | None) -> None:
    """Add each scope concept's mentions in other projects to its out-strength and out-degree (see
    :func:`load_projects`): activation leaving a concept splits over all its memories in the whole store."""
    exponent = projection.settings.topic_exponent
    with projection.lock:
        nodes = np.array([projection.concept_nodes[key] for _, key, _, _ in concepts], dtype=np.int64)
        index = SeqIndex()  # concept seq → position in ``concepts``
        index.assign(np.array([seq for seq, _, _, _ in concepts], dtype=np.int64), np.arange(len(concepts)))
        if outside is not None:
            at = index.lookup(outside[:, 0].astype(np.int64))
            strength: np.ndarray = np.bincount(at, weights=_stored(outside[:, 1]) ** exponent, minlength=len(concepts))
            degree: np.ndarray = np.bincount(at, minlength=len(concepts)).astype(np.float64)
        else:
            at = index.lookup(mentions[:, 1].astype(np.int64))
            inside = np.bincount(at, minlength=len(concepts)).astype(np.float64)
            inside_strength = np.bincount(at, weights=_stored(mentions[:, 2]) ** exponent, minlength=len(concepts))
            df = np.array([df for _, _, _, df in concepts], dtype=np.float64)
            degree = np.maximum(df - inside, 0.0)
            strength = degree * inside_strength / np.maximum(inside, 1.0)
        projection.graph.add_outside_edges(nodes, strength, degree)


def _stored(weights: np.ndarray) -> np.ndarray:
    return weights.astype(WEIGHT).astype(np.float64)  # as the graph stores an edge weight

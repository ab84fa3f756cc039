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

from collections.abc import Collection

import numpy as np
from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.engine import Engine

from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.projection import GraphProjection

__all__ = ["load_projects"]

_IN_SCOPE = "SELECT seq FROM memory WHERE project_key IN :projects"
_CONCEPTS_IN_SCOPE = f"SELECT DISTINCT concept_seq FROM mention WHERE memory_seq IN ({_IN_SCOPE})"


def load_projects(projection: GraphProjection, engine: Engine, projects: Collection[str]) -> int:
    """Build ``projection`` (empty) from the rows of ``projects`` (project names; ``""`` is the memories with no
    project) and return the store generation the rows are at."""
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
        # The scope's concepts' mentions in the other projects: activation leaving a concept splits over all
        # its memories in the whole store (measured: without them 0.69 of the whole store's top 10, with 0.99).
        outside = np.array([tuple(row) for row in conn.execute(query(
            f"SELECT concept_seq, weight FROM mention WHERE concept_seq IN ({_CONCEPTS_IN_SCOPE}) "
            f"AND memory_seq NOT IN ({_IN_SCOPE})"), scope)], dtype=np.float64).reshape(-1, 2)
    projection.build(concepts, memories, mentions, edges, relations, facts, contents)
    if len(outside):
        with projection.lock:
            nodes = np.array([projection.concept_nodes[key] for _, key, _, _ in concepts], dtype=np.int64)
            by_seq = dict(zip((int(seq) for seq, _, _, _ in concepts), nodes.tolist(), strict=True))
            sources = np.array([by_seq[int(seq)] for seq in outside[:, 0]], dtype=np.int64)
            projection.graph.add_outside_edges(sources, np.power(outside[:, 1], projection.settings.topic_exponent))
    return generation

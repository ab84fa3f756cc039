"""A projection of some projects only: the loader a per-project projection pool is built on (docs/scaling.md).

:func:`load_projects` fills an empty :class:`GraphProjection` with the rows of the named projects, read as
:meth:`GraphProjection.load` reads the whole store (one snapshot, the same columns, the same build), each
table narrowed by ``memory.project_key`` (indexed): the projects' memories, their mentions, the concepts
those mention (with their store-wide document frequency, so IDF and the hub cap weigh a concept as in the
whole store), co-occurrence edges between those concepts, relations with both ends inside the scope, and
the facts between its concepts. It costs what the projects hold, whatever the rest of the store holds.

Nothing in the default server uses it yet: a server still projects the whole store. What a pool on top of
it must add (load on a project's first query, follow the change log for its projects only, evict the least
recently used under a memory budget, guest nodes for the far ends of cross-project relations) is in
docs/scaling.md, with the figures this loader measured (``scripts/bench_projects.py``).
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
        mentions = np.array(conn.execute(query(
            f"SELECT memory_seq, concept_seq, weight FROM mention WHERE memory_seq IN ({_IN_SCOPE})"), scope).all(),
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
    projection.build(concepts, memories, mentions, edges, relations, facts, contents)
    return generation

"""A projection of some projects only: the loader a per-project projection pool is built on (docs/scaling.md).

:func:`load_projects` fills an empty :class:`GraphProjection` with the rows of the named projects, read as
:meth:`GraphProjection.load` reads the whole store (one snapshot, the same columns, the same build), each
table narrowed by ``memory.project_key`` (indexed): the projects' memories, their mentions, the concepts
those mention, co-occurrence edges between those concepts, relations with both ends inside the scope, and
the facts between its concepts. A concept keeps its store-wide document frequency (IDF and the hub cap
weigh it as in the whole store), and its mentions in other projects count in its out-strength (activation
leaving it splits as in the whole store). It reads what the projects hold, plus one (concept, weight) pair
per mention of their concepts elsewhere.

The projection also carries the store's memory count (``outside_memories``: recall tells a filter that
admits every memory it holds from no filter by the store-wide count) and the hidden flags that judged
relations from other projects set on its memories. A relation with an end in a project it does not hold adds
no edge to it: activation does not cross into a project the projection does not hold.

:class:`ProjectScope` is how such a projection follows the change log (:func:`graphmem.store.follow.follow`):
its projects' memories and facts apply; another project's new memory raises the document frequency and the
outside out-strength of the held concepts it mentions (exactly: its mention weights are read), and the
store-wide count. The per-project pool of a partitioned server (:mod:`graphmem.store.projection_pool`) is
built on both; what is left is in docs/scaling.md, with the figures this loader measured
(``scripts/bench_projects.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.engine import Connection, Engine

from graphmem.core.relations import hidden_ends
from graphmem.core.spreading_graph import WEIGHT
from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.follow import apply_memory_rows, concept_records, follow, mentions_of, select_in
from graphmem.store.projection import CONCEPT, MEMORY, GraphProjection, RelationEdge, SeqIndex
from graphmem.store.repository import StoredBatch
from graphmem.store.tables import ConceptRow, FactRow, MemoryRow, MentionRow

__all__ = ["ProjectScope", "StoreTotals", "guest_room", "load_projects"]

_IN_SCOPE = "SELECT seq FROM memory WHERE project_key IN :projects"
_GUEST_SLACK = 64  # nodes of room a projection keeps for later guests when a query's guests grow it
_CONCEPTS_IN_SCOPE = f"SELECT DISTINCT concept_seq FROM mention WHERE memory_seq IN ({_IN_SCOPE})"


def guest_room(nodes: int) -> int:
    """The room for guests (:meth:`ProjectScope.admit`) a projection of ``nodes`` nodes keeps: a few nodes, not a
    quarter more (the queries add few: 3 to 8 in each project of the 1M-memory bench over its 23 queries)."""
    return max(_GUEST_SLACK, nodes // 256)


def _room_left(projection: GraphProjection) -> int:
    """The nodes the projection's columns and graph can take before they grow."""
    capacity = min(len(projection.columns.arrays["node_type"]), len(projection.graph._out_strength))
    return capacity - projection.graph.n_nodes


def load_projects(projection: GraphProjection, engine: Engine, projects: Collection[str], *,
                  exact: bool = False) -> int:
    """Build ``projection`` (empty) from the rows of ``projects`` (project keys: the project's name, ``""``
    for the memories with no project) and return the store generation the rows are at.

    A concept's mentions in other projects count in its out-strength: ``exact`` reads their weights (all the
    store's mentions of the scope's concepts: most of the store, for the common ones); by default each counts
    the mean weight of the concept's mentions inside the scope, and their number is the concept's store-wide
    document frequency less its mentions inside, so nothing outside the scope is read.
    """
    return ProjectScope(projects, exact=exact).load(projection, engine)


class ProjectScope:
    """The projects a partial projection holds: how it loads, follows the change log and rebuilds
    (a :class:`graphmem.store.follow.FollowScope`)."""

    def __init__(self, projects: Collection[str], *, exact: bool = False, exact_below: int = 0,
                 totals: StoreTotals | None = None) -> None:
        """``exact``: read the outside mentions (see :func:`load_projects`); also whenever the store holds
        fewer than ``exact_below`` memories, where reading them all costs less than a large project's load.
        ``totals``: the store's counts as the other scopes of a pool last read them."""
        self.projects = frozenset(projects)
        self.exact = exact
        self.exact_below = exact_below
        self.totals = totals or StoreTotals()
        self.max_seq = 0  # the newest memory seq counted, held or not: a higher one in the log is new
        self._fresh_concepts: set[str] = set()  # concepts new in this follow (their facts are applied)
        self._rebuilt = False

    def load(self, projection: GraphProjection, engine: Engine) -> int:
        """Build the empty ``projection`` from the rows (see :func:`load_projects`)."""
        scope = {"projects": sorted(self.projects)}

        def query(sql: str) -> TextClause:
            return text(sql).bindparams(bindparam("projects", expanding=True))

        with snapshot(engine) as conn:
            generation = current_generation(conn)
            stored, self.max_seq = self.totals.read(conn, generation)
            exact = self.exact = self.exact or stored < self.exact_below
            concepts = conn.execute(query(f"SELECT seq, key, kind, df FROM concept WHERE seq IN "
                                          f"({_CONCEPTS_IN_SCOPE}) ORDER BY seq"), scope).all()
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
            # A judged relation from another project still hides the memory it replaces here.
            crossing = conn.execute(query(
                f"SELECT id, source_id, target_id, type, confidence, status FROM relation WHERE status = 'judged' "
                f"AND (source_id IN ({ids})) <> (target_id IN ({ids}))"), scope).all()
            keys = f"SELECT key FROM concept WHERE seq IN ({_CONCEPTS_IN_SCOPE})"
            facts = conn.execute(query(f"SELECT subject, object, confidence FROM fact "
                                       f"WHERE subject IN ({keys}) AND object IN ({keys})"), scope).all()
            contents = conn.execute(query("SELECT content FROM memory WHERE project_key IN :projects ORDER BY seq"),
                                    scope).scalars().all()
            outside = (np.array([tuple(row) for row in conn.execute(query(
                f"SELECT concept_seq, weight FROM mention WHERE concept_seq IN ({_CONCEPTS_IN_SCOPE}) "
                f"AND memory_seq NOT IN ({_IN_SCOPE})"), scope)], dtype=np.float64).reshape(-1, 2)
                if exact else None)
        projection.build(concepts, memories, mentions, edges, relations, facts, contents)
        if concepts:
            _count_outside_mentions(projection, concepts, mentions, outside)
        for relation in crossing:
            for memory_id in hidden_ends(RelationEdge(*relation)):
                projection.set_hidden(memory_id, True)
        projection.outside_memories = stored - len(memories)
        return generation

    def resume(self, projection: GraphProjection, engine: Engine, generation: int) -> int:
        """Bring ``projection``, loaded from its snapshot at ``generation``, up to the store's current one."""
        with snapshot(engine) as conn:
            current = current_generation(conn)
            stored, self.max_seq = self.totals.read(conn, current)
        self.exact = self.exact or stored < self.exact_below
        self._rebuilt = False
        reached = follow(projection, engine, generation, upto=current, scope=self)
        if not self._rebuilt:  # a rebuild counted at its own generation
            projection.outside_memories = stored - projection.memory_count
        return reached

    def reload(self, projection: GraphProjection, engine: Engine) -> int:
        """Rebuild in place from the projects' rows (the log asked for it); readers wait."""
        with projection.lock:
            projection._reset()
            self._rebuilt = True
            return self.load(projection, engine)

    def admit(self, projection: GraphProjection, engine: Engine, names: Collection[str]) -> None:
        """Add the store's concepts among ``names`` that the projection lacks, as guests: a node with its
        store-wide df and its mentions (all elsewhere) in its out-strength, no edges. A query's words then match
        the concepts they match in the whole store (a phrase only another project mentions is a seed that
        reaches nothing here, not its words' fallback)."""
        missing = sorted(set(names) - projection.concept_nodes.keys())
        if not missing:
            return
        with snapshot(engine) as connection:
            records = concept_records(connection, ConceptRow.__table__.c.key, missing)
            if not records:
                return
            mention = MentionRow.__table__
            outside = np.array([(int(c), float(w)) for c, w in select_in(
                connection, (mention.c.concept_seq, mention.c.weight), mention.c.concept_seq,
                sorted(rec.seq for rec in records.values()))], dtype=np.float64).reshape(-1, 2)
        with projection.lock:
            missing = sorted(set(records) - projection.concept_nodes.keys())  # a follow may have added some
            if not missing:
                return
            guests = {key: records[key] for key in missing}
            # Room for these and a few more, not for a quarter of the projection more: the queries add few guests
            # (3 to 8 in each project of the 1M-memory bench over its 23 queries), and the first one grew every
            # per-node array of a 52k-node project by 13k unused slots.
            # A project loaded from its snapshot already has that room (the pool's load made it).
            if len(guests) > _room_left(projection):
                projection._reserve(len(guests) + guest_room(projection.graph.n_nodes), 0)
            projection.apply_batch(StoredBatch(concepts=guests))
            concepts = [(rec.seq, rec.key, rec.kind, rec.df) for rec in guests.values()]
            seqs = np.array([seq for seq, *_ in concepts], dtype=np.float64)
            _count_outside_mentions(projection, concepts, np.zeros((0, 3)), outside[np.isin(outside[:, 0], seqs)])

    def follow_memories(self, projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
        """Apply the changed memories of the held projects; another project's new ones count in the figures
        of the held concepts they mention."""
        self._fresh_concepts = set()
        held: list[Any] = []
        elsewhere: list[Any] = []
        for row in select_in(connection, (MemoryRow.__table__,), MemoryRow.__table__.c.id, ids):
            inside = row.id in projection.memory_nodes or row.project_key in self.projects
            (held if inside else elsewhere).append(row)
        nodes_before = projection.graph.n_nodes
        moved_in = sum(row.id not in projection.memory_nodes and row.seq <= self.max_seq for row in held)
        apply_memory_rows(projection, connection, held)
        projection.outside_memories -= moved_in  # an older memory whose project became a held one
        self._count_new_concepts(projection, connection, nodes_before)
        new_elsewhere = [row for row in elsewhere if row.seq > self.max_seq]
        if new_elsewhere:
            self._count_elsewhere(projection, connection, [int(row.seq) for row in new_elsewhere])
        self.max_seq = max([self.max_seq, *(int(row.seq) for row in held), *(int(row.seq) for row in elsewhere)])

    def follow_facts(self, projection: GraphProjection, connection: Connection, ids: Collection[str]) -> None:
        """Apply the changed facts between concepts the projection holds."""
        fact = FactRow.__table__
        for subject, obj, confidence in select_in(connection, (fact.c.subject, fact.c.object, fact.c.confidence),
                                                  fact.c.id, ids):
            if subject in self._fresh_concepts or obj in self._fresh_concepts:
                continue  # applied with the concept (every fact of it)
            if subject in projection.concept_nodes and obj in projection.concept_nodes:
                projection.apply_fact(subject, obj, confidence)

    def _count_new_concepts(self, projection: GraphProjection, connection: Connection, nodes_before: int) -> None:
        """Concepts the held memories just brought in: their mentions elsewhere (as :meth:`load` counts them),
        their facts with held concepts."""
        names, node_type = projection.names, projection.col("node_type")
        added = range(nodes_before, projection.graph.n_nodes)
        fresh = sorted(names[node] for node in added if node_type[node] == CONCEPT)
        self._fresh_concepts = set(fresh)
        if not fresh:
            return
        records = concept_records(connection, ConceptRow.__table__.c.key, fresh)
        concepts = [(rec.seq, rec.key, rec.kind, rec.df) for rec in records.values()]
        wanted = {rec.seq for rec in records.values()}
        # A concept new here has no mention inside but the new memories' (the log's order: memories first).
        new_memories = [int(projection.col("seq")[node]) for node in added if node_type[node] == MEMORY]
        inside = np.array([row for row in mentions_of(connection, new_memories) if row[1] in wanted],
                          dtype=np.float64).reshape(-1, 3)
        outside = None
        if self.exact:
            mention = MentionRow.__table__
            held = set(new_memories)
            outside = np.array([(int(c), float(w)) for m, c, w in select_in(
                connection, (mention.c.memory_seq, mention.c.concept_seq, mention.c.weight), mention.c.concept_seq,
                sorted(wanted)) if int(m) not in held and int(m) not in projection.memory_by_seq],
                dtype=np.float64).reshape(-1, 2)
        _count_outside_mentions(projection, concepts, inside, outside)
        fact = FactRow.__table__
        columns = (fact.c.id, fact.c.subject, fact.c.object, fact.c.confidence)
        facts = {row[0]: row for column in (fact.c.subject, fact.c.object)
                 for row in select_in(connection, columns, column, fresh)}
        for _, subject, obj, confidence in sorted(facts.values()):
            if subject in projection.concept_nodes and obj in projection.concept_nodes:
                projection.apply_fact(subject, obj, confidence)

    def _count_elsewhere(self, projection: GraphProjection, connection: Connection, seqs: list[int]) -> None:
        """Other projects' new memories: the held concepts they mention gain their df and out-strength."""
        mentions = mentions_of(connection, seqs)
        records = concept_records(connection, ConceptRow.__table__.c.seq, sorted({c for _, c, _ in mentions}))
        held = {rec.seq: rec for rec in records.values() if rec.key in projection.concept_nodes}
        projection.outside_memories += len(seqs)
        if not held:
            return
        exponent = projection.settings.topic_exponent
        touched = [(projection.concept_nodes[held[c].key], w) for _, c, w in mentions if c in held]
        nodes = np.array([node for node, _ in touched], dtype=np.int64)
        weights = _stored(np.array([w for _, w in touched], dtype=np.float64)) ** exponent
        with projection.lock:
            projection.graph.add_outside_edges(nodes, weights, np.ones(len(nodes)))
        projection.apply_batch(StoredBatch(concepts={rec.key: rec for rec in held.values()}))  # their new df


class StoreTotals:
    """The store's memory count and newest memory seq at one generation, read once for the scopes that share it.

    Every write bumps the store generation, so the counts at a generation never change. ``count(*)`` over the memory
    table is a full scan: 102 of the 224 ms of a cold 9,078-memory project's first query from its snapshot in the
    1M-memory store (docs/benchmarks.md); a pool's scopes loaded at the same generation read it once.
    """

    def __init__(self) -> None:
        self._at: tuple[int, int, int] | None = None  # (generation, count, newest seq)
        self._lock = threading.Lock()

    def read(self, conn: Connection, generation: int) -> tuple[int, int]:
        """The count and newest seq at ``generation``, which ``conn``'s snapshot shows."""
        with self._lock:
            if self._at is not None and self._at[0] == generation:
                return self._at[1], self._at[2]
        count, top = conn.execute(text("SELECT count(*), coalesce(max(seq), 0) FROM memory")).one()
        with self._lock:
            self._at = (generation, int(count), int(top))
        return int(count), int(top)


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

"""The graph projection: rows → a SpreadingGraph (CSR) plus per-node columns for filtering.

The database is the truth; this is a view of it. It is built once when the service opens and then
follows every write through :meth:`apply_batch`, :meth:`apply_relation` and :meth:`refresh_memory`,
so recall never reloads an edge table. Nodes are concepts and memories in one index space; a node
keeps its index for the life of the projection (new nodes are appended).

Per-node facts live in numpy columns, not Python objects (:mod:`graphmem.store.node_columns`: a few for
every node, the memory fields once per memory): a concept's kind is a code column (``concept_kind`` reads it
as a mapping) and the seq → node index is an int32 array (``memory_by_seq``). Names and the name → node maps
are packed arrays as the snapshot saved them plus a list and a dict of those added since
(:mod:`graphmem.store.packed_names`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Engine

from graphmem.core.capacity import grown
from graphmem.core.facts import FACT_SPREAD
from graphmem.core.relations import RELATION_TYPES
from graphmem.core.spreading_graph import WEIGHT, FloatArray, IntArray, SpreadingGraph
from graphmem.core.values import STATUSES, Memory, Relation
from graphmem.settings import ActivationSettings, SemanticSettings
from graphmem.store.changes import current_generation
from graphmem.store.collector import collector_paused
from graphmem.store.convert import to_ms
from graphmem.store.engine import snapshot
from graphmem.store.keyword_index import KeywordIndex
from graphmem.store.node_columns import NodeColumns
from graphmem.store.packed_names import PackedIndex, PackedStrings
from graphmem.store.repository import StoredBatch
from graphmem.store.semantic_index import Embedder, SemanticIndex
from graphmem.store.visibility import MEMORY, VisibilityFilter, evaluate_visibility
from graphmem.store.word_table import WordTable
from nlp.normalize import fold_accents

if TYPE_CHECKING:  # imported where a graph is built: networkx is 11 MiB of every server's fixed cost
    import networkx as nx

__all__ = ["CONCEPT", "MEMORY", "GraphProjection", "RelationEdge", "VisibilityFilter"]

CONCEPT = 0  # node_type of a concept node; MEMORY (1) comes from visibility
_NEVER = np.iinfo(np.int64).max
_VISIBLE_CACHE_SIZE = 32


class _Visible:
    """One filter's mask over nodes, read-only, and its memory nodes (computed on first use)."""

    __slots__ = ("_nodes", "mask")

    def __init__(self, mask: np.ndarray) -> None:
        mask.flags.writeable = False  # shared by every caller of visible_mask: nobody may change it
        self.mask = mask
        self._nodes: np.ndarray | None = None

    def nodes(self) -> np.ndarray:
        if self._nodes is None:
            nodes = np.flatnonzero(self.mask)
            nodes.flags.writeable = False
            self._nodes = nodes
        return self._nodes


class ConceptKinds(Mapping[int, str]):
    """concept node → kind, read from the projection's ``concept_kind`` code column (no object per node)."""

    def __init__(self, projection: GraphProjection) -> None:
        self._projection = projection

    def _codes(self) -> np.ndarray:
        return self._projection.columns.node("concept_kind", self._projection.graph.n_nodes)

    def __getitem__(self, node: int) -> str:
        codes = self._codes()
        if not 0 <= node < codes.size or codes[node] < 0:
            raise KeyError(node)
        return self._projection.kind_names()[int(codes[node])]

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self._codes() >= 0).tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(self._codes() >= 0))

    def counts(self) -> dict[str, int]:
        """How many concepts have each kind (one bincount, for statistics)."""
        codes = self._codes()
        tally = np.bincount(codes[codes >= 0], minlength=len(self._projection.kind_names()))
        return {name: int(n) for name, n in zip(self._projection.kind_names(), tally.tolist(), strict=True) if n}


class SeqIndex(Mapping[int, int]):
    """memory seq → node: a dense int32 array by seq while that is the smaller form, as in a projection of the
    whole store (seqs are the store's autoincrement ids), else the held seqs sorted with their nodes, as in a
    projection of one project of a larger store (its seqs spread over the store's: a dense array of a
    9,091-memory project in a 1M-memory store held 3.8 MiB, the pairs 0.1; issue 26).

    >>> index = SeqIndex(); index.assign(np.array([3, 7]), np.array([10, 11]))
    >>> index[7], 3 in index, 4 in index, len(index), index.lookup(np.array([3, 4, 99])).tolist()
    (11, True, False, 2, [10, -1, -1])
    >>> index.assign(np.array([1_000_000]), np.array([12]))  # sparse now: pairs, not a million slots
    >>> index.nbytes < 100, index[1_000_000], list(index), index.lookup(np.array([7, 8, 10**7])).tolist()
    (True, 12, [3, 7, 1000000], [11, -1, -1])
    """

    _DENSE_MIN = 1024  # slots a dense array may always have
    _PAIR_BYTES = 12  # a seq (int64) and its node (int32), against a dense slot's 4

    def __init__(self) -> None:
        self._node = np.full(0, -1, dtype=np.int32)  # dense: node by seq (-1: none)
        self._seqs: np.ndarray | None = None  # sparse: the held seqs ascending (None: dense)
        self._nodes = np.zeros(0, dtype=np.int32)  # sparse: their nodes
        self._count = 0

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays."""
        return int(self._node.nbytes + self._nodes.nbytes + (0 if self._seqs is None else self._seqs.nbytes))

    def assign(self, seqs: IntArray, nodes: IntArray) -> None:
        """Record that each of ``seqs`` (non-negative) is held by the matching node."""
        seqs = np.asarray(seqs, dtype=np.int64)
        if seqs.size == 0:
            return
        top = int(seqs.max()) + 1
        if self._seqs is None and (top <= self._node.size or self._dense_fits(top, self._count + seqs.size)):
            if top > self._node.size:
                resized = np.full(grown(top, self._node.size, self._DENSE_MIN), -1, dtype=np.int32)
                resized[: self._node.size] = self._node
                self._node = resized
            fresh = np.zeros(top, dtype=bool)  # distinct new seqs (np.unique sorted 1M of them: 0.7 s of an open)
            fresh[seqs[self._node[seqs] < 0]] = True
            self._count += int(np.count_nonzero(fresh))
            self._node[seqs] = nodes
            return
        held_seqs, held_nodes = self._held()
        # Sorted runs: the stable sort merges them in linear time (a write's new seqs are above the held ones).
        self._rebuild(np.concatenate([held_seqs, seqs]),
                      np.concatenate([held_nodes, np.asarray(nodes, dtype=np.int64)]))

    def _dense_fits(self, top: int, count: int) -> bool:
        return top <= max(self._DENSE_MIN, count * self._PAIR_BYTES // 4)

    def _held(self) -> tuple[IntArray, IntArray]:
        """The held seqs ascending, and their nodes."""
        if self._seqs is not None:
            return self._seqs, self._nodes.astype(np.int64)
        seqs = np.flatnonzero(self._node >= 0)
        return seqs, self._node[seqs].astype(np.int64)

    def _node_of(self, seq: object) -> int:
        """The node of one seq, -1 where none."""
        if not isinstance(seq, (int, np.integer)) or seq < 0:
            return -1
        if self._seqs is None:
            return int(self._node[seq]) if seq < self._node.size else -1
        at = int(np.searchsorted(self._seqs, seq))
        return int(self._nodes[at]) if at < self._seqs.size and self._seqs[at] == seq else -1

    def _rebuild(self, seqs: IntArray, nodes: IntArray) -> None:
        """Hold exactly these pairs (a later pair of one seq wins), in the smaller form."""
        order = np.argsort(seqs, kind="stable")
        seqs, nodes = seqs[order], nodes[order]
        last = np.append(seqs[1:] != seqs[:-1], True)
        seqs, nodes = seqs[last], nodes[last]
        self._count = int(seqs.size)
        top = int(seqs[-1]) + 1 if seqs.size else 0
        if self._dense_fits(top, self._count):
            self._seqs, self._nodes = None, np.zeros(0, dtype=np.int32)
            self._node = np.full(max(top, self._DENSE_MIN), -1, dtype=np.int32)
            self._node[seqs] = nodes
        else:
            self._node = np.full(0, -1, dtype=np.int32)
            self._seqs, self._nodes = seqs, nodes.astype(np.int32)

    def lookup(self, seqs: IntArray) -> IntArray:
        """The node of each seq, -1 where none (vectorized ``get``)."""
        seqs = np.asarray(seqs, dtype=np.int64)
        nodes = np.full(seqs.size, -1, dtype=np.int64)
        if self._seqs is None:
            inside = (seqs >= 0) & (seqs < self._node.size)
            nodes[inside] = self._node[seqs[inside]]
        elif self._seqs.size:
            at = np.minimum(np.searchsorted(self._seqs, seqs), self._seqs.size - 1)
            hit = self._seqs[at] == seqs
            nodes[hit] = self._nodes[at[hit]]
        return nodes

    def __getitem__(self, seq: int) -> int:
        if (node := self._node_of(seq)) >= 0:
            return node
        raise KeyError(seq)

    def __contains__(self, seq: object) -> bool:
        return self._node_of(seq) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._held()[0].tolist())

    def __len__(self) -> int:
        return self._count


class RelationEdge(NamedTuple):
    """A relation as the projection applied it (a :class:`Relation` has the same fields)."""

    id: str
    source_id: str
    target_id: str
    type: str
    confidence: float
    status: str


class GraphProjection:
    """Concept–memory graph with typed relation edges, kept in sync with the rows."""

    def __init__(self, settings: ActivationSettings, semantic: SemanticSettings | None = None,
                 embedder: Embedder | None = None, words: WordTable | None = None) -> None:
        """``words``: the word-vector table shared with the other projections of a pool (store/word_table.py)."""
        self.settings = settings
        self.semantic_settings = semantic or SemanticSettings(enabled=False)
        self.embedder = embedder
        self.word_table = words
        self.lock = threading.RLock()
        self._reset()

    def _reset(self) -> None:
        self.graph = SpreadingGraph()
        self.semantic = SemanticIndex(self.embedder, self.semantic_settings, self.word_table)
        self.keywords = KeywordIndex()  # the keyword leg's BM25 postings (store/keyword_index.py)
        self.columns = NodeColumns()
        self.names = PackedStrings()  # memory id or concept key, by node (store/packed_names.py)
        self.concept_nodes = PackedIndex()  # concept key → node
        self.folded_keys: dict[str, str] = {}  # accent-folded key → key, only where they differ
        self.concept_kind = ConceptKinds(self)  # a view of the concept_kind column
        self.memory_nodes = PackedIndex()  # memory id → node
        self.memory_by_seq = SeqIndex()
        self.tags: dict[int, frozenset[str]] = {}
        self.tools: dict[int, frozenset[str]] = {}  # tools_used, by memory node
        self.relations: dict[str, RelationEdge] = {}  # the relation edges as applied, to retract exactly
        self._codes: dict[str, dict[str, int]] = {"project": {}, "kind": {}, "outcome": {}, "task_type": {},
                                                  "concept_kind": {}}
        self.memory_count = 0
        self.outside_memories = 0  # the store's memories in projects a partial projection does not hold
        self.retired = False  # a pool let go of it: caches drop what they keep of it (service/recall/engine.py)
        self._generation = 0  # bumped by every write to a column the visibility filter reads
        self._visible_cache: dict[tuple[VisibilityFilter, int, int], _Visible] = {}

    @property
    def store_memory_count(self) -> int:
        """Memories in the whole store: the projection's own, plus, in a projection of some projects only
        (:mod:`graphmem.store.project_scope`), those of the other projects."""
        return self.memory_count + self.outside_memories

    # -- columns --------------------------------------------------------------------------------
    @property
    def _cols(self) -> dict[str, np.ndarray]:
        """Every column's array by name, at its capacity (memory columns by memory row)."""
        return self.columns.arrays

    def col(self, name: str) -> Any:
        """The column ``name`` by node: an array, or for a memory field a :class:`~graphmem.store.node_columns.
        MemoryColumn` that indexes like one (``col("status")[nodes]``; a concept node reads the field's fill)."""
        return self.columns.get(name, self.graph.n_nodes)

    def _add_nodes(self, count: int, names: Iterable[str], node_type: int) -> range:
        nodes = self.graph.add_nodes(count)
        self._generation += 1
        self.columns.add(nodes, node_type)
        self.names.extend(names)
        return nodes

    def _reserve(self, count: int, memories: int) -> None:
        """Make room for exactly ``count`` more nodes, ``memories`` of them memories, in the columns and the graph
        (a load knows its size)."""
        self.columns.reserve(self.graph.n_nodes + count, self.columns.rows + memories)
        self.graph.reserve(count)

    def kind_names(self) -> list[str]:
        """Concept kinds by their code in the ``concept_kind`` column."""
        return list(self._codes["concept_kind"])  # codes are assigned in insertion order

    def code(self, column: str, value: str | None) -> int:
        """Integer code of a project, kind, outcome or task type (-1 for None), assigned on first sight."""
        if value is None:
            return -1
        return self._codes[column].setdefault(value, len(self._codes[column]))

    # -- loading --------------------------------------------------------------------------------
    def load(self, engine: Engine) -> int:
        """Build the whole projection from the rows, all read in one snapshot, and return the store
        generation the rows are at (so the change log can be followed from there)."""
        with snapshot(engine) as conn:
            store_generation = current_generation(conn)
            concepts = conn.execute(text("SELECT seq, key, kind, df FROM concept ORDER BY seq")).all()
            memories = conn.execute(text(
                "SELECT seq, id, project, kind, status, created_at, valid_from, valid_to, tags, concept_count, "
                "strength, use_count, last_used_at, outcome, task_type, tools_used FROM memory ORDER BY seq")).all()
            # Plain DB-API tuples: numpy over SQLAlchemy Row objects probed each row as a mapping and
            # took 56 s for 2M mentions at 100k memories; over tuples it takes about one.
            dbapi_connection = conn.connection.dbapi_connection
            assert dbapi_connection is not None  # a checked-out connection holds its DB-API connection
            cursor = dbapi_connection.cursor()
            cursor.execute("SELECT memory_seq, concept_seq, weight FROM mention")
            mentions = np.array(cursor.fetchall(), dtype=np.float64).reshape(-1, 3)
            cursor.close()
            edges = conn.execute(text("SELECT a_seq, b_seq, count FROM concept_edge")).all()
            relations = conn.execute(text(
                "SELECT id, source_id, target_id, type, confidence, status FROM relation")).all()
            facts = conn.execute(text("SELECT subject, object, confidence FROM fact")).all()
            contents = conn.execute(text("SELECT content FROM memory ORDER BY seq")).scalars().all()
        with collector_paused():
            self.build(concepts, memories, mentions, edges, relations, facts, contents)
        return store_generation

    def build(self, concepts: Sequence[Sequence[Any]], memories: Sequence[Sequence[Any]], mentions: np.ndarray,
              edges: Sequence[Sequence[Any]], relations: Sequence[Sequence[Any]], facts: Sequence[Sequence[Any]],
              contents: Sequence[str]) -> None:
        """Add rows read as :meth:`load` reads them (by it, or scoped to some projects by
        :mod:`graphmem.store.project_scope`) to an empty projection."""
        with self.lock:
            self._reserve(len(concepts) + len(memories), len(memories))
            self._load_concepts(concepts)
            self._load_memories(memories)
            keys = [c[1] for c in concepts]
            # The int objects concept_nodes holds, so the semantic index's compact-form map shares them
            # (a fresh int per concept was 1.2 MiB of a 9,091-memory project's 43k concepts).
            self._add_semantic([self.concept_nodes[key] for key in keys], keys, [c[2] for c in concepts])
            memory_nodes = list(range(len(concepts), len(concepts) + len(memories)))
            self.semantic.add_memories(memory_nodes, contents)
            self.keywords.add(memory_nodes, contents, load=True)
            self.keywords.merge()
            concept_by_seq = {int(seq): self.concept_nodes[key] for seq, key, _, _ in concepts}
            if len(mentions):
                concept_lookup = SeqIndex()
                concept_lookup.assign(np.fromiter(concept_by_seq.keys(), dtype=np.int64, count=len(concept_by_seq)),
                                      np.fromiter(concept_by_seq.values(), dtype=np.int64, count=len(concept_by_seq)))
                m_nodes = self.memory_by_seq.lookup(mentions[:, 0].astype(np.int64))
                c_nodes = concept_lookup.lookup(mentions[:, 1].astype(np.int64))
                self._add_mention_edges(m_nodes, c_nodes, mentions[:, 2])
            self._add_cooccurrence([(concept_by_seq[a], concept_by_seq[b], 0, n) for a, b, n in edges])
            for relation in relations:
                self._add_relation_edge(RelationEdge(*relation))
            for subject, obj, confidence in facts:
                self._add_fact_edge(subject, obj, confidence)
            self.graph.compact()

    def pack_names(self) -> None:
        """Hold the names, the name → node maps, the compact forms and the keyword vocabulary packed, as a
        snapshot's load holds them (store/packed_names.py), instead of a Python string, dict entry and int per
        name: a 9,091-memory project loaded from its rows held 8 MiB of them (docs/benchmarks.md, "The pool at
        1M, again"). Lookups find the same nodes. A part holding a string that cannot be packed (a NUL in it)
        stays as it is (each step changes nothing when it refuses). For a projection no reader in another thread
        holds yet (the pool's, right after its load)."""
        steps = (self.names.pack, lambda: self.concept_nodes.pack(self.names),
                 lambda: self.memory_nodes.pack(self.names), self.semantic.compact.pack,
                 lambda: self.keywords.vocabulary.pack(dense=True))
        with self.lock:
            for step in steps:
                with contextlib.suppress(ValueError):
                    step()

    def reload(self, engine: Engine) -> int:
        """Rebuild in place from the rows (after a bulk rewrite such as a hard delete); readers wait."""
        with self.lock:
            self._reset()
            return self.load(engine)

    def _load_concepts(self, concepts: Sequence[Sequence[Any]]) -> None:
        nodes = self._add_nodes(len(concepts), (key for _, key, _, _ in concepts), CONCEPT)
        for node, (seq, key, kind, _df) in zip(nodes, concepts, strict=True):
            self._add_concept_name(key, node, kind)
            self._cols["seq"][node] = seq
        self._set_df(np.array(list(nodes), dtype=np.int64), np.array([c[3] for c in concepts], dtype=np.int64))

    def _add_concept_name(self, key: str, node: int, kind: str) -> None:
        self.concept_nodes[key] = node
        self._cols["concept_kind"][node] = self.code("concept_kind", kind)
        folded = fold_accents(key)
        if folded != key:
            self.folded_keys.setdefault(folded, key)

    def _load_memories(self, memories: Sequence[Sequence[Any]]) -> None:
        import json

        nodes = self._add_nodes(len(memories), (m[1] for m in memories), MEMORY)
        for node, (seq, mid, project, kind, status, created, vfrom, vto, tags, _length, strength,
                   use_count, last_used, outcome, task_type, tools) in zip(nodes, memories, strict=True):
            self.memory_nodes[mid] = node
            # length starts at 0: _add_mention_edges counts one per mention, exactly as apply_batch
            # does, so a reloaded projection scores like the incrementally maintained one.
            self._set_memory_columns(node, seq, project, kind, status, created, vfrom, vto, 0.0, strength,
                                     use_count, last_used, outcome, task_type)
            parsed = json.loads(tags) if isinstance(tags, str) else tags
            if parsed:
                self.tags[node] = frozenset(parsed)
            used = json.loads(tools) if isinstance(tools, str) else tools
            if used:
                self.tools[node] = frozenset(used)
        self.memory_by_seq.assign(np.array([m[0] for m in memories], dtype=np.int64), np.array(nodes, dtype=np.int64))
        self.memory_count += len(memories)

    def _set_memory_columns(self, node: int, seq: int, project: str | None, kind: str, status: str,
                            created: int, vfrom: int, vto: int | None, length: float, strength: float,
                            use_count: int = 0, last_used: int = 0, outcome: str | None = None,
                            task_type: str | None = None) -> None:
        self._generation += 1
        c = self._cols
        c["seq"][node] = seq
        row = int(c["memory_row"][node])
        c["project"][row] = self.code("project", project)
        c["kind"][row] = self.code("kind", kind)
        c["status"][row] = STATUSES.index(status)
        c["created"][row], c["valid_from"][row] = created, vfrom
        c["valid_to"][row] = _NEVER if vto is None else vto
        c["length"][row], c["strength"][row] = length, strength
        c["use_count"][row], c["last_used"][row] = use_count, last_used
        c["outcome"][row] = self.code("outcome", outcome)
        c["task_type"][row] = self.code("task_type", task_type)

    # -- following writes -----------------------------------------------------------------------
    def apply_batch(self, batch: StoredBatch) -> None:
        """Add the memories, concepts, mentions and co-occurrences one insert created."""
        self.apply_batches([batch])

    def apply_batches(self, batches: Sequence[StoredBatch]) -> None:
        """:meth:`apply_batch` for each insert, in order, with the same nodes, edges and vectors; their memories'
        texts are embedded and indexed for keywords in one pass (15-20 % of the follow per insert, at 600 memories,
        docs/benchmarks.md). Every graph change stays per insert: a new word's related words are those it had when
        its own insert was applied."""
        with self.lock:
            nodes: list[int] = []
            texts: list[str] = []
            for batch in batches:
                nodes.extend(self._apply_graph(batch))
                texts.extend(memory.content for _, memory in batch.memories)
            self.semantic.add_memories(nodes, texts)
            self.keywords.add(nodes, texts)

    def _apply_graph(self, batch: StoredBatch) -> range:
        """One insert's nodes, columns and edges (its memories' vectors and keywords aside); its memory nodes."""
        new = [rec for rec in batch.concepts.values() if rec.key not in self.concept_nodes]
        nodes = self._add_nodes(len(new), (rec.key for rec in new), CONCEPT)
        for node, rec in zip(nodes, new, strict=True):
            self._add_concept_name(rec.key, node, rec.kind)
            self._cols["seq"][node] = rec.seq
        self._add_semantic(list(nodes), [rec.key for rec in new], [rec.kind for rec in new])
        touched = [self.concept_nodes[rec.key] for rec in batch.concepts.values()]
        self._set_df(np.array(touched, dtype=np.int64),
                     np.array([rec.df for rec in batch.concepts.values()], dtype=np.int64))
        m_nodes = self._add_nodes(len(batch.memories), (m.id for _, m in batch.memories), MEMORY)
        for node, (seq, memory) in zip(m_nodes, batch.memories, strict=True):
            self.memory_nodes[memory.id] = node
            self._write_memory(node, seq, memory)
        self.memory_by_seq.assign(np.array([seq for seq, _ in batch.memories], dtype=np.int64),
                                  np.array(m_nodes, dtype=np.int64))
        self.memory_count += len(batch.memories)
        concept_by_seq = {rec.seq: self.concept_nodes[rec.key] for rec in batch.concepts.values()}
        if batch.mentions:
            mention = np.array(batch.mentions, dtype=np.float64)
            self._add_mention_edges(
                self.memory_by_seq.lookup(mention[:, 0].astype(np.int64)),
                np.array([concept_by_seq[int(s)] for s in mention[:, 1]], dtype=np.int64), mention[:, 2])
        self._add_cooccurrence([(concept_by_seq[a], concept_by_seq[b], n0, n1)
                                for a, b, n0, n1 in batch.edge_counts])
        return m_nodes

    def refresh_memory(self, memory: Memory) -> None:
        """Follow a change of a memory's lifecycle fields (status, validity, strength)."""
        with self.lock:
            node = self.memory_nodes[memory.id]
            self._write_memory(node, int(self._cols["seq"][node]), memory)

    def refresh_memories(self, memories: Iterable[Memory]) -> None:
        """:meth:`refresh_memory` for each memory the projection holds (others are skipped)."""
        with self.lock:
            for memory in memories:
                if memory.id in self.memory_nodes:
                    self.refresh_memory(memory)

    def apply_relation(self, relation: Relation | RelationEdge) -> None:
        """Follow a new or re-judged relation."""
        with self.lock:
            self._add_relation_edge(RelationEdge(relation.id, relation.source_id, relation.target_id,
                                                 relation.type, relation.confidence, relation.status))

    def apply_relations(self, relations: Iterable[Relation | RelationEdge]) -> None:
        """:meth:`apply_relation` for each relation."""
        for relation in relations:
            self.apply_relation(relation)

    def retract_relation(self, relation: Relation | RelationEdge) -> None:
        """Take back the edge :meth:`apply_relation` added for ``relation`` as it was (before a revision,
        an ignore or a delete). Hidden flags are not touched: the caller resets them with
        :meth:`set_hidden`, because another judged relation may still hide the same memory."""
        semantics = RELATION_TYPES.get(relation.type)
        with self.lock:
            self.relations.pop(relation.id, None)
            source = self.memory_nodes.get(relation.source_id)
            target = self.memory_nodes.get(relation.target_id)
            if semantics is None or source is None or target is None or relation.status == "ignored":
                return
            weight = self.settings.relation_weight * semantics.spread * relation.confidence
            if weight > 0:
                self.graph.remove_edges([source, target], [target, source], [weight, weight])

    def apply_fact(self, subject: str, obj: str, confidence: float) -> None:
        """Follow a new temporal fact: its subject and object concepts get an edge both ways (closed
        facts keep theirs: the association outlives the fact, ``as_of`` on facts tells the times)."""
        with self.lock:
            self._add_fact_edge(subject, obj, confidence)

    def _add_fact_edge(self, subject: str, obj: str, confidence: float) -> None:
        a, b = self.concept_nodes.get(subject), self.concept_nodes.get(obj)
        weight = self.settings.relation_weight * FACT_SPREAD * confidence
        if a is not None and b is not None and a != b and weight > 0:
            self.graph.add_edges([a, b], [b, a], [weight, weight])

    def set_hidden(self, memory_id: str, hidden: bool) -> None:
        """Set whether a judged relation hides ``memory_id`` from default recall."""
        with self.lock:
            node = self.memory_nodes.get(memory_id)
            if node is not None:
                self._cols["hidden"][self.columns.rows_of(node)] = hidden
                self._generation += 1

    def _write_memory(self, node: int, seq: int, memory: Memory) -> None:
        self._set_memory_columns(
            node, seq, memory.project, memory.kind, memory.status, to_ms(memory.created_at),
            to_ms(memory.valid_from), None if memory.valid_to is None else to_ms(memory.valid_to),
            float(self._cols["length"][self.columns.rows_of(node)]) or 0.0, memory.strength,
            memory.use_count, to_ms(memory.last_used_at), memory.outcome, memory.task_type)
        if memory.tags:
            self.tags[node] = frozenset(memory.tags)
        if memory.tools_used:
            self.tools[node] = frozenset(memory.tools_used)

    def _set_df(self, nodes: IntArray, df: IntArray) -> None:
        self._cols["df"][nodes] = df
        cap = self.settings.hub_cap
        # Hub cap: a concept in more than `cap` memories passes on only cap/df of its activation,
        # so project-wide words cannot connect everything to everything.
        self.graph.set_spread_scale(nodes, np.minimum(1.0, cap / np.maximum(df, 1)))

    def _add_mention_edges(self, m_nodes: IntArray, c_nodes: IntArray, weights: FloatArray) -> None:
        # Memory → concept carries the salience; concept → memory carries salienceᵉ, so a concept
        # sends more of its activation to memories it is central to (a title, a phrase head).
        routed = np.power(weights, self.settings.topic_exponent)
        self.graph.add_edges(np.concatenate([m_nodes, c_nodes]), np.concatenate([c_nodes, m_nodes]),
                             np.concatenate([weights, routed]))
        np.add.at(self._cols["length"], self.columns.rows_of(m_nodes), 1.0)

    def _add_semantic(self, nodes: list[int], keys: list[str], kinds: list[str]) -> None:
        """Vectors for the new concepts, and their join and relatedness edges (both ways, like co-occurrence)."""
        if not nodes:
            return
        a, b, weights = self.semantic.add_concepts(nodes, keys, kinds)
        if len(a):
            self.graph.add_edges(np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([weights, weights]))

    def _add_cooccurrence(self, updates: list[tuple[int, int, int, int]]) -> None:
        if not updates or not self.settings.cooccurrence:
            return
        k = self.settings.cooccurrence_saturation
        scale = self.settings.cooccurrence_weight
        arr = np.array(updates, dtype=np.float64)
        # w(n) = scale·n/(n+k): bounded by `scale`, monotone in the evidence n. Adding the increment
        # w(after) - w(before) keeps the summed parallel edges equal to w(total count). Both are taken at
        # the graph's float32 precision: the increments then telescope exactly, so an edge followed through
        # many writes holds the same float32 weight as one loaded from its final count.
        def weight(n: FloatArray) -> FloatArray:
            return (scale * n / (n + k)).astype(WEIGHT).astype(np.float64)

        delta = weight(arr[:, 3]) - weight(arr[:, 2])
        a, b = arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64)
        self.graph.add_edges(np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([delta, delta]),
                             increments=True)

    def _add_relation_edge(self, relation: RelationEdge) -> None:
        _, source_id, target_id, rel_type, confidence, status = relation
        semantics = RELATION_TYPES.get(rel_type)
        source, target = self.memory_nodes.get(source_id), self.memory_nodes.get(target_id)
        if semantics is None or source is None or target is None or status == "ignored":
            return
        self.relations[relation.id] = relation
        if status == "judged":
            self._generation += 1
            if semantics.recall == "hide_target":
                self._cols["hidden"][self.columns.rows_of(target)] = True
            elif semantics.recall == "hide_source":
                self._cols["hidden"][self.columns.rows_of(source)] = True
        weight = self.settings.relation_weight * semantics.spread * confidence
        if weight > 0:
            self.graph.add_edges([source, target], [target, source], [weight, weight])

    # -- queries --------------------------------------------------------------------------------
    def visible(self, view: VisibilityFilter, now_ms: int) -> np.ndarray:
        """Boolean mask over nodes: memories the filter admits (concept nodes are False); a copy the caller may
        change (:meth:`visible_mask` is the shared, read-only one)."""
        return self._visible(view, now_ms).mask.copy()

    def visible_mask(self, view: VisibilityFilter, now_ms: int) -> np.ndarray:
        """:meth:`visible` without the copy: the cached mask itself, read-only, the same array for every call
        within one second and write generation. At 1M memories (3.6M nodes) a copy is 3.6 MB and 0.2 ms, and
        one search asked for five."""
        return self._visible(view, now_ms).mask

    def visible_nodes(self, view: VisibilityFilter, now_ms: int) -> np.ndarray:
        """The memory nodes the filter admits, ascending (``np.flatnonzero`` of :meth:`visible_mask`), read-only
        and cached with the mask: at 1M memories the pass over every node is 2.5 ms, which each search paid
        once or twice to learn the filter's size, first and last node."""
        return self._visible(view, now_ms).nodes()

    def _visible(self, view: VisibilityFilter, now_ms: int) -> _Visible:
        """The filter's cached mask (and node list).

        Cached per (filter, second, write generation): one search asks several times, and at 700k nodes
        each evaluation cost ~3 ms. Every write that changes a filtered column bumps the generation. A mask of an
        earlier second or generation is never asked for again: it goes when a newer one comes (they stayed until 32
        had gathered: 14 masks, 48 MiB, in the whole-store server of the 1M-memory bench after its 200 queries).
        """
        key = (view, now_ms // 1000, self._generation)
        cached = self._visible_cache.get(key)
        if cached is None:
            columns = self.columns
            cached = _Visible(evaluate_visibility(view, now_ms, columns.memory, self._codes, self.tags, self.tools,
                                                  nodes=columns.memory("node"), n_nodes=self.graph.n_nodes))
            for stale in [kept for kept in self._visible_cache if kept[1:] != key[1:]]:
                del self._visible_cache[stale]
            if len(self._visible_cache) >= _VISIBLE_CACHE_SIZE:
                self._visible_cache.clear()
            self._visible_cache[key] = cached
        return cached

    def concepts_of(self, memory_node: int) -> list[tuple[int, float]]:
        """Concept neighbours of a memory node with their mention weights."""
        nodes, weights = self.graph.neighbors(memory_node)
        is_concept = self.col("node_type")[nodes] == CONCEPT
        return list(zip(nodes[is_concept].tolist(), weights[is_concept].tolist(), strict=True))

    def neighbourhood(self, start: list[int], depth: int, limit: int) -> nx.Graph[int]:
        """A networkx graph of the nodes within ``depth`` hops of ``start`` (at most ``limit`` nodes)."""
        import networkx as nx  # only here: a process that never asks for a neighbourhood never imports it

        graph: nx.Graph[int] = nx.Graph()
        frontier = list(dict.fromkeys(start))
        seen = set(frontier)
        for node in frontier:
            graph.add_node(node)
        for _ in range(depth):
            nxt: list[int] = []
            for node in frontier:
                targets, weights = self.graph.neighbors(node)
                for target, weight in zip(targets.tolist(), weights.tolist(), strict=True):
                    if target not in seen and len(seen) >= limit:
                        continue
                    graph.add_edge(node, target, weight=weight)
                    if target not in seen:
                        seen.add(target)
                        nxt.append(target)
            frontier = nxt
        return graph

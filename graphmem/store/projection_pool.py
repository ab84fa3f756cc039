"""The projection pool of a partitioned server (``projection.partition = "project"``, docs/scaling.md).

Instead of one projection of the whole store, the server keeps one per project it answers for:

* a project's projection is loaded on the first read that names the project, from the project's own
  snapshot when one belongs to this store (then the change log since), else from the project's rows
  (:class:`graphmem.store.project_scope.ProjectScope`);
* before each read it follows the change log, applying only its project's changes (another project's new
  memory only raises the document frequency and the out-strength of the concepts it mentions);
* the projections are kept least recently used first, and the oldest are dropped while the pool's
  estimated size is over its budget (the one just asked for is always kept, so a project larger than the
  budget still answers). A dropped projection writes its snapshot first when it has moved on since its last
  one, so its next first read is the fast path. The size is :func:`estimated_bytes`: the arrays at their
  capacity and the Python objects a projection holds. After a load or an eviction the C heap's freed pages go
  back to the system (:func:`release_free_heap`): a load from the rows frees more than it keeps.

A read that names no project (and the use cases that read the whole graph: graph, status with its graph
statistics, lint, clusters) uses the whole store's projection, loaded on demand and counted in the same
budget, under the key :data:`WHOLE_STORE`: exact, and as costly as an unpartitioned server while it is held.
``open`` reads concepts from the rows and a plain ``status`` counts what is held, so neither loads it.
"""

from __future__ import annotations

import gc
import hashlib
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.follow import follow
from graphmem.store.project_scope import ProjectScope, StoreTotals, guest_room
from graphmem.store.projection import GraphProjection
from graphmem.store.projection_snapshot import is_current_format, load_snapshot, save_snapshot
from graphmem.store.word_table import WordRows
from nlp.heap import release_free_heap

__all__ = ["WHOLE_STORE", "PoolEntry", "ProjectionPool", "SnapshotWritten", "engine_generation", "estimated_bytes",
           "release_free_heap"]

WHOLE_STORE: None = None  # the pool's key for the whole store's projection
# A read gives the C heap's free pages back at most this often (besides after each load and eviction): the
# queries' scratch left 13 MiB of freed heap resident in a partitioned server after 200 queries over five projects
# (docs/benchmarks.md, "The pool at 1M, again"), and a trim costs a few milliseconds.
_TRIM_EVERY = 1.0  # seconds
_INT = sys.getsizeof(1 << 20)  # an int object above CPython's small-int cache: a node number, a term id


@dataclass(slots=True)
class PoolEntry:
    """One held projection: its scope (None: the whole store), the generation it reflects, its size."""

    projection: GraphProjection
    scope: ProjectScope | None
    generation: int
    nbytes: int
    saved: int  # the generation of its last snapshot (0: none)


@dataclass(frozen=True, slots=True)
class SnapshotWritten:
    """What :meth:`ProjectionPool.write_snapshot` did for one project."""

    project: str | None
    memories: int
    loaded_from: str  # "held" (the pool had it), "snapshot" (its file, then the change log) or "rows"
    load_ms: float
    written: bool  # False: see ``reason``
    save_ms: float
    path: str | None
    file_bytes: int
    reason: str = ""  # why nothing was written


class ProjectionPool:
    """Per-project projections, loaded on first use, followed, evicted least recently used under a budget."""

    def __init__(self, make: Callable[[], GraphProjection], budget_mib: int, *, snapshots: Path | None = None,
                 whole_snapshot: Path | None = None, snapshot_min_memories: int = 1_000,
                 exact_below: int = 0) -> None:
        self._make = make
        self.budget = budget_mib * 1024 * 1024
        self._snapshots = snapshots  # the folder of the per-project snapshot files (None: no snapshots)
        self._whole_snapshot = whole_snapshot
        self._snapshot_min = snapshot_min_memories
        self._exact_below = exact_below  # a store smaller than this: outside mentions read, not estimated
        self._entries: OrderedDict[str | None, PoolEntry] = OrderedDict()
        self._totals = StoreTotals()  # the store's memory count at a generation, read once for every project
        self._lock = threading.RLock()
        self.loads = 0  # projections built so far (first reads and reloads after eviction)
        self._trimmed = time.monotonic()  # the last release_free_heap

    def get(self, project: str | None, engine: Engine, generation: int,
            concepts: Collection[str] = ()) -> GraphProjection:
        """The projection of ``project`` (:data:`WHOLE_STORE`: all of it), reflecting at least ``generation``
        of ``engine`` (a caught-up replica or the primary), holding each of ``concepts`` (a query's) that the
        store holds (:meth:`~graphmem.store.project_scope.ProjectScope.admit`)."""
        with self._lock:
            entry = self._entries.get(project)
            loaded = entry is None
            if entry is None:
                entry = self._load(project, engine)
                self._entries[project] = entry
                self.loads += 1
            elif entry.generation < generation:
                nodes = entry.projection.graph.n_nodes
                entry.generation = follow(entry.projection, engine, entry.generation, scope=entry.scope)
                entry.nbytes = entry.nbytes * entry.projection.graph.n_nodes // max(nodes, 1)
            if entry.scope is not None and concepts:
                entry.scope.admit(entry.projection, engine, concepts)
            self._entries.move_to_end(project)
            evicted = self._evict(engine)
            if evicted:
                # A projection is a reference cycle (its concept-kind view holds it): without a collection its
                # arrays, and the rows it holds in the shared word table, stayed until the collector's next full pass
                # (a full collection took 130 ms with the 1M-memory store's projection held, against a load's seconds).
                gc.collect()
            now = time.monotonic()
            if evicted or loaded or now - self._trimmed >= _TRIM_EVERY:
                release_free_heap()
                self._trimmed = now
            return entry.projection

    def held(self) -> dict[str | None, PoolEntry]:
        """The projections held now, least recently used first."""
        with self._lock:
            return dict(self._entries)

    @property
    def nbytes(self) -> int:
        """The estimated size of every projection held, their shared word table counted once (each entry's
        estimate counts its words' rows as its own: the budget errs towards evicting)."""
        with self._lock:
            held = sum(entry.nbytes - shared_word_bytes(entry.projection) for entry in self._entries.values())
            tables = {id(table): table for entry in self._entries.values()
                      if (table := entry.projection.word_table) is not None}
            return held + sum(table.nbytes for table in tables.values())

    def drop(self) -> None:
        """Forget every projection (the rows changed past the change log: each reloads on its next read)."""
        with self._lock:
            for entry in self._entries.values():
                entry.projection.retired = True
            self._entries.clear()

    def close(self, engine: Engine) -> None:
        """Write the snapshots of the projections that moved on since their last one; drop them all."""
        with self._lock:
            for project, entry in list(self._entries.items()):
                self._save(project, entry, engine)
            self._entries.clear()

    def write_snapshot(self, project: str | None, engine: Engine) -> SnapshotWritten:
        """Bring ``project``'s snapshot file up to date now, so that a server's first read of the project loads
        from it, not from the rows (``graphmem snapshot``; a server writes it only when it drops or closes a
        projection). A project the pool does not hold is loaded for this, and not kept."""
        with self._lock:
            started = time.perf_counter()
            entry = self._entries.get(project)
            held = entry is not None
            if entry is None:
                entry = self._load(project, engine)
            elif entry.generation < engine_generation(engine):
                entry.generation = follow(entry.projection, engine, entry.generation, scope=entry.scope)
            loaded_from = "held" if held else ("snapshot" if entry.saved else "rows")
            load_ms = (time.perf_counter() - started) * 1000
            trained = entry.projection.semantic.train_cells()  # a large project's coarse cells go into its snapshot
            path = self.snapshot_of(project)
            memories = entry.projection.memory_count
            reason = ""
            if path is None:
                reason = "an in-memory store keeps no snapshot"
            elif memories < self._snapshot_min:
                reason = f"fewer than {self._snapshot_min} memories: it loads from its rows as fast"
            elif entry.generation <= entry.saved and path.exists() and is_current_format(path) and not trained:
                reason = "its snapshot is current"
            started = time.perf_counter()
            if not reason:
                entry.saved = min(entry.saved, entry.generation - 1)  # current, but in an older format: again
                self._save(project, entry, engine)
                if entry.saved != entry.generation:
                    reason = f"cannot write {path}"
            save_ms = (time.perf_counter() - started) * 1000
            if not held:
                entry.projection.retired = True
                del entry
                gc.collect()
                release_free_heap()
            written = not reason
            size = path.stat().st_size if path is not None and path.exists() else 0
            return SnapshotWritten(project, memories, loaded_from, load_ms, written,
                                   save_ms if written else 0.0, str(path) if path else None, size, reason)

    def snapshot_of(self, project: str | None) -> Path | None:
        """Where ``project``'s snapshot lives (the whole store's is the unpartitioned server's file)."""
        if project is WHOLE_STORE:
            return self._whole_snapshot
        if self._snapshots is None:
            return None
        return self._snapshots / f"{hashlib.sha256(project.encode()).hexdigest()[:24]}.projection.npz"

    # -- steps ----------------------------------------------------------------------------------
    def _load(self, project: str | None, engine: Engine) -> PoolEntry:
        projection = self._make()
        scope = (None if project is WHOLE_STORE
                 else ProjectScope([project], exact_below=self._exact_below, totals=self._totals))
        path = self.snapshot_of(project)
        saved = None
        if path is not None and path.exists():
            current = engine_generation(engine)
            # A project's first queries add guest concepts: their room is made at the load, so the mapped per-node
            # arrays it replaces are given back with the snapshot's other copied members (2.4 MiB a 9,091-memory
            # project of the 1M-memory bench held twice, mapped and grown, after its first guest).
            saved = load_snapshot(projection, path, engine, current, room=None if scope is None else guest_room)
            if saved is not None and not _holds_only(projection, project):
                projection, saved = self._make(), None  # another file at this path: load from the rows
        if saved is not None:
            generation = (follow(projection, engine, saved) if scope is None
                          else scope.resume(projection, engine, saved))
        else:
            generation = projection.load(engine) if scope is None else scope.load(projection, engine)
            projection.pack_names()  # as a snapshot's load holds them: no Python object per name
        return PoolEntry(projection, scope, generation, estimated_bytes(projection), saved or 0)

    def _evict(self, engine: Engine) -> int:
        """Drop the least recently used projections while over the budget; return how many."""
        total = sum(entry.nbytes for entry in self._entries.values())
        dropped = 0
        while total > self.budget and len(self._entries) > 1:
            project, entry = self._entries.popitem(last=False)
            entry.projection.retired = True
            total -= entry.nbytes
            self._save(project, entry, engine)
            dropped += 1
        return dropped

    def _save(self, project: str | None, entry: PoolEntry, engine: Engine) -> None:
        path = self.snapshot_of(project)
        projection = entry.projection
        if (path is None or entry.generation <= entry.saved or entry.generation == 0
                or projection.memory_count < self._snapshot_min):
            return
        try:
            save_snapshot(projection, path, engine, entry.generation)
        except OSError:
            return  # a read-only directory only costs the next first read a load from the rows
        entry.saved = entry.generation


def engine_generation(engine: Engine) -> int:
    """The store generation ``engine`` shows now."""
    with snapshot(engine) as connection:
        return current_generation(connection)


def estimated_bytes(projection: GraphProjection) -> int:
    """What ``projection`` holds in memory: its arrays at their capacity (the graph with its transpose, the
    columns, the seq index, the vector tables, the keyword postings) and its Python objects as
    :func:`sys.getsizeof` counts them (names, the name → node maps, the compact forms, the keyword vocabulary,
    the tag sets, the relations). A 9,091-memory project of the 1M-memory bench holds about 21 MiB (30 before its
    memory fields were held per memory, not per node); the arrays and 360 bytes a node, as counted before, left out
    about a fifth of it (docs/benchmarks.md)."""
    with projection.lock:
        semantic = projection.semantic
        memories, words = semantic.memories, semantic.words
        vectors = sum(array.nbytes for array in (memories.vectors, memories.scales, memories.nodes, memories.row_of))
        if isinstance(words, WordRows):  # rows in the pool's shared table: counted as if its own (an upper bound)
            vectors += words.nbytes + shared_word_bytes(projection)
        else:
            vectors += sum(array.nbytes for array in (words.vectors, words.nodes, words.row_of))
        arrays = (projection.graph.nbytes + sum(column.nbytes for column in projection._cols.values())
                  + projection.memory_by_seq.nbytes + projection.keywords.nbytes() + vectors)
        return arrays + _object_bytes(projection)


def shared_word_bytes(projection: GraphProjection) -> int:
    """The bytes of the rows ``projection`` holds in a shared word table (0: it has its own)."""
    words = projection.semantic.words
    if not isinstance(words, WordRows):
        return 0
    return int(words.count * words.vectors.shape[1] * words.vectors.itemsize)


def _object_bytes(projection: GraphProjection) -> int:
    names = projection.names
    size = names.nbytes() + projection.concept_nodes.nbytes() + projection.memory_nodes.nbytes()
    compact = projection.semantic.compact  # a form spelled as its concept's key is that key's string
    size += compact.nbytes() + sum(sys.getsizeof(form) for form, node in compact.added.items()
                                   if names[node] is not form)
    # Not iterated: reading every packed term fills the vocabulary's cache of decoded terms (13,700 of them,
    # 1.4 MiB, in each 9,091-memory project of the 1M-memory bench).
    size += projection.keywords.vocabulary.nbytes(strings=True)
    for sets in (projection.tags, projection.tools):
        size += sys.getsizeof(sets) + sum(sys.getsizeof(members) + _INT for members in sets.values())
    size += sys.getsizeof(projection.folded_keys) + sum(map(sys.getsizeof, projection.folded_keys))
    size += sys.getsizeof(projection.relations) + sum(
        sys.getsizeof(edge) + sum(map(sys.getsizeof, edge)) for edge in projection.relations.values())
    return size


def _holds_only(projection: GraphProjection, project: str | None) -> bool:
    """Whether a snapshot loaded for ``project`` holds that project's memories only (its header names no
    scope: the file's path does)."""
    if project is WHOLE_STORE:
        return True
    return set(projection._codes["project"]) <= ({project} if project else set())

"""The unit of work: the one way graphmem writes, and the one place reads get fresh.

Built once at the composition root, it owns the engine, the repository, the graph projection, the
concept extractor, the settings and the write lock. A write is always the same five steps:

1. take the process's write lock;
2. open one transaction and bump the store generation, its first statement (the store-wide writer
   lock: see :mod:`graphmem.store.changes`);
3. the use case writes its rows and says what it changed (:meth:`Write.changed`);
4. the change-log rows are added and everything commits together;
5. the write is queued for the projection, and the call returns.

The projection follows a queued write on the next read, before it reads, or on an idle thread once no
write has committed for ``FOLLOW_WHEN_IDLE_S`` (:mod:`graphmem.service.idle_follower`), whichever comes
first; a write that finds more than ``FOLLOW_QUEUED_MAX`` writes queued applies the queue itself. To follow a
write is to apply first any other process's generations committed before it, then the write's own effects
(:meth:`Write.then`), or, when the use case said nothing of them, its own change-log entry read back like
anyone else's. Consecutive queued writes that only inserted memories, with no other process's generation
between them, are applied as one (:meth:`GraphProjection.apply_batches`: the same projection, for less CPU).
:meth:`UnitOfWork.fresh` applies the queue first, so a caller never misses its own write;
:attr:`UnitOfWork.projection` applies it too when the write lock is free (a use case that reads inside a
write holds it, and sees the writes before it). A store no longer waits for the projection (2 ms of an
8.7 ms store at 600 memories, docs/benchmarks.md) unless the queue is full; the read after a burst of
writes applies the burst's queue before it answers.

A read calls :meth:`UnitOfWork.fresh` first: one integer compared with the generation the
projection reflects; when another process wrote, its changes are applied incrementally. A server opens
the projection with the unit of work; a one-shot command (``open_projection=False``) on the first read
that needs it, so a command that reads rows only (``show``, ``sessions``, ``export``) never imports numpy
and scipy nor builds it, and a write before then only records its generation. With a
replica (``replica_db``), reads go there once it has replayed the generation the projection reflects,
and to the primary until then, so a lagging replica never hides this process's own writes
(:mod:`graphmem.store.replicas`).

With ``projection.partition = "project"`` the unit of work holds no projection of its own: a
:class:`~graphmem.store.projection_pool.ProjectionPool` holds one per project, and :meth:`UnitOfWork.fresh`
takes the project of the read (recall passes its filter's), loads or follows that project's projection and
makes it the one :attr:`UnitOfWork.projection` returns for the rest of the read (per thread and task). A
write then only records its generation; each held projection follows the change log on its next read.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.core.values import Memory
from graphmem.errors import InvalidInput
from graphmem.service.idle_follower import IdleFollower
from graphmem.settings import Settings
from graphmem.store.changes import MEMORIES, NOTHING, RELOAD, append_changes, bump_generation, prune_changes
from graphmem.store.engine import open_engine, open_replica, shares_one_connection
from graphmem.store.replicas import ReadRouter
from graphmem.store.repository import Repository, StoredBatch
from nlp import ConceptExtractor

if TYPE_CHECKING:  # the projection (numpy, scipy) and the embedder load when a read or a write first needs them
    from graphmem.store.projection import GraphProjection
    from graphmem.store.projection_pool import ProjectionPool, SnapshotWritten
    from graphmem.store.semantic_index import Embedder

__all__ = ["Effect", "UnitOfWork", "Write"]

Effect = Callable[["GraphProjection"], None]

# Projection snapshots (store/projection_snapshot.py) pay off for large stores: below this many memories
# a full load takes well under a second. A closing process refreshes the snapshot once the store has
# moved on by this many generations since the last one, so a one-shot CLI store does not rewrite it.
SNAPSHOT_MIN_MEMORIES = 5_000
SNAPSHOT_EVERY = 200
# A partitioned server writes a project's snapshot when it drops or closes a projection this large: a load
# from the rows embeds every text again (~150 ms at 900 memories on a quiet machine, half of it the embedding).
PROJECT_SNAPSHOT_MIN_MEMORIES = 100
# The idle thread applies queued writes once none has committed for this long: the reply of the call that queued
# them is out within a few milliseconds, and an agent's next call comes seconds later. A client taking turns with
# other work (the bench's three servers, call by call, 20-60 ms apart) has its writes applied in the others'
# turns; with 200 ms they never were, and each store applied one write as before (docs/benchmarks.md, 7d).
# Writes closer together than this never wake the thread.
FOLLOW_WHEN_IDLE_S = 0.025
# A write that finds more than this many writes queued applies the whole queue after its commit, as one apply
# when they only inserted memories: writes back to back then pay the follow once every 33 writes, its code and
# data warm (1.0-2.2 ms less CPU per store than one apply per store, 600 memories, docs/benchmarks.md), and the
# first read after them applies at most this many.
FOLLOW_QUEUED_MAX = 32
# The idle thread applies the queue this many writes at a time, handing the lock back between two applies: a
# call that arrives meanwhile waits for at most one of them (about 4 ms for 8 stores at 600 memories).
FOLLOW_IDLE_CHUNK = 8


@dataclass(slots=True)
class Write:
    """One write in progress: its transaction, its generation, what it changed and how the projection
    follows it."""

    session: Any  # the store's session (only graphmem.store names its type)
    generation: int
    changes: dict[str, set[str]] = field(default_factory=dict)
    effects: list[Effect] = field(default_factory=list)
    followed: bool = False  # whether the use case said how the projection follows it (else: its change log)

    def changed(self, kind: str, refs: Iterator[str] | list[str] | tuple[str, ...] | set[str]) -> None:
        """Record that this write touched ``refs`` (memory, relation or fact ids) of ``kind``."""
        self.changes.setdefault(kind, set()).update(refs)

    def then(self, effect: Effect) -> None:
        """Apply ``effect`` to the projection once the transaction has committed."""
        self.effects.append(effect)
        self.followed = True

    def then_nothing(self) -> None:
        """This part of the write changed nothing the projection shows (its change log is not read back for it)."""
        self.followed = True

    def inserted(self, batch: StoredBatch) -> None:
        """New memories (and their concepts) from :func:`insert_memories`."""
        self.changed(MEMORIES, [memory.id for _, memory in batch.memories])
        self.then(_Inserted(batch))

    def updated(self, memories: Sequence[Memory]) -> None:
        """Memories whose lifecycle fields (status, validity, strength, use) changed."""
        self.changed(MEMORIES, [memory.id for memory in memories])
        self.then(lambda projection: projection.refresh_memories(memories))

    def rewrote(self, what: str) -> None:
        """A bulk rewrite (a hard delete, a repair): every projection rebuilds from the rows."""
        self.changed(RELOAD, [what])


@dataclass(frozen=True, slots=True)
class _Inserted:
    """The effect of :meth:`Write.inserted`: the unit of work applies several writes' inserts as one."""

    batch: StoredBatch

    def __call__(self, projection: GraphProjection) -> None:
        projection.apply_batch(self.batch)


class UnitOfWork:
    """Engine, repository, projection, extractor, settings and the write lock, for one process."""

    def __init__(self, settings: Settings, *, extractor: ConceptExtractor | None = None,
                 preload_embedder: bool = True, open_projection: bool = True) -> None:
        """Open the store. ``preload_embedder``: start loading the embedding model now, on a thread, else on its
        first use. ``open_projection=False``: the projection (and numpy and scipy with it) opens on the first read
        that needs it, so a one-shot command that reads rows only never builds it."""
        self.settings = settings
        self.engine = open_engine(settings.db)  # the primary: every write, and reads without a replica
        try:
            self.router = ReadRouter(self.engine, open_replica(settings.replica_db) if settings.replica_db else None)
        except BaseException:
            self.engine.dispose()
            raise
        self.repository = Repository(self.engine, self._reader if settings.replica_db else None)
        self.extractor = extractor or ConceptExtractor(settings.nlp_model)
        self._embedder: Embedder | None = _embedder(settings, preload=True) if preload_embedder else None
        self._embedder_made = preload_embedder
        self._projection: GraphProjection | None = None  # the whole store's, once opened
        self.pool: ProjectionPool | None = None
        self._selected: ContextVar[GraphProjection | None] = ContextVar("projection", default=None)
        # Re-entrant: a write's after-commit step, and a use case that reads fresh inside a write.
        self._lock = threading.RLock()
        self._snapshot: Path | None = None
        self._snapshot_generation = 0
        self._loaded_from = ""  # where the whole store's projection came from: "snapshot" or "rows"
        self._joined: Write | None = None  # the open write of :meth:`atomic`, which nested writes join
        # The generation the projection reflects; until one is open, the last one this process wrote (what a
        # replica must have replayed before this process reads from it).
        self._seen = 0
        # Writes this process committed that the whole store's projection has not applied yet, oldest first.
        self._queued: list[Write] = []
        # Not for an in-memory store: its one connection would be shared with a caller's open transaction.
        self._follower = (None if shares_one_connection(self.engine)
                          else IdleFollower(self._catch_up_when_idle, FOLLOW_WHEN_IDLE_S))
        if settings.projection.partition == "project":
            self.pool = self._new_pool()  # projections load on their first read
        elif open_projection:
            self._open_projection()

    @property
    def projection(self) -> GraphProjection:
        """The projection reads use: the whole store's (opened on first use); with a pool, the one this thread's
        last :meth:`fresh` picked (the whole store's when none did)."""
        if self.pool is None:
            projection = self._projection if self._projection is not None else self._open_projection()
            if self._queued and self._lock.acquire(blocking=False):
                # Only when the lock is free: a caller may hold the projection's lock here (recall reads under
                # it), and a writer holding this one may be waiting for that one. A read that began with
                # fresh() has applied this thread's own writes already.
                try:
                    self._catch_up()
                finally:
                    self._lock.release()
            return projection
        selected = self._selected.get()
        return self.fresh() if selected is None else selected

    @property
    def projection_open(self) -> bool:
        """Whether the whole store's projection is in memory (never with a pool): a read that can answer from
        the rows as well as from the projection uses the projection only when it is."""
        return self._projection is not None

    @property
    def generation(self) -> int:
        """The store generation a read here reflects: the projection's, with the writes queued for it (before
        it opens, the last one this process wrote)."""
        queued = self._queued
        return queued[-1].generation if queued else self._seen

    @contextmanager
    def write(self) -> Iterator[Write]:
        """Lock, one transaction with a change-log entry, commit, then the projection effects (inside
        :meth:`atomic`, the write joins the open transaction and commits with it)."""
        with self._lock:
            if self._joined is not None:  # only the thread holding the lock can see its own atomic write
                yield self._joined
                return
            with self.repository.write_transaction() as session:
                write = Write(session, bump_generation(session))
                yield write
                # Every generation gets a log row, even one that changed nothing the projection shows: its
                # commit time is what ties a projection snapshot to this store's history.
                append_changes(session, write.generation, write.changes or {NOTHING: set()})
                prune_changes(session, write.generation)
            self._queue(write)

    @contextmanager
    def atomic(self) -> Iterator[Write]:
        """One transaction for several use cases: a call that writes many items (a seed dialect's batch of
        entities) lands whole or not at all. Every :meth:`write` inside joins it; the projection follows
        once, after the commit. Reads through other connections see the store as it was before."""
        with self.write() as write:
            outer, self._joined = self._joined, write
            try:
                yield write
            finally:
                self._joined = outer

    @contextmanager
    def read(self) -> Iterator[Any]:
        """A session for a read use case (one snapshot of the store)."""
        with self.repository.transaction() as session:
            yield session

    def fresh(self, project: str | None = None, query: str | None = None) -> GraphProjection:
        """The projection, with every write committed by any process applied (call before a read); with a
        replica, every write it has replayed, and never less than this process's own. With a pool, the
        projection of ``project`` (a read filtered by one), or of the whole store (``None``, the pool's
        ``WHOLE_STORE``), holding every concept of the store that ``query`` may name."""
        if self.pool is not None:
            engine, generation = self.router.freshest(self._seen)
            with self._lock:
                projection = self.pool.get(project, engine, generation, self._query_concepts(query))
                self._seen = max(self._seen, generation)
            self._selected.set(projection)
            return projection
        if self._queued:  # this process's writes first (fresh() is never called under the projection's lock)
            self._catch_up()
        projection = self.projection
        engine, generation = self.router.freshest(self._seen)
        if generation != self._seen:
            from graphmem.store.follow import follow

            with self._lock:
                self._seen = follow(projection, engine, self._seen)
        return projection

    def reload(self) -> None:
        """Rebuild the projection from the rows (tests and repairs that wrote past the unit of work)."""
        with self._lock:
            if self.pool is not None:
                self.pool.drop()
                self._selected.set(None)
            elif self._projection is not None:  # one not open yet loads the rows when first read
                self._queued.clear()  # the rows hold them
                self._seen = self._projection.reload(self.engine)

    def write_snapshots(self, projects: Sequence[str] | None = None) -> list[SnapshotWritten]:
        """Bring the projection snapshots a server of these settings opens from up to date (``graphmem
        snapshot``): with ``projection.partition = "project"``, each project's (``projects``, or every project
        of the store), else the whole store's. A server then never builds them from the rows on its first read."""
        if self.pool is None:
            if projects:
                raise InvalidInput('per-project snapshots are for projection.partition = "project"; this store '
                                   "is served whole: run graphmem snapshot without --project")
            return [self._write_whole_snapshot()]
        wanted = list(dict.fromkeys(projects)) if projects else self.repository.project_names()
        known = set(self.repository.project_names()) if projects else set(wanted)
        unknown = [name for name in wanted if name not in known]
        if unknown:
            raise InvalidInput(f"no memory belongs to project {unknown[0]!r}")
        engine = self.router.reader(self._seen)
        return [self.pool.write_snapshot(project, engine) for project in wanted]

    def _write_whole_snapshot(self) -> SnapshotWritten:
        from graphmem.store.projection_pool import SnapshotWritten
        from graphmem.store.projection_snapshot import is_current_format

        with self._lock:
            held, started = self._projection is not None, time.perf_counter()
            projection = self.fresh()
            load_ms = (time.perf_counter() - started) * 1000
            trained = projection.semantic.train_cells()  # a large store's coarse cells go into its snapshot
            loaded_from = "held" if held else self._loaded_from
            memories, path = projection.memory_count, self._snapshot
            # Opened from the rows, a large store writes its snapshot at once (``_load``): that was this command's.
            opened_it = loaded_from == "rows" and self._snapshot_generation == self._seen > 0
            reason = ""
            if path is None:
                reason = "an in-memory store keeps no snapshot"
            elif memories < SNAPSHOT_MIN_MEMORIES:
                reason = f"fewer than {SNAPSHOT_MIN_MEMORIES:,} memories: it loads from its rows as fast"
            elif (self._snapshot_generation == self._seen and path.exists() and is_current_format(path)
                  and not opened_it and not trained):
                reason = "its snapshot is current"
            started = time.perf_counter()
            if not reason and (trained or not opened_it):
                self._save_snapshot(projection)
                if self._snapshot_generation != self._seen:
                    reason = f"cannot write {path}"
            save_ms = (time.perf_counter() - started) * 1000
            size = path.stat().st_size if path is not None and path.exists() else 0
            return SnapshotWritten(None, memories, loaded_from, load_ms, not reason, 0.0 if reason else save_ms,
                                   str(path) if path else None, size, reason)

    def close(self) -> None:
        """Apply the queued writes, keep a projection snapshot when the store moved on since the last one, and
        release the connections."""
        if self._follower is not None:
            self._follower.stop()
        self._catch_up()
        if self.pool is not None:
            with self._lock:
                self.pool.close(self.engine)
        elif self._projection is not None and self._seen - self._snapshot_generation >= SNAPSHOT_EVERY:
            self._save_snapshot(self._projection)
        self.router.close()
        self.engine.dispose()

    def _open_projection(self) -> GraphProjection:
        """The whole store's projection, from its snapshot plus the change log since, or else from the rows."""
        with self._lock:
            if self._projection is None:
                from graphmem.store.projection import GraphProjection
                from graphmem.store.projection_snapshot import snapshot_path

                projection = GraphProjection(self.settings.activation, self.settings.semantic, self._embedding())
                self._snapshot = snapshot_path(self.engine)
                self._seen = self._load(projection)
                self._projection = projection
            return self._projection

    def _load(self, projection: GraphProjection) -> int:
        from graphmem.store.follow import follow
        from graphmem.store.projection_snapshot import load_snapshot

        # Any replica that has replayed this process's own writes will do.
        engine = self.router.reader(self._seen)
        if self._snapshot is not None and self._snapshot.exists():
            generation = load_snapshot(projection, self._snapshot, engine, self.router.generation(engine))
            if generation is not None:
                self._snapshot_generation, self._loaded_from = generation, "snapshot"
                return follow(projection, engine, generation)
        self._loaded_from = "rows"
        seen = projection.load(engine)
        if seen > 0 and projection.memory_count >= SNAPSHOT_MIN_MEMORIES:
            self._seen = seen
            self._save_snapshot(projection)
        return seen

    def _new_pool(self) -> ProjectionPool:
        from graphmem.store.projection import GraphProjection
        from graphmem.store.projection_pool import ProjectionPool
        from graphmem.store.projection_snapshot import snapshot_path
        from graphmem.store.word_table import WordTable

        settings, embedder = self.settings, self._embedding()
        self._snapshot = snapshot_path(self.engine)
        # The pool's projections keep their word vectors in one table: a word's is the same in every project.
        words = WordTable(embedder.dimensions) if embedder is not None else None
        return ProjectionPool(
            lambda: GraphProjection(settings.activation, settings.semantic, embedder, words),
            settings.projection.budget_mib, whole_snapshot=self._snapshot,
            snapshots=None if self._snapshot is None else self._snapshot.with_name(f"{self._snapshot.name}.projects"),
            snapshot_min_memories=PROJECT_SNAPSHOT_MIN_MEMORIES, exact_below=SNAPSHOT_MIN_MEMORIES)

    def _embedding(self) -> Embedder | None:
        """The embedding model (made on first use when it was not preloaded: it then loads on its first embed)."""
        if not self._embedder_made:
            self._embedder, self._embedder_made = _embedder(self.settings, preload=False), True
        return self._embedder

    def _query_concepts(self, query: str | None) -> set[str]:
        """Every concept key recall may look up for ``query``: its keys, their fallbacks, its n-grams."""
        if query is None or self.pool is None:
            return set()
        keys, ngrams = self.extractor.query_parse(query)
        return {name for key, fallbacks in keys for name in (key, *fallbacks)} | {n for n in ngrams if " " in n}

    def _reader(self) -> Any:
        """The engine a repository read uses: one whose rows reflect at least this process's own writes."""
        return self.router.reader(self.generation)

    def _save_snapshot(self, projection: GraphProjection) -> None:
        if self._snapshot is None or projection.memory_count < SNAPSHOT_MIN_MEMORIES:
            return
        from graphmem.store.projection_snapshot import save_snapshot

        with self._lock:
            try:
                save_snapshot(projection, self._snapshot, self.engine, self._seen)
            except OSError:
                return  # a read-only directory only costs the next open a full load
            self._snapshot_generation = self._seen

    def _queue(self, write: Write) -> None:
        """A committed write (the lock held): queued for the projection, applied by the next read or when idle."""
        if self._projection is None:  # each held pool projection follows the log on its next read; an unopened
            self._seen = max(self._seen, write.generation)  # projection loads these rows when it opens
            return
        self._queued.append(write)
        if len(self._queued) > FOLLOW_QUEUED_MAX:
            self._catch_up()
        if self._follower is not None:
            self._follower.nudge()

    def _catch_up(self, *, at_most: int | None = None) -> None:
        """Apply the queued writes (the ``at_most`` oldest of them), oldest first. When an effect fails, the
        projection is rebuilt from the rows (they are committed: a projection that missed part of them would
        answer wrongly until restart), the queue with it, and the error reaches the caller."""
        with self._lock:
            projection = self._projection
            if projection is None or not self._queued:
                return
            writes = self._queued[:at_most] if at_most is not None else list(self._queued)
            try:
                self._follow(projection, writes)
            except Exception:
                self._queued.clear()
                self._seen = projection.reload(self.engine)
                raise
            del self._queued[: len(writes)]

    def _catch_up_when_idle(self) -> None:
        """The idle thread's catch-up: ``FOLLOW_IDLE_CHUNK`` writes at a time, handing the lock and the interpreter
        back between two applies, so a call that arrives meanwhile waits for one of them, not for the whole
        queue's."""
        while self._queued:
            try:
                self._catch_up(at_most=FOLLOW_IDLE_CHUNK)
            except Exception as error:  # no caller to hand it to: the projection was rebuilt, say why on stderr
                print(f"graphmem: the projection was rebuilt after a failed follow: {error!r}", file=sys.stderr)
            time.sleep(0)  # let a thread waiting for the lock or the interpreter run first

    def _follow(self, projection: GraphProjection, writes: list[Write]) -> None:
        """Apply ``writes`` in order. A run of writes that only inserted memories, each the generation right after
        the one before, is applied as one :meth:`GraphProjection.apply_batches`."""
        inserts: list[StoredBatch] = []
        upto = self._seen  # the generation the projection reflects once ``inserts`` are applied
        for write in writes:
            if write.generation <= upto:  # a catch-up rebuilt the projection, this write included
                continue
            if write.generation == upto + 1 and write.followed and all(
                    isinstance(effect, _Inserted) for effect in write.effects):
                inserts.extend(effect.batch for effect in write.effects if isinstance(effect, _Inserted))
                upto = write.generation
                continue
            self._apply_inserts(projection, inserts, upto)
            inserts = []
            self._follow_one(projection, write)
            upto = self._seen
        self._apply_inserts(projection, inserts, upto)

    def _apply_inserts(self, projection: GraphProjection, inserts: list[StoredBatch], upto: int) -> None:
        if inserts:
            projection.apply_batches(inserts)
        self._seen = max(self._seen, upto)

    def _follow_one(self, projection: GraphProjection, write: Write) -> None:
        from graphmem.store.follow import follow

        # Writers commit in generation order, so everything before this generation is committed:
        # catch up on other processes' writes first, then apply this one.
        if write.generation - 1 > self._seen:
            self._seen = follow(projection, self.engine, self._seen, upto=write.generation - 1)
        if self._seen >= write.generation:  # the catch-up rebuilt the projection, this write included
            return
        if not write.followed:
            self._seen = follow(projection, self.engine, self._seen, upto=write.generation)
            return
        for effect in write.effects:
            effect(projection)
        self._seen = write.generation


def _embedder(settings: Settings, preload: bool) -> Embedder | None:
    """The static embedding model when the semantic signal is on; without its package, recall is keyword- and
    graph-only, as before the semantic leg, and stderr says why once. ``preload``: begin loading it now, on a
    thread; else on its first use."""
    if not settings.semantic.enabled:
        return None
    from nlp.embedding import BackgroundEmbedder, EmbeddingUnavailable, package_dir

    try:
        package_dir()  # present or not is cheap to tell; the load itself runs on a thread
    except EmbeddingUnavailable as missing:
        _warn_once(f"graphmem: semantic recall is off: {missing}")
        return None
    return BackgroundEmbedder(_warn_once, start=preload)


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(message, file=sys.stderr)

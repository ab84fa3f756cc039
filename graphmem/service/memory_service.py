"""``MemoryService``: the facade the MCP server, the CLI and the tests all call, and its composition root.

It builds the one :class:`UnitOfWork` and hands it to each feature's use cases (memories and their
edits, recall, relations and facts, lifecycle, sessions, learning, export, maintenance); none of them
sees the facade. The facade's own methods are the core contract (store, search, associate, open,
graph, status), and each delegates to the feature that owns it: ``search`` and ``associate`` to
:class:`RecallService`, followed by the one step a read may cause, the reinforcement of what it
returned (``decay.reinforce_on_recall``), as its own write. Every other use case is reached through
the feature attribute that owns it (``service.facts.add``, ``service.edits.forget``). Metrics wrap the
use cases where they are defined (``@measured``).

A server builds every feature and opens the projection with the service. A one-shot command
(``preload=False``) builds each feature, and imports its modules, on first use, and the unit of work
opens the projection on the first read that needs it: ``graphmem show`` imports neither the recall engine
nor numpy and scipy (docs/benchmarks.md, issue 22).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TextIO, TypeVar, cast, overload

from graphmem.errors import InvalidInput
from graphmem.service.clock import Clock
from graphmem.service.memories.session_attach import ReservedSessions
from graphmem.service.metrics import MetricsRecorder, measured
from graphmem.service.recall.thresholds import DEFAULT_MIN_RELEVANCE
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, check_strings, parse_instant
from graphmem.settings import Settings
from graphmem.store.engine import describe_store

if TYPE_CHECKING:
    from graphmem.service.export import ExportService
    from graphmem.service.export.transfer import ImportReport
    from graphmem.service.learning import LearningService
    from graphmem.service.lifecycle.service import LifecycleService
    from graphmem.service.maintenance.lint import LintService
    from graphmem.service.memories.capture import CaptureService
    from graphmem.service.memories.edits import MemoryEdits
    from graphmem.service.memories.history import HistoryService
    from graphmem.service.memories.results import OpenResult, StoreResult
    from graphmem.service.memories.writes import MemoryWrites, Progress
    from graphmem.service.recall.engine import RecallEngine
    from graphmem.service.recall.results import AssociateResult, GraphView, SearchResult
    from graphmem.service.recall.service import RecallService
    from graphmem.service.relations.conflicts import ConflictScanner
    from graphmem.service.relations.facts import FactService
    from graphmem.service.relations.service import RelationService
    from graphmem.service.sessions.service import SessionService
    from graphmem.store.projection import GraphProjection
    from graphmem.store.projection_pool import SnapshotWritten
    from graphmem.store.repository import Repository
    from nlp import ConceptExtractor

__all__ = ["MemoryService"]

_Built = TypeVar("_Built")


class _Feature(Generic[_Built]):
    """A feature of the service, built on first use (its modules imported then), once, whichever thread asks
    first; from then on it is a plain attribute of the service."""

    def __init__(self, build: Callable[[MemoryService], _Built]) -> None:
        self._build = build
        self._name = build.__name__
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, service: None, owner: type[Any]) -> _Feature[_Built]: ...

    @overload
    def __get__(self, service: MemoryService, owner: type[Any]) -> _Built: ...

    def __get__(self, service: MemoryService | None, owner: type[Any]) -> _Built | _Feature[_Built]:
        if service is None:
            return self
        with service._building:  # features build others (sessions: lifecycle, edits): re-entrant
            if self._name not in service.__dict__:  # another thread may have built it while this one waited
                service.__dict__[self._name] = self._build(service)
        return cast(_Built, service.__dict__[self._name])


class MemoryService:
    """Persistent, queryable agent memory over one database.

    Examples
    --------
    >>> from graphmem import MemoryService, Settings
    >>> service = MemoryService(Settings(db=":memory:"))
    >>> first = service.store("Stripe retries webhook deliveries for three days, so every webhook "
    ...                       "handler needs an idempotency key", kind="pattern")
    >>> second = service.store("Use an idempotency key header check before creating orders", kind="solution")
    >>> [m.id for m in service.associate("retry webhooks").memories] == [first.id, second.id]
    True
    """

    def __init__(self, settings: Settings | None = None, *, extractor: ConceptExtractor | None = None,
                 preload_embedder: bool = True, preload: bool = True) -> None:
        """Open the store; ``preload_embedder=False`` loads the embedding model on its first use instead of on a
        thread from now (for a one-shot command that may never embed). ``preload=False`` (a one-shot command):
        the projection and each feature open on first use instead of now."""
        self.settings = settings or Settings.load()
        self.uow = UnitOfWork(self.settings, extractor=extractor, preload_embedder=preload_embedder,
                              open_projection=preload)
        self.clock = Clock()
        self.metrics = MetricsRecorder(self.uow.repository, self.settings.lifecycle.metrics_flush_s)
        self._reserved = ReservedSessions()  # sessions handed out before their first write (client connections)
        self._building = threading.RLock()
        if preload:
            for name in _FEATURES:
                getattr(self, name)

    # The features, each built with the parts it needs.
    @_Feature
    def recall(self) -> RecallEngine:
        """Recall over the projection: ranking, activation, the semantic leg."""
        from graphmem.service.recall.engine import RecallEngine

        return RecallEngine(self.uow)

    @_Feature
    def writes(self) -> MemoryWrites:
        from graphmem.service.memories.writes import MemoryWrites

        return MemoryWrites(self.uow, self.clock, self._reserved)

    @_Feature
    def edits(self) -> MemoryEdits:
        from graphmem.service.memories.edits import MemoryEdits
        from graphmem.service.recall.decay_weights import decay_params

        return MemoryEdits(self.uow, self.clock, decay_params(self.settings.decay), self.metrics)

    @_Feature
    def lifecycle(self) -> LifecycleService:
        from graphmem.service.lifecycle.service import LifecycleService

        return LifecycleService(self.uow, self.clock, self.metrics, self.edits)

    @_Feature
    def sessions(self) -> SessionService:
        from graphmem.service.sessions.service import SessionService

        return SessionService(self.uow, self.lifecycle.context, self.metrics, self.lifecycle.review_queue,
                              self._reserved)

    @_Feature
    def relations(self) -> RelationService:
        from graphmem.service.relations.service import RelationService

        return RelationService(self.uow)

    @_Feature
    def conflicts(self) -> ConflictScanner:
        from graphmem.service.relations.conflicts import ConflictScanner

        return ConflictScanner(self.uow)

    @_Feature
    def facts(self) -> FactService:
        from graphmem.service.relations.facts import FactService

        return FactService(self.uow)

    @_Feature
    def history(self) -> HistoryService:
        from graphmem.service.memories.history import HistoryService

        return HistoryService(self.uow)

    @_Feature
    def capture(self) -> CaptureService:
        from graphmem.service.memories.capture import CaptureService

        return CaptureService(self.uow, self.writes)

    @_Feature
    def lint(self) -> LintService:
        from graphmem.service.maintenance.lint import LintService

        return LintService(self.uow)

    @_Feature
    def exports(self) -> ExportService:
        from graphmem.service.export import ExportService

        return ExportService(self.uow, lambda: self.recall)  # the graph exports' selection: built when used

    @_Feature
    def learning(self) -> LearningService:
        from graphmem.service.learning import LearningService

        return LearningService(self.uow, self.clock, self.writes)

    @_Feature
    def recall_service(self) -> RecallService:
        from graphmem.service.recall.service import RecallService

        return RecallService(self.uow, self.clock, self.recall, self.learning.recall)

    # The unit of work's parts, for tests, scripts and diagnostics.
    @property
    def engine(self) -> Any:
        return self.uow.engine

    @property
    def repository(self) -> Repository:
        return self.uow.repository

    @property
    def projection(self) -> GraphProjection:
        return self.uow.fresh()

    @property
    def extractor(self) -> ConceptExtractor:
        return self.uow.extractor

    def close(self) -> None:
        """Write pending metrics and release the database connections."""
        self.metrics.flush()
        self.uow.close()

    # -- writes ---------------------------------------------------------------------------------
    @measured("store")
    def store(self, content: str, kind: str = "note", project: str | None = None, topic_key: str | None = None,
              tags: Sequence[str] | None = None, entities: Sequence[str] | None = None, source: str | None = None,
              context: str | None = None, meta: Mapping[str, Any] | None = None, session_id: str | None = None,
              review_after: Any = None, valid_from: Any = None, *, outcome: str | None = None,
              task_type: str | None = None, tools_used: Sequence[str] | None = None) -> StoreResult:
        """Store one observation; the same normalized content in the same project returns the existing id.

        ``outcome`` (success, failure, partial, unknown), ``task_type`` and ``tools_used`` are Kyew's
        learn fields: stored as columns that search, associate and export filter by."""
        from graphmem.service.memories.drafts import validate_observation

        return self.writes.store(validate_observation(
            self.settings.limits, content=content, kind=kind, project=project, topic_key=topic_key, tags=tags,
            entities=entities, source=source, context=context, meta=meta, session_id=session_id,
            review_after=review_after, valid_from=valid_from, outcome=outcome, task_type=task_type,
            tools_used=tools_used))

    @measured("store_many")
    def store_many(self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 512,
                   on_progress: Progress | None = None) -> list[StoreResult]:
        """Bulk import: validate every record first (nothing is written if one is bad), then insert in batches
        (each batch commits on its own)."""
        return self.writes.store_many(records, batch_size=batch_size, on_progress=on_progress)

    # -- reads ----------------------------------------------------------------------------------
    @measured("search")
    def search(self, query: str, project: str | None = None, kind: str | None = None,
               tags: Sequence[str] | None = None, limit: int = 10, offset: int = 0, as_of: Any = None,
               include_superseded: bool = False, *, outcome: str | None = None, task_type: str | None = None,
               tools_used: Sequence[str] | None = None, include: str = "memories",
               skill_detail: str = "summary", notes: bool = False,
               min_relevance: float = DEFAULT_MIN_RELEVANCE) -> SearchResult:
        """Hybrid retrieval: BM25 fused with spreading activation. Filters apply before the cut
        (``outcome``, ``task_type`` and ``tools_used`` too: every listed tool must have been used).

        ``include`` is ``memories`` (the default), ``skills`` or ``all``: skills the query matches
        (``service.learning.recall``) at ``skill_detail`` name_only, summary or full. ``notes=True`` answers
        a ``NotedSearchResult``: each hit's notes (superseded, contradicted, pending) read in the same
        call, the one way the MCP tools and the dialects ask for them. Reinforcement
        (``decay.reinforce_on_recall``) runs after the read, as its own write. Hits below ``min_relevance``
        (calibrated, ``service.recall.relevance``) are left out."""
        from graphmem.service.memories.learn_filter import LearnFilter

        result = self.recall_service.search(
            query, project, kind, tags, limit, offset, as_of, include_superseded,
            learned=LearnFilter(outcome, task_type, tools_used), include=include, skill_detail=skill_detail,
            notes=notes, min_relevance=min_relevance)
        self.lifecycle.after_recall([hit.id for hit in result.hits])
        return result

    @measured("associate")
    def associate(self, query: str, mode: str = "recall", project: str | None = None, max_results: int = 10,
                  min_coverage: float = 0.7, kind: str | None = None, as_of: Any = None,
                  include_superseded: bool = False, *, outcome: str | None = None, task_type: str | None = None,
                  tools_used: Sequence[str] | None = None, include: str = "memories",
                  skill_detail: str = "summary", notes: bool = False,
                  min_relevance: float = DEFAULT_MIN_RELEVANCE) -> AssociateResult:
        """Spreading-activation recall, or composition of the fewest memories covering the query
        (``include``, ``skill_detail`` and ``notes`` as in :meth:`search`; reinforcement after the read,
        likewise)."""
        from graphmem.service.memories.learn_filter import LearnFilter

        result = self.recall_service.associate(
            query, mode, project, max_results, min_coverage, kind, as_of, include_superseded,
            learned=LearnFilter(outcome, task_type, tools_used), include=include, skill_detail=skill_detail,
            notes=notes, min_relevance=min_relevance)
        self.lifecycle.after_recall([m.id for m in result.memories])
        return result

    @measured("open")
    def open(self, ids: Sequence[str], include_relations: bool = True, as_of: Any = None) -> OpenResult:
        """Full memories by id (or topic key), their relations and concepts; unknown ids are listed.
        With ``as_of`` the memories and relations as they were at that instant."""
        from graphmem.service.memories.history import open_at
        from graphmem.service.memories.reads import open_memories

        wanted = check_strings("ids", ids, self.settings.limits.max_open_ids, 300)
        if not wanted:
            raise InvalidInput("ids must name at least one memory")
        instant = parse_instant("as_of", as_of)
        if instant is None:
            return open_memories(self.uow, wanted, include_relations)
        self.uow.fresh()
        return open_at(self.uow, wanted, include_relations, instant)

    def suggest_topic_key(self, kind: str, title: str) -> str:
        """A stable ``kind/slug`` topic key to store a memory under (``memories.topic_keys.suggest_key``)."""
        from graphmem.service.memories.topic_keys import suggest_key

        return suggest_key(kind, title)

    @measured("graph")
    def graph(self, node: str | None = None, depth: int = 1, project: str | None = None, offset: int = 0,
              limit: int = 50, as_of: Any = None) -> GraphView:
        """A page of the graph: the neighbourhood of ``node`` (memory id, topic key or ``concept:<name>``)
        within ``depth`` hops, or without ``node`` a page of visible memories with their concepts."""
        depth = check_count("depth", depth, 0, 4)
        offset = check_count("offset", offset, 0, 10_000_000)
        limit = check_count("limit", limit, 1, 500)
        projection = self.uow.fresh()
        if node is not None and not node.startswith("concept:") and node not in projection.memory_nodes:
            node = self.resolve([node], strict=False).get(node, node)
        from graphmem.service.recall.graph_view import graph_page  # networkx: only the graph view builds one

        return graph_page(projection, self.repository, center=node, depth=depth,
                          view=self.recall_service.view(project, None, None, as_of, False), now_ms=self.clock.now_ms(),
                          offset=offset, limit=limit)

    @measured("status")
    def status(self, *, graph: bool = True) -> dict[str, Any]:
        """The store in use, counts of rows and graph nodes, and the settings that shape recall; with ``graph``,
        the graph's statistics too (degrees, components, communities: the costly part on a large store).

        A partitioned server (``projection.partition = "project"``) counts the projections it holds and
        loads the whole store's only for ``graph``."""
        counts = self.repository.counts()
        pool = self.uow.pool
        whole = self.uow.fresh() if pool is None or graph else None  # a pool loads the whole store only here
        entries = {} if pool is None else pool.held()
        held = [whole] if whole is not None else [entry.projection for entry in entries.values()]
        graph_nodes = graph_edges = 0
        for projection in held:
            with projection.lock:
                graph_nodes += projection.graph.n_nodes
                graph_edges += int(projection.graph.adjacency().nnz)
        replica = self.uow.router.health()
        status: dict[str, Any] = {
            "database": describe_store(self.engine), **counts, "graph_nodes": graph_nodes,
            "graph_edges": graph_edges, "nlp_model": self.settings.nlp_model,
            "activation_method": self.settings.activation.method}
        if graph:
            status["graph"] = self.exports.stats()
        if pool is not None:
            status["projections"] = {
                "partition": "project", "budget_mib": self.settings.projection.budget_mib,
                "held_mib": round(pool.nbytes / 2**20, 1),
                "projects": sorted(("(whole store)" if key is None else key) for key in entries),
                "memories": sum(entry.projection.memory_count for entry in entries.values())}
        if replica is not None:
            status["replica"] = dataclasses.asdict(replica)
        return status

    def resolve(self, refs: Sequence[str], *, strict: bool = True) -> dict[str, str]:
        """Map ids or topic keys to memory ids; with ``strict`` an unknown reference raises NotFound."""
        from graphmem.service.memories.reads import resolve

        return resolve(self.repository, refs, strict=strict)

    def write_snapshots(self, projects: Sequence[str] | None = None) -> list[SnapshotWritten]:
        """Write the projection snapshots a server of these settings opens from: each project's with
        ``projection.partition = "project"`` (``projects``, or all), else the whole store's (docs/scaling.md)."""
        return self.uow.write_snapshots(projects)

    # -- export and import --------------------------------------------------------------------
    @measured("export_jsonl")
    def export_jsonl(self, stream: TextIO) -> int:
        """Write every memory, concept, mention, co-occurrence, relation and session; returns the record count."""
        from graphmem.service.export.transfer import write_jsonl

        return write_jsonl(self.engine, stream)

    def export_node_link(self, stream: TextIO, project: str | None = None, as_of: Any = None) -> None:
        """The memory graph (memories, concepts, typed edges) as networkx node-link JSON."""
        from graphmem.service.export import ExportScope

        self.exports.write("node-link", stream, ExportScope(project=project, as_of=as_of))

    @measured("import_jsonl")
    def import_jsonl(self, lines: Iterable[str], *, on_progress: Progress | None = None) -> ImportReport:
        """Import graphmem's own export (same ids; merges without duplicating) or plain observations.

        Every line is checked first; a bad line fails the whole import with its line number.
        """
        from graphmem.service.export.transfer import ImportReport, import_graph_records, parse_import_lines

        parsed = parse_import_lines(lines)
        if parsed.memory_file:  # the MCP reference server's entities and relations
            return self.exports.import_memory_file(parsed.memory_file)
        if parsed.observations:
            results = self.store_many(parsed.observations, on_progress=on_progress)
            fresh = [r for r in results if not r.duplicate]
            return ImportReport(format="observations", added={"memories": len(fresh)},
                                duplicates=len(results) - len(fresh), ids=tuple(r.id for r in results))
        return import_graph_records(self.uow, parsed.graph_records)


_FEATURES = tuple(name for name, member in vars(MemoryService).items() if isinstance(member, _Feature))

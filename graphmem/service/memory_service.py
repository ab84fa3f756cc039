"""``MemoryService``: the one set of use cases the MCP server, the CLI and the tests all call."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

from graphmem.errors import InvalidInput, NotFound
from graphmem.service.export import ExportScope, ExportService
from graphmem.service.export.transfer import ImportReport, parse_import_lines, write_jsonl
from graphmem.service.lifecycle.service import LifecycleService
from graphmem.service.memories.drafts import Observation, build_drafts, validate_observation
from graphmem.service.memories.history import open_at
from graphmem.service.memories.parallel_drafts import drafted_batches
from graphmem.service.recall.compose import build_composition
from graphmem.service.recall.engine import RecallEngine
from graphmem.service.recall.graph_view import graph_page
from graphmem.service.recall.results import (
    AssociateResult,
    GraphView,
    OpenResult,
    SearchHit,
    SearchResult,
    StoreResult,
)
from graphmem.service.relations.service import RelationService
from graphmem.service.validation import (
    check_choice,
    check_count,
    check_kind,
    check_range,
    check_strings,
    check_text,
    parse_instant,
)
from graphmem.settings import Settings
from graphmem.store.convert import to_ms
from graphmem.store.engine import open_engine
from graphmem.store.projection import GraphProjection, VisibilityFilter
from graphmem.store.repository import MemoryDraft, Repository, StoredBatch
from graphmem.store.transfer import FORMAT, import_records
from nlp import ConceptExtractor

__all__ = ["MemoryService"]

Progress = Callable[[int], None]


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

    def __init__(self, settings: Settings | None = None, *, extractor: ConceptExtractor | None = None) -> None:
        self.settings = settings or Settings.load()
        self.engine = open_engine(self.settings.db)
        self.repository = Repository(self.engine)
        self.extractor = extractor or ConceptExtractor(self.settings.nlp_model)
        self.projection = GraphProjection(self.settings.activation)
        self.projection.load(self.engine)
        self.recall = RecallEngine(self.projection, self.repository, self.extractor, self.settings)
        self._write_lock = threading.Lock()
        self.lifecycle = LifecycleService(self)  # decay, review, promotion, sessions, metrics (docs/lifecycle.md)
        self.exports = ExportService(self)  # graph exports, HTML view, stats, memory-file import
        self.relations = RelationService(self)  # relations, conflicts, facts, history, capture, lint

    def close(self) -> None:
        """Release the database connections."""
        self.lifecycle.close()
        self.engine.dispose()

    # -- writes ---------------------------------------------------------------------------------
    def store(self, content: str, kind: str = "note", project: str | None = None, topic_key: str | None = None,
              tags: Sequence[str] | None = None, entities: Sequence[str] | None = None, source: str | None = None,
              context: str | None = None, meta: Mapping[str, Any] | None = None, session_id: str | None = None,
              review_after: Any = None, valid_from: Any = None) -> StoreResult:
        """Store one observation; the same normalized content in the same project returns the existing id."""
        observation = validate_observation(
            self.settings.limits, content=content, kind=kind, project=project, topic_key=topic_key, tags=tags,
            entities=entities, source=source, context=context, meta=meta, session_id=session_id,
            review_after=review_after, valid_from=valid_from)
        observation = self.lifecycle.sessions.attach(observation)
        return self._insert([observation])[0]

    def store_many(self, records: Iterable[Mapping[str, Any]], *, batch_size: int = 512,
                   on_progress: Progress | None = None) -> list[StoreResult]:
        """Bulk import: validate every record first (nothing is written if one is bad), then insert in batches."""
        observations = []
        for number, record in enumerate(records, start=1):
            try:
                observations.append(validate_observation(self.settings.limits, **dict(record)))
            except TypeError as error:
                raise InvalidInput(f"record {number}: unexpected field ({error})") from None
            except InvalidInput as error:
                raise InvalidInput(f"record {number}: {error}") from None
        results: list[StoreResult] = []
        batches = [observations[start : start + batch_size] for start in range(0, len(observations), batch_size)]
        drafted = drafted_batches(self.extractor, self.settings.nlp_model, batches, self.settings.import_workers)
        for batch, drafts in zip(batches, drafted, strict=True):
            results.extend(self._insert(batch, drafts))
            if on_progress:
                on_progress(len(results))
        return results

    def _insert(self, observations: Sequence[Observation],
                drafts: Sequence[MemoryDraft] | None = None) -> list[StoreResult]:
        drafts = drafts if drafts is not None else build_drafts(self.extractor, observations)
        with self._write_lock:
            with self.repository.transaction() as session:  # topic-key upserts commit with the insert
                batch = self.repository.add_memories_in(session, drafts)
                upsert = self.relations.upsert_topic_keys(session, batch)
            self.projection.apply_batch(batch)
            upsert.follow(self.projection)
        return upsert.annotate(_store_results(observations, drafts, batch))

    # -- reads ----------------------------------------------------------------------------------
    def search(self, query: str, project: str | None = None, kind: str | None = None,
               tags: Sequence[str] | None = None, limit: int = 10, offset: int = 0, as_of: Any = None,
               include_superseded: bool = False) -> SearchResult:
        """Hybrid retrieval: BM25 fused with spreading activation. Filters apply before the cut."""
        query = self._check_query(query)
        limit = check_count("limit", limit, 1, self.settings.limits.max_results)
        offset = check_count("offset", offset, 0, 100_000)
        view = self._view(project, kind, tags, as_of, include_superseded)
        now = _now_ms()
        fused, activation = self.recall.fused_ranking(query, view, now, offset + limit)
        page = self.lifecycle.review_page(fused, offset, limit, now)  # blends in danger-zone review candidates
        hits = self.recall.hits(activation, [node for node, *_ in page])
        result = SearchResult(
            query=query, offset=offset, limit=limit, total_candidates=len(fused),
            unmatched_concepts=activation.unmatched,
            hits=tuple(SearchHit(id=h.id, score=round(score, 6), kind=h.type, content=h.content, project=h.project,
                                 bm25_rank=rank_b, activation_rank=rank_a, created_at=h.created_at,
                                 topic_key=h.topic_key, tags=h.tags, concepts=h.concepts)
                       for h, (_, score, rank_b, rank_a) in zip(hits, page, strict=True)))
        return self.lifecycle.after_search(result, now)  # status, decay score, review flag; reinforcement

    def associate(self, query: str, mode: str = "recall", project: str | None = None, max_results: int = 10,
                  min_coverage: float = 0.7, kind: str | None = None, as_of: Any = None,
                  include_superseded: bool = False) -> AssociateResult:
        """Spreading-activation recall, or composition of the fewest memories covering the query."""
        query = self._check_query(query)
        check_choice("mode", mode, ("recall", "composition"))
        max_results = check_count("max_results", max_results, 1, self.settings.limits.max_results)
        min_coverage = check_range("min_coverage", min_coverage, 0.0, 1.0)
        view = self._view(project, kind, None, as_of, include_superseded)
        depth = max_results if mode == "recall" else max(50, 5 * max_results)
        now = _now_ms()
        activation = self.recall.with_bridge(self.recall.activate(query, view, now, depth), view, now, depth)
        composition = None
        if mode == "composition":
            composition = build_composition(self.recall, activation, min_coverage=min_coverage,
                                            max_sources=max_results)
        memories = self.recall.hits(activation, [node for node, _ in activation.ranked[:max_results]])
        self.lifecycle.after_recall([m.id for m in memories])
        return AssociateResult(
            query_concepts=activation.query_concepts, seed_nodes=activation.seeds,
            unmatched_concepts=activation.unmatched, activated_count=int((activation.vector > 0).sum()),
            memories=tuple(memories), composition=composition, mode=mode)

    def open(self, ids: Sequence[str], include_relations: bool = True, as_of: Any = None) -> OpenResult:
        """Full memories by id (or topic key), their relations and concepts; unknown ids are listed.
        With ``as_of`` the memories and relations as they were at that instant."""
        wanted = check_strings("ids", ids, self.settings.limits.max_open_ids, 300)
        if not wanted:
            raise InvalidInput("ids must name at least one memory")
        instant = parse_instant("as_of", as_of)
        if instant is not None:
            return open_at(self, wanted, include_relations, instant)
        resolved = self.resolve(wanted, strict=False)
        found = self.repository.memories_by_id(resolved.values())
        memories = tuple(found[resolved[i]] for i in wanted if i in resolved and resolved[i] in found)
        relations = tuple(self.repository.relations_touching([m.id for m in memories])) if include_relations else ()
        concepts = {m.id: tuple(self.recall.concept_names(self.projection.memory_nodes[m.id])) for m in memories
                    if m.id in self.projection.memory_nodes}
        not_found = tuple(i for i in wanted if i not in resolved)
        return OpenResult(memories=memories, relations=relations, not_found=not_found, concepts=concepts)

    def graph(self, node: str | None = None, depth: int = 1, project: str | None = None, offset: int = 0,
              limit: int = 50, as_of: Any = None) -> GraphView:
        """A page of the graph: the neighbourhood of ``node`` (memory id, topic key or ``concept:<name>``)
        within ``depth`` hops, or without ``node`` a page of visible memories with their concepts."""
        depth = check_count("depth", depth, 0, 4)
        offset = check_count("offset", offset, 0, 10_000_000)
        limit = check_count("limit", limit, 1, 500)
        if node is not None and not node.startswith("concept:") and node not in self.projection.memory_nodes:
            node = self.resolve([node], strict=False).get(node, node)
        return graph_page(self.projection, self.repository, center=node, depth=depth,
                          view=self._view(project, None, None, as_of, False), now_ms=_now_ms(),
                          offset=offset, limit=limit)

    def status(self) -> dict[str, Any]:
        """Counts of rows and graph nodes, and the settings that shape recall."""
        counts = self.repository.counts()
        with self.projection.lock:
            graph_nodes = self.projection.graph.n_nodes
            graph_edges = int(self.projection.graph.adjacency().nnz)
        return {"database": self.engine.url.render_as_string(hide_password=True), **counts,
                "graph_nodes": graph_nodes, "graph_edges": graph_edges, "nlp_model": self.settings.nlp_model,
                "activation_method": self.settings.activation.method, "graph": self.exports.stats()}

    def resolve(self, refs: Sequence[str], *, strict: bool = True) -> dict[str, str]:
        """Map ids or topic keys to memory ids; with ``strict`` an unknown reference raises NotFound."""
        known = self.repository.memories_by_id(refs)
        resolved = {ref: ref for ref in refs if ref in known}
        by_topic = self.repository.ids_for_topic_keys([r for r in refs if r not in resolved])
        resolved.update(by_topic)
        missing = [r for r in refs if r not in resolved]
        if strict and missing:
            raise NotFound("memory id or topic key", missing)
        return resolved

    # -- export and import --------------------------------------------------------------------
    def export_jsonl(self, stream: TextIO) -> int:
        """Write every memory, concept, mention, co-occurrence, relation and session; returns the record count."""
        return write_jsonl(self.engine, stream)

    def export_node_link(self, stream: TextIO, project: str | None = None, as_of: Any = None) -> None:
        """The memory graph (memories, concepts, typed edges) as networkx node-link JSON."""
        self.exports.write("node-link", stream, ExportScope(project=project, as_of=as_of))

    def import_jsonl(self, lines: Iterable[str], *, on_progress: Progress | None = None) -> ImportReport:
        """Import graphmem's own export (same ids; merges without duplicating) or plain observations.

        Every line is checked first; a bad line fails the whole import with its line number.
        """
        parsed = parse_import_lines(lines)
        if parsed.memory_file:  # the MCP reference server's entities and relations
            return self.exports.import_memory_file(parsed.memory_file)
        if parsed.observations:
            results = self.store_many(parsed.observations, on_progress=on_progress)
            fresh = [r for r in results if not r.duplicate]
            return ImportReport(format="observations", added={"memories": len(fresh)},
                                duplicates=len(results) - len(fresh), ids=tuple(r.id for r in results))
        with self._write_lock:
            added = import_records(self.engine, parsed.graph_records)
            self._reload_projection()
        return ImportReport(format=FORMAT, added=added)

    def _reload_projection(self) -> None:
        projection = GraphProjection(self.settings.activation)
        projection.load(self.engine)
        self.projection = projection
        self.recall.projection = projection

    # -- helpers --------------------------------------------------------------------------------
    def _check_query(self, query: str) -> str:
        return (check_text("query", query, self.settings.limits.max_query_chars, required=True) or "").strip()

    def _view(self, project: str | None, kind: str | None, tags: Sequence[str] | None, as_of: Any,
              include_superseded: bool) -> VisibilityFilter:
        if kind is not None:
            check_kind(kind)
        instant = parse_instant("as_of", as_of)
        return VisibilityFilter(
            project=project, kinds=(kind,) if kind else (),
            tags=check_strings("tags", tags, self.settings.limits.max_tags, self.settings.limits.max_tag_chars),
            as_of_ms=None if instant is None else to_ms(instant), include_superseded=include_superseded)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _store_results(observations: Sequence[Observation], drafts: Sequence[Any],
                   batch: StoredBatch) -> list[StoreResult]:
    return [StoreResult(id=memory_id, kind=obs.kind, duplicate=duplicate,
                        concepts=tuple(key for key, *_ in draft.mentions), project=obs.project,
                        topic_key=obs.topic_key)
            for obs, draft, (memory_id, duplicate) in zip(observations, drafts, batch.outcomes, strict=True)]

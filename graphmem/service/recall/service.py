"""``RecallService``: ``memory_search`` and ``memory_associate`` end to end, read top to bottom.

One owner per read: the query and its filters are checked here, the :class:`RecallEngine` ranks
(keywords fused with activation, the bridge, conversation turns), the decay blends review candidates
into a search page and marks each hit (:mod:`~graphmem.service.recall.review_blend`), composition
picks the fewest covering sources (:mod:`~graphmem.service.recall.compose`), skills the query names are
added (:mod:`~graphmem.service.recall.skills`), and, for callers that show them (``notes=True``: the
MCP tools and the dialects), every memory shown carries its notes (:mod:`~graphmem.service.recall.notes`), read in the
same call.

A read never writes: reinforcing what recall returned (``decay.reinforce_on_recall``) is a separate
step the facade runs after the answer (``LifecycleService.after_recall``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, overload

from graphmem.core.time import to_ms
from graphmem.service.clock import Clock
from graphmem.service.memories.learn_filter import LearnFilter
from graphmem.service.recall.compose import build_composition
from graphmem.service.recall.decay_weights import decay_params
from graphmem.service.recall.engine import Activation, RecallEngine
from graphmem.service.recall.notes import recall_notes
from graphmem.service.recall.relevance import DEFAULT_MIN_RELEVANCE, Evidence, calibrated, evidence
from graphmem.service.recall.results import (
    AssociateResult,
    CompositionResult,
    MemoryHit,
    NotedAssociateResult,
    NotedSearchResult,
    SearchHit,
    SearchResult,
)
from graphmem.service.recall.review_blend import annotate, review_page
from graphmem.service.recall.skills import SkillHit, SkillRecall, wants
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import (
    check_choice,
    check_count,
    check_kind,
    check_range,
    check_strings,
    check_text,
    parse_instant,
)
from graphmem.store.projection import VisibilityFilter

__all__ = ["RecallService"]

# A fused entry: (memory node, score, bm25 rank, activation rank), best first (RecallEngine.fused_ranking).
Fused = tuple[int, float, int | None, int | None]


class RecallService:
    """Search and associate over the unit of work's projection (reached through the facade)."""

    def __init__(self, uow: UnitOfWork, clock: Clock, engine: RecallEngine, skills: SkillRecall) -> None:
        self.uow = uow
        self.settings = uow.settings
        self.clock = clock
        self.engine = engine
        self.skills = skills
        self.decay = decay_params(uow.settings.decay)

    def search(self, query: str, project: str | None = None, kind: str | None = None,
               tags: Sequence[str] | None = None, limit: int = 10, offset: int = 0, as_of: Any = None,
               include_superseded: bool = False, *, learned: LearnFilter | None = None,
               include: str = "memories", skill_detail: str = "summary", notes: bool = False,
               min_relevance: float = DEFAULT_MIN_RELEVANCE) -> SearchResult:
        """Keywords fused with activation, a page of hits with their lifecycle fields and skills (and with
        ``notes`` a :class:`NotedSearchResult`); hits below ``min_relevance`` are left out."""
        query = self.check_query(query)
        limit = check_count("limit", limit, 1, self.settings.limits.max_results)
        offset = check_count("offset", offset, 0, 100_000)
        min_relevance = check_range("min_relevance", min_relevance, 0.0, 1.0)
        view, memories_wanted, matched = self._request(query, project, kind, tags, as_of, include_superseded,
                                                       learned, include, skill_detail)
        if not memories_wanted:
            empty = SearchResult(query=query, hits=(), total_candidates=0, offset=offset, limit=limit, skills=matched)
            return self._noted(empty) if notes else empty
        self.uow.fresh(view.project, query)  # a partitioned server answers from the project's projection
        now = self.clock.now_ms()
        fused, activation = self.engine.fused_ranking(query, view, now, offset + limit)
        page = review_page(self.uow.projection, self.settings.decay, fused, offset, limit, now)
        with self.uow.repository.reading():  # the hits' rows and their notes: one connection
            hits = self._search_hits(query, activation, fused, page, offset, now)
            cut = self._cut(min_relevance)
            hits = tuple(hit for hit in hits if hit.relevance >= cut)
            result = SearchResult(query=query, hits=hits, offset=offset, limit=limit, total_candidates=len(fused),
                                  unmatched_concepts=activation.unmatched, skills=matched)
            return self._noted(result) if notes else result

    def associate(self, query: str, mode: str = "recall", project: str | None = None, max_results: int = 10,
                  min_coverage: float = 0.7, kind: str | None = None, as_of: Any = None,
                  include_superseded: bool = False, *, learned: LearnFilter | None = None,
                  include: str = "memories", skill_detail: str = "summary", notes: bool = False,
                  min_relevance: float = DEFAULT_MIN_RELEVANCE) -> AssociateResult:
        """Spreading activation (``recall``), or the fewest memories covering the query (``composition``);
        ``notes`` as in :meth:`search`. In recall mode memories below ``min_relevance`` are left out
        (composition chooses its sources by coverage; they carry their relevance)."""
        query = self.check_query(query)
        check_choice("mode", mode, ("recall", "composition"))
        max_results = check_count("max_results", max_results, 1, self.settings.limits.max_results)
        min_coverage = check_range("min_coverage", min_coverage, 0.0, 1.0)
        min_relevance = check_range("min_relevance", min_relevance, 0.0, 1.0)
        view, memories_wanted, matched = self._request(query, project, kind, None, as_of, include_superseded,
                                                       learned, include, skill_detail)
        if not memories_wanted:
            result = AssociateResult(query_concepts=(), seed_nodes=(), unmatched_concepts=(), activated_count=0,
                                     memories=(), mode=mode, skills=matched)
            return self._noted(result) if notes else result
        self.uow.fresh(view.project, query)
        with self.uow.repository.reading():  # the hits' rows and their notes: one connection
            result = self._associated(query, mode, view, max_results, min_coverage, matched, min_relevance)
            return self._noted(result) if notes else result

    def _request(self, query: str, project: str | None, kind: str | None, tags: Sequence[str] | None, as_of: Any,
                 include_superseded: bool, learned: LearnFilter | None, include: str,
                 skill_detail: str) -> tuple[VisibilityFilter, bool, tuple[SkillHit, ...]]:
        """What search and associate both settle first: the filter, whether memories are wanted, and the
        skills the query matches (when they are)."""
        view = self.view(project, kind, tags, as_of, include_superseded, learned)
        memories_wanted, skills_wanted = wants(include)
        matched = self.skills.match(query, project, detail=skill_detail) if skills_wanted else ()
        return view, memories_wanted, matched

    def _cut(self, min_relevance: float) -> float:
        """The threshold applied. Relevance is calibrated with the semantic cosine as evidence; without the
        semantic index that evidence is missing (read as 0), every relevance is too low, and the default cut
        measured a loss (LoCoMo associate R@10 0.744 → 0.718), so the default cuts nothing there. A threshold
        the caller names is applied as it is."""
        if min_relevance == DEFAULT_MIN_RELEVANCE and not self.engine.semantic.enabled(self.uow.projection):
            return 0.0
        return min_relevance

    @overload
    def _noted(self, result: SearchResult) -> NotedSearchResult: ...
    @overload
    def _noted(self, result: AssociateResult) -> NotedAssociateResult: ...

    def _noted(self, result: SearchResult | AssociateResult) -> NotedSearchResult | NotedAssociateResult:
        """``result`` with the notes of every memory it shows: one read, in the call that ranked them."""
        if isinstance(result, SearchResult):
            return NotedSearchResult(**_fields(result), notes=self._notes([hit.id for hit in result.hits]))
        return NotedAssociateResult(**_fields(result), notes=self._notes(_shown(result.memories,
                                                                                result.composition)))

    def view(self, project: str | None, kind: str | None, tags: Sequence[str] | None, as_of: Any,
             include_superseded: bool, learned: LearnFilter | None = None) -> VisibilityFilter:
        """The checked visibility filter of a read (it applies before the top-k cut)."""
        if kind is not None:
            check_kind(kind)
        instant = parse_instant("as_of", as_of)
        limits = self.settings.limits
        view = VisibilityFilter(
            project=project, kinds=(kind,) if kind else (),
            tags=check_strings("tags", tags, limits.max_tags, limits.max_tag_chars),
            as_of_ms=None if instant is None else to_ms(instant), include_superseded=include_superseded)
        return learned.narrow(view) if learned is not None else view

    def check_query(self, query: str) -> str:
        """The query, required, bounded and stripped."""
        return (check_text("query", query, self.settings.limits.max_query_chars, required=True) or "").strip()

    # -- steps ----------------------------------------------------------------------------------
    def _search_hits(self, query: str, activation: Activation, fused: list[Fused], page: list[Fused],
                     offset: int, now: int) -> tuple[SearchHit, ...]:
        """The page's hits with their relevance and lifecycle fields (status, decay score, review candidate);
        the pages before it count in its running minimum, so relevance never rises from one page to the next
        either."""
        nodes = [node for node, *_ in page]
        found = self.engine.hits(activation, nodes)
        states = annotate(self.uow.projection, self.settings.decay, self.decay, nodes, now)
        position = {entry[0]: rank for rank, entry in enumerate(fused, start=1)}
        top = fused[0][1] if fused else 0.0
        listed = [*fused[:offset], *page]
        proofs = self._evidence(query, activation, [(node, position[node], score) for node, score, *_ in listed],
                                top)
        shown, proofs = calibrated("search", proofs)[offset:], proofs[offset:]
        return tuple(SearchHit(id=h.id, score=round(score, 6), kind=h.type, content=h.content, project=h.project,
                               bm25_rank=rank_b, activation_rank=rank_a, created_at=h.created_at,
                               topic_key=h.topic_key, tags=h.tags, concepts=h.concepts, status=status,
                               decay_score=decay_score, review_candidate=candidate, relevance=relevance,
                               evidence=proof)
                     for h, (_, score, rank_b, rank_a), (status, decay_score, candidate), relevance, proof
                     in zip(found, page, states, shown, proofs, strict=True))

    def _evidence(self, query: str, activation: Activation, ranked: list[tuple[int, int, float]],
                  top: float) -> list[Evidence]:
        """The relevance evidence of ``(node, rank, key)`` entries (recall/relevance.py)."""
        projection = self.uow.projection
        with projection.lock:
            return evidence(projection, self.engine.semantic, query, activation.query_concepts,
                            {seed.name: seed.weight for seed in activation.seeds}, activation.scope_size, ranked, top)

    def _with_relevance(self, query: str, activation: Activation, hits: Sequence[MemoryHit],
                        nodes: Sequence[int]) -> tuple[MemoryHit, ...]:
        """Associate's hits with their relevance, from their place in ``activation.ranked``."""
        key_of = activation.key_of()
        position = {node: rank for rank, (node, _) in enumerate(activation.ranked, start=1)}
        top = key_of[activation.ranked[0][0]] if activation.ranked else 0.0
        ordered = sorted(zip(nodes, hits, strict=True), key=lambda pair: position[pair[0]])
        proofs = self._evidence(query, activation, [(node, position[node], key_of[node]) for node, _ in ordered],
                                top)
        relevant = {hit.id: dataclasses.replace(hit, relevance=relevance, evidence=proof)
                    for (_, hit), relevance, proof in zip(ordered, calibrated("associate", proofs), proofs,
                                                          strict=True)}
        return tuple(relevant[hit.id] for hit in hits)

    def _associated(self, query: str, mode: str, view: VisibilityFilter, max_results: int, min_coverage: float,
                    matched: tuple[SkillHit, ...], min_relevance: float) -> AssociateResult:
        # Composition picks from a deeper ranking than it shows: the cover needs candidates to choose from.
        depth = max_results if mode == "recall" else max(50, 5 * max_results)
        now = self.clock.now_ms()
        activation = self.engine.recall_ranking(query, self.engine.activate(query, view, now, depth), view, now,
                                                depth)
        composition = None
        if mode == "composition":
            composition = build_composition(self.engine, activation, min_coverage=min_coverage,
                                            max_sources=max_results)
            with self.uow.projection.lock:
                nodes = [self.uow.projection.memory_nodes[source.id] for source in composition.sources]
            composition = dataclasses.replace(composition, sources=self._with_relevance(
                query, activation, composition.sources, nodes))
        nodes = [node for node, _ in activation.ranked[:max_results]]
        memories = self._with_relevance(query, activation, self.engine.hits(activation, nodes), nodes)
        if mode == "recall":
            memories = tuple(memory for memory in memories if memory.relevance >= self._cut(min_relevance))
        return AssociateResult(
            query_concepts=activation.query_concepts, seed_nodes=activation.seeds,
            unmatched_concepts=activation.unmatched, activated_count=activation.activated_count,
            memories=memories, composition=composition, mode=mode, skills=matched)

    def _notes(self, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        return {memory_id: tuple(found) for memory_id, found in recall_notes(self.uow.repository, ids).items()}


def _fields(result: SearchResult | AssociateResult) -> dict[str, Any]:
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}


def _shown(memories: Sequence[MemoryHit], composition: CompositionResult | None) -> list[str]:
    """The memories an answer shows: the ranked ones, or in composition mode the chosen sources."""
    shown = memories if composition is None else composition.sources
    return [m.id for m in shown]

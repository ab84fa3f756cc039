"""Composition mode: needed concepts → greedy cover → conflicts → integration plan."""

from __future__ import annotations

from graphmem.core.composition import Candidate, compose
from graphmem.core.conflicts import detect_conflict, pair_key
from graphmem.core.relations import RELATION_TYPES
from graphmem.core.values import Memory
from graphmem.service.recall.engine import Activation, RecallEngine
from graphmem.service.recall.results import CompositionResult, ConflictReport, MemoryHit, PlanStepResult
from graphmem.service.relations.conflicts import claim_texts, specificity_of

__all__ = ["build_composition"]

# Candidates considered for the cover: the best-activated memories. Fifty covers every needed
# concept on the sample corpus and the eval sets while keeping the greedy loop under a millisecond.
_CANDIDATE_POOL = 50


def build_composition(engine: RecallEngine, activation: Activation, *, min_coverage: float,
                      max_sources: int) -> CompositionResult:
    """Cover the query's needs with the fewest, best-activated memories and report what is missing."""
    needed = {seed.name: seed.weight for seed in activation.seeds}
    if activation.unmatched:
        # An unmatched concept is a need no memory can meet; weight it like the most specific seed so
        # coverage is never overstated by dropping it.
        gap_weight = max(needed.values(), default=1.0)
        needed.update(dict.fromkeys(activation.unmatched, gap_weight))
    pool = [node for node, _ in activation.ranked[: max(_CANDIDATE_POOL, 5 * max_sources)]]
    score_of = dict(activation.ranked)
    candidates = [Candidate(str(node), score_of[node], frozenset(engine.concept_names(node)) & needed.keys())
                  for node in pool]
    cover = compose(needed, candidates, min_coverage=min_coverage, max_sources=max_sources)
    sources = tuple(engine.hits(activation, [int(node) for node in cover.sources]))
    hits = dict(zip(cover.sources, sources, strict=True))
    plan = tuple(PlanStepResult(order=step.order, memory_id=hits[step.memory_id].id, supplies=step.supplies,
                                also_covers=step.also_covers, why=step.why) for step in cover.plan)
    return CompositionResult(
        sources=sources, coverage_percent=round(100 * cover.coverage, 1), min_coverage=min_coverage,
        coverage_met=cover.coverage_met, covered=cover.covered, gaps=cover.gaps,
        conflicts=tuple(find_conflicts(engine, sources)), integration_plan=plan, stop_reason=cover.stop_reason)


def find_conflicts(engine: RecallEngine, sources: tuple[MemoryHit, ...]) -> list[ConflictReport]:
    """Conflicts among the chosen sources: contradicting relations, one topic key with two claims, and
    contradictions detected in the text of sources no relation links yet. Each says which side is newer
    and, once judged, which is stronger."""
    ids = [hit.id for hit in sources]
    memories = engine.repository.memories_by_id(ids)
    reports: list[ConflictReport] = []
    chosen = set(ids)
    relations = engine.repository.relations_touching(ids)
    for relation in relations:
        semantics = RELATION_TYPES.get(relation.type)
        if (semantics is None or semantics.recall != "surface_conflict" or relation.status == "ignored"
                or relation.source_id not in chosen or relation.target_id not in chosen):
            continue
        pair = (relation.source_id, relation.target_id)
        reports.append(ConflictReport(
            memory_ids=pair, reason=relation.reason or f"{relation.type} relation ({relation.status})",
            relation_id=relation.id, relation_type=relation.type, newer_id=_newer(memories, pair),
            stronger_id=relation.meta.get("stronger_id") if relation.status == "judged" else None))
    by_topic: dict[str, str] = {}
    for memory_id in ids:
        topic = memories[memory_id].topic_key
        if topic and topic in by_topic:
            pair = (by_topic[topic], memory_id)
            reports.append(ConflictReport(
                memory_ids=pair, reason=f"both claim topic_key {topic!r} with different content",
                relation_id=None, relation_type=None, newer_id=_newer(memories, pair)))
        elif topic:
            by_topic[topic] = memory_id
    linked = {pair_key(r.source_id, r.target_id) for r in relations}
    linked |= {pair_key(*report.memory_ids) for report in reports}
    return reports + _detected(engine, [memories[i] for i in ids], linked)


def _detected(engine: RecallEngine, memories: list[Memory],
              linked: set[tuple[str, str]]) -> list[ConflictReport]:
    """Pairs of sources whose text disagrees (core conflict detection), unless a relation links them."""
    claims = claim_texts(engine.extractor, memories)
    reports = []
    for index, first in enumerate(memories):
        for second in memories[index + 1 :]:
            if pair_key(first.id, second.id) in linked:
                continue
            a, b = claims[first.id], claims[second.id]
            shared = a.concepts.keys() & b.concepts.keys()
            found = detect_conflict(a, b, specificity_of(engine.projection, shared))
            if found is not None:
                reports.append(ConflictReport(
                    memory_ids=(first.id, second.id), reason=f"detected ({found.kind}): {found.reason}",
                    relation_id=None, relation_type=None, newer_id=found.newer_id))
    return reports


def _newer(memories: dict[str, Memory], pair: tuple[str, str]) -> str:
    first, second = (memories[pair[0]], memories[pair[1]])
    return first.id if first.created_at > second.created_at else second.id

"""Composition mode: needed concepts → greedy cover → conflicts → integration plan."""

from __future__ import annotations

from graphmem.core.composition import Candidate, compose, needs_of
from graphmem.core.conflicts import detect_conflict, pair_key, strongest_pairs
from graphmem.core.relations import RELATION_TYPES
from graphmem.core.values import Memory
from graphmem.service.recall.engine import Activation, RecallEngine
from graphmem.service.recall.results import CompositionResult, ConflictReport, CoveredBy, MemoryHit, PlanStepResult
from graphmem.service.recall.semantic import synonym_cover
from graphmem.service.relations.claims import cached_claims
from graphmem.service.relations.conflicts import specificity_of

__all__ = ["build_composition"]

# Candidates considered for the cover: the best-activated memories. Fifty covers every needed
# concept on the sample corpus and the eval sets while keeping the greedy loop under a millisecond.
_CANDIDATE_POOL = 50


def build_composition(engine: RecallEngine, activation: Activation, *, min_coverage: float,
                      max_sources: int) -> CompositionResult:
    """Cover the query's needs with the fewest, best-activated memories and report what is missing."""
    # Seeds carry their specificity within the filter's memories (RecallEngine._scoped).
    needed = needs_of({seed.name: seed.weight for seed in activation.seeds}, activation.unmatched)
    pool = [node for node, _ in activation.ranked[: max(_CANDIDATE_POOL, 5 * max_sources)]]
    score_of = dict(activation.ranked)
    names = {node: frozenset(engine.concept_names(node)) for node, _ in activation.ranked}
    with engine.projection.lock:
        synonyms = synonym_cover(engine.projection, list(needed), {node: names[node] for node in pool},
                                 engine.settings.semantic.cover_threshold)
    candidates = [Candidate(str(node), score_of[node], (names[node] | synonyms.get(node, {}).keys()) & needed.keys())
                  for node in pool]
    cover = compose(needed, candidates, min_coverage=min_coverage, max_sources=max_sources)
    sources = tuple(engine.hits(activation, [int(node) for node in cover.sources]))
    hits = dict(zip(cover.sources, sources, strict=True))
    covered_by = tuple(CoveredBy(need, *synonyms[int(step.memory_id)][need][:1], hits[step.memory_id].id,
                                 synonyms[int(step.memory_id)][need][1])
                       for step in cover.plan for need in step.supplies
                       if need in synonyms.get(int(step.memory_id), {}))
    plan = tuple(PlanStepResult(order=step.order, memory_id=hits[step.memory_id].id, supplies=step.supplies,
                                also_covers=step.also_covers, why=step.why) for step in cover.plan)
    return CompositionResult(
        sources=sources, coverage_percent=round(100 * cover.coverage, 1), min_coverage=min_coverage,
        coverage_met=cover.coverage_met, covered=cover.covered, gaps=cover.gaps,
        conflicts=tuple(find_conflicts(engine, activation, sources, names)), integration_plan=plan,
        stop_reason=cover.stop_reason, covered_by=covered_by)


def find_conflicts(engine: RecallEngine, activation: Activation, sources: tuple[MemoryHit, ...],
                   concept_names: dict[int, frozenset[str]]) -> list[ConflictReport]:
    """Conflicts of the chosen sources, among themselves and with any memory the query activated: contradicting
    relations, one topic key with two claims, and contradictions detected in the text of pairs no relation links
    yet. A source contradicted by an activated memory the cover left out is reported too (``in_selection``
    false), with that memory's id second. Each says which side is newer and, once judged, which is stronger."""
    ids = [hit.id for hit in sources]
    chosen = set(ids)
    names = engine.projection.names
    nodes = {names[node]: node for node, _ in activation.ranked}
    others = [memory_id for memory_id in nodes if memory_id not in chosen]
    memories = engine.repository.memories_by_id([*ids, *others])
    reports: list[ConflictReport] = []
    relations = engine.repository.relations_touching(ids)
    for relation in relations:
        semantics = RELATION_TYPES.get(relation.type)
        if semantics is None or semantics.recall != "surface_conflict" or relation.status == "ignored":
            continue
        pair = (relation.source_id, relation.target_id)
        if not set(pair) <= memories.keys():
            continue  # the other side is not among what the query activated
        inside = set(pair) <= chosen
        if not inside and pair[0] not in chosen:
            pair = (pair[1], pair[0])  # the chosen source first
        reports.append(ConflictReport(
            memory_ids=pair, reason=relation.reason or f"{relation.type} relation ({relation.status})",
            relation_id=relation.id, relation_type=relation.type, newer_id=_newer(memories, pair),
            stronger_id=relation.meta.get("stronger_id") if relation.status == "judged" else None,
            in_selection=inside))
    linked = {pair_key(r.source_id, r.target_id) for r in relations}
    pairs = [(a, b) for index, a in enumerate(ids) for b in [*ids[index + 1 :], *others]
             if pair_key(a, b) not in linked]
    for a, b in pairs:
        topic = memories[a].topic_key
        if topic and topic == memories[b].topic_key:
            reports.append(ConflictReport(
                memory_ids=(a, b), reason=f"both claim topic_key {topic!r} with different content",
                relation_id=None, relation_type=None, newer_id=_newer(memories, (a, b)), in_selection=b in chosen))
            linked.add(pair_key(a, b))
    # Only pairs sharing a specific concept can disagree (core.conflicts): the rest are never parsed.
    specific = specificity_of(engine.projection, frozenset().union(*concept_names.values()))
    concepts = {memory_id: concept_names[node] & specific.keys() for memory_id, node in nodes.items()}
    # Two projects may use one word for different things ("port", "checkout"): a memory outside the selection
    # is compared with a source of its own project only, as the conflict scan does by default.
    candidates = [(a, b) for a, b in pairs if pair_key(a, b) not in linked and concepts[a] & concepts[b]
                  and (b in chosen or memories[a].project == memories[b].project)]
    # Bounded work (issue 25): the strongest MAX_PAIRS pairs, each memory's claims parsed once (cached).
    reports += _detected(engine, memories, strongest_pairs(candidates, concepts, specific), chosen, specific)
    return sorted(reports, key=lambda report: not report.in_selection)


def _detected(engine: RecallEngine, memories: dict[str, Memory], pairs: list[tuple[str, str]],
              chosen: set[str], specific: dict[str, float]) -> list[ConflictReport]:
    """Pairs whose text disagrees (core conflict detection); each memory is parsed once."""
    involved = list(dict.fromkeys(memory_id for pair in pairs for memory_id in pair))
    claims = cached_claims(engine.extractor, [memories[i] for i in involved])
    reports = []
    for first, second in pairs:
        a, b = claims[first], claims[second]
        found = detect_conflict(a, b, specific)
        if found is not None:
            reports.append(ConflictReport(
                memory_ids=(first, second), reason=f"detected ({found.kind}, {found.score:.2f}): {found.reason}",
                relation_id=None, relation_type=None, newer_id=found.newer_id, in_selection=second in chosen))
    return reports


def _newer(memories: dict[str, Memory], pair: tuple[str, str]) -> str:
    first, second = (memories[pair[0]], memories[pair[1]])
    return first.id if first.created_at > second.created_at else second.id

"""Composition mode: needed concepts → greedy cover → conflicts → integration plan.

Every step is bounded whatever the query and the store hold (issue 25: a 10,000-character query on a store
of maximal memories took about 9 s): at most ``MAX_NEEDS`` needs (the most specific), ``MAX_POOL``
candidates for the cover, ``MAX_OTHERS`` activated memories checked against the sources, each memory's
``SALIENT_CONCEPTS`` most salient concepts for the shared-concept test, ``MAX_TEXT_PAIRS`` pairs whose
text is compared, and ``CONFLICT_SECONDS`` for that comparison. A cap that cut something says so in
``CompositionResult.truncated``; a cancelled call stops at the next pair (service/cancellation.py).
"""

from __future__ import annotations

import heapq
import time

from graphmem.core.composition import Candidate, compose, needs_of
from graphmem.core.conflicts import detect_conflict, pair_key, strongest_pairs
from graphmem.core.relations import RELATION_TYPES
from graphmem.core.values import Memory, Relation
from graphmem.service.cancellation import checkpoint
from graphmem.service.recall.engine import Activation, RecallEngine
from graphmem.service.recall.results import CompositionResult, ConflictReport, CoveredBy, MemoryHit, PlanStepResult
from graphmem.service.recall.semantic import synonym_cover
from graphmem.service.relations.claims import cached_claims
from graphmem.service.relations.conflicts import specificity_of

__all__ = ["CONFLICT_SECONDS", "MAX_NEEDS", "MAX_OTHERS", "MAX_POOL", "MAX_TEXT_PAIRS", "SALIENT_CONCEPTS",
           "build_composition", "find_conflicts"]

# Candidates considered for the cover: the best-activated memories. Fifty covers every needed
# concept on the sample corpus and the eval sets while keeping the greedy loop under a millisecond.
_CANDIDATE_POOL = 50
MAX_POOL = 200  # 5 × max_sources, but never more (max_results 100 asked for 500)
MAX_NEEDS = 64  # the most specific needs of the query; a 10,000-character query has about 1,500
MAX_OTHERS = 50  # activated memories, best first, checked for a disagreement with a chosen source
SALIENT_CONCEPTS = 256  # a memory's concepts (by mention weight) in the shared-concept test; a normal one has 10-40
MAX_TEXT_PAIRS = 64  # pairs whose text is compared (core.conflicts.MAX_PAIRS is the scan's 200)
CONFLICT_SECONDS = 2.0  # the text comparison stops after this, saying how many pairs it compared


def build_composition(engine: RecallEngine, activation: Activation, *, min_coverage: float,
                      max_sources: int) -> CompositionResult:
    """Cover the query's needs with the fewest, best-activated memories and report what is missing."""
    truncated: list[str] = []
    # Seeds carry their specificity within the filter's memories (RecallEngine._scoped).
    needed = needs_of({seed.name: seed.weight for seed in activation.seeds}, activation.unmatched)
    if len(needed) > MAX_NEEDS:
        truncated.append(f"needs: the {MAX_NEEDS} most specific of {len(needed)} query concepts")
        needed = dict(heapq.nlargest(MAX_NEEDS, needed.items(), key=lambda item: item[1]))
    depth = min(max(_CANDIDATE_POOL, 5 * max_sources), MAX_POOL)
    pool = [node for node, _ in activation.ranked[:depth]]
    if len(activation.ranked) > depth and 5 * max_sources > MAX_POOL:
        truncated.append(f"candidates: the {MAX_POOL} best-activated memories")
    score_of = dict(activation.ranked)
    names = {node: frozenset(engine.concept_names(node)) for node in pool}
    checkpoint()
    with engine.projection.lock:
        synonyms = synonym_cover(engine.projection, list(needed), names, engine.settings.semantic.cover_threshold)
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
    conflicts = find_conflicts(engine, activation, sources, truncated)
    return CompositionResult(
        sources=sources, coverage_percent=round(100 * cover.coverage, 1), min_coverage=min_coverage,
        coverage_met=cover.coverage_met, covered=cover.covered, gaps=cover.gaps,
        conflicts=tuple(conflicts), integration_plan=plan,
        stop_reason=cover.stop_reason, covered_by=covered_by, truncated=tuple(truncated))


def find_conflicts(engine: RecallEngine, activation: Activation, sources: tuple[MemoryHit, ...],
                   truncated: list[str] | None = None) -> list[ConflictReport]:
    """Conflicts of the chosen sources, among themselves and with the best-activated memories: contradicting
    relations, one topic key with two claims, and contradictions detected in the text of pairs no relation links
    yet. A source contradicted by an activated memory the cover left out is reported too (``in_selection``
    false), with that memory's id second. Each says which side is newer and, once judged, which is stronger.
    What a cap cut is added to ``truncated``."""
    notes = truncated if truncated is not None else []
    ids = [hit.id for hit in sources]
    chosen = set(ids)
    names = engine.projection.names
    nodes = {names[node]: node for node, _ in activation.ranked if names[node] in chosen}
    others = [names[node] for node, _ in activation.ranked if names[node] not in chosen]
    if len(others) > MAX_OTHERS:
        notes.append(f"conflicts: checked against the {MAX_OTHERS} best-activated of {len(others)} other memories")
        others = others[:MAX_OTHERS]
    kept = set(others)
    nodes.update((memory_id, node) for node, _ in activation.ranked if (memory_id := names[node]) in kept)
    memories = engine.repository.memories_by_id([*ids, *others])
    relations = engine.repository.relations_touching(ids)
    reports = _relation_conflicts(relations, memories, chosen)
    linked = {pair_key(r.source_id, r.target_id) for r in relations}
    pairs = [(a, b) for index, a in enumerate(ids) for b in [*ids[index + 1 :], *others]
             if pair_key(a, b) not in linked and a in memories and b in memories]
    reports += _topic_conflicts(pairs, memories, chosen, linked)
    checkpoint()
    reports += _text_conflicts(engine, memories, nodes, [p for p in pairs if pair_key(*p) not in linked], chosen,
                               notes)
    return sorted(reports, key=lambda report: not report.in_selection)


def _relation_conflicts(relations: list[Relation], memories: dict[str, Memory],
                        chosen: set[str]) -> list[ConflictReport]:
    """Contradicting relations between a source and a memory the query activated, the source first."""
    reports = []
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
    return reports


def _topic_conflicts(pairs: list[tuple[str, str]], memories: dict[str, Memory], chosen: set[str],
                     linked: set[tuple[str, str]]) -> list[ConflictReport]:
    """Pairs that claim one topic key with different content (each is then ``linked``)."""
    reports = []
    for a, b in pairs:
        topic = memories[a].topic_key
        if topic and topic == memories[b].topic_key:
            reports.append(ConflictReport(
                memory_ids=(a, b), reason=f"both claim topic_key {topic!r} with different content",
                relation_id=None, relation_type=None, newer_id=_newer(memories, (a, b)), in_selection=b in chosen))
            linked.add(pair_key(a, b))
    return reports


def _text_conflicts(engine: RecallEngine, memories: dict[str, Memory], nodes: dict[str, int],
                    pairs: list[tuple[str, str]], chosen: set[str], notes: list[str]) -> list[ConflictReport]:
    """Contradictions detected in the text of the strongest pairs sharing a specific concept."""
    concepts = {memory_id: _salient(engine, node) for memory_id, node in nodes.items()}
    # Only pairs sharing a specific concept can disagree (core.conflicts): the rest are never parsed.
    specific = specificity_of(engine.projection, frozenset().union(*concepts.values()))
    concepts = {memory_id: names & specific.keys() for memory_id, names in concepts.items()}
    # Two projects may use one word for different things ("port", "checkout"): a memory outside the selection
    # is compared with a source of its own project only, as the conflict scan does by default.
    candidates = [(a, b) for a, b in pairs if concepts.get(a, frozenset()) & concepts.get(b, frozenset())
                  and (b in chosen or memories[a].project == memories[b].project)]
    strongest = strongest_pairs(candidates, concepts, specific, limit=MAX_TEXT_PAIRS)
    if len(candidates) > len(strongest):
        notes.append(f"conflicts: the text of the {len(strongest)} strongest of {len(candidates)} pairs compared")
    return _detected(engine, memories, strongest, chosen, specific, notes)


def _salient(engine: RecallEngine, node: int) -> frozenset[str]:
    """The names of a memory's ``SALIENT_CONCEPTS`` most salient concepts (all of a normal memory's)."""
    projection = engine.projection
    with projection.lock:
        mentioned = projection.concepts_of(node)
        if len(mentioned) > SALIENT_CONCEPTS:
            mentioned = heapq.nlargest(SALIENT_CONCEPTS, mentioned, key=lambda item: item[1])
        return frozenset(projection.names[concept] for concept, _ in mentioned)


def _detected(engine: RecallEngine, memories: dict[str, Memory], pairs: list[tuple[str, str]],
              chosen: set[str], specific: dict[str, float], notes: list[str]) -> list[ConflictReport]:
    """Pairs whose text disagrees (core conflict detection); each memory is parsed once, and the comparison
    stops after ``CONFLICT_SECONDS``."""
    involved = list(dict.fromkeys(memory_id for pair in pairs for memory_id in pair))
    claims = cached_claims(engine.extractor, [memories[i] for i in involved])
    reports = []
    stop = time.monotonic() + CONFLICT_SECONDS
    for compared, (first, second) in enumerate(pairs):
        checkpoint()
        if time.monotonic() > stop:
            notes.append(f"conflicts: stopped after {compared} of {len(pairs)} pairs ({CONFLICT_SECONDS:g} s)")
            break
        found = detect_conflict(claims[first], claims[second], specific)
        if found is not None:
            reports.append(ConflictReport(
                memory_ids=(first, second), reason=f"detected ({found.kind}, {found.score:.2f}): {found.reason}",
                relation_id=None, relation_type=None, newer_id=found.newer_id, in_selection=second in chosen))
    return reports


def _newer(memories: dict[str, Memory], pair: tuple[str, str]) -> str:
    first, second = (memories[pair[0]], memories[pair[1]])
    return first.id if first.created_at > second.created_at else second.id

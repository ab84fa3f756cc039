"""Recall by meaning: a context that shares no keyword finds its memory; keyword queries keep their ranking."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import MemoryService, Settings
from nlp import ConceptExtractor

MEMORIES = [
    "Bart felt nervous before the speech contest, and it went well in the end",
    "The invoice total is computed from the line items after the discount",
    "Lisa repaired the bicycle chain with her father on Sunday",
    "The cache is warmed by a cron job every five minutes",
    "Roll back a bad release with the deploy script and check the health endpoint",
    "Tom planted tomatoes and basil in the school garden",
]
# A conversation's context: the worry is in other words, and almost nothing is shared with the memory.
CONTEXT = "I am scared and worried before giving my presentation"


def _filled(settings: Settings, extractor: ConceptExtractor, **semantic: object) -> MemoryService:
    service = MemoryService(settings.model_copy(update={"semantic": settings.semantic.model_copy(update=semantic)}),
                            extractor=extractor)
    service.store_many([{"content": text} for text in MEMORIES])
    return service


def test_a_context_in_other_words_finds_the_memory_by_meaning(service: MemoryService):
    service.store_many([{"content": text} for text in MEMORIES])
    assert "nervous" in service.search(CONTEXT, limit=2).hits[0].content
    assert "nervous" in service.associate(CONTEXT, max_results=2).memories[0].content


def test_without_the_semantic_leg_the_same_context_misses(settings: Settings, extractor: ConceptExtractor):
    service = _filled(settings, extractor, enabled=False)
    try:
        assert not any("nervous" in hit.content for hit in service.search(CONTEXT, limit=3).hits)
    finally:
        service.close()


def test_a_concept_written_as_one_word_seeds_its_spaced_form(service: MemoryService):
    service.store_many([{"content": text} for text in MEMORIES])
    result = service.associate("rollback")
    assert [(s.name, s.match) for s in result.seed_nodes] == [("roll", "form")]
    assert result.unmatched_concepts == ()
    assert "Roll back" in result.memories[0].content


def test_forms_of_one_concept_are_joined_in_the_graph(service: MemoryService):
    service.store("The web hook fires on every payment in the code base")
    service.store("The webhook retries for three days; the codebase logs each try")
    service.store("We roll the canary out before the rollout, and roll back with the rollback script")
    projection = service.projection
    for apart, together in (("web hook", "webhook"), ("code base", "codebase")):
        neighbours, _ = projection.graph.neighbors(projection.concept_nodes[apart])
        assert projection.concept_nodes[together] in neighbours.tolist(), (apart, together)
    rollout, _ = projection.graph.neighbors(projection.concept_nodes["rollout"])
    assert projection.concept_nodes["rollback"] not in rollout.tolist(), "a verb's phrasal forms stay apart"
    assert "webhook" in service.associate("web hook").memories[1].content


def test_related_words_get_weighted_edges_both_ways(settings: Settings, extractor: ConceptExtractor):
    service = _filled(settings, extractor, related_k=3, related_threshold=0.5, related_weight=0.5)
    try:
        service.store("I feel anxious about the exam")
        projection = service.projection
        nervous, anxious = projection.concept_nodes["nervous"], projection.concept_nodes["anxious"]
        forward, weights = projection.graph.neighbors(anxious)
        backward, _ = projection.graph.neighbors(nervous)
        assert nervous in forward.tolist() and anxious in backward.tolist()
        assert 0 < weights[forward.tolist().index(nervous)] <= 0.5
    finally:
        service.close()


def _ranking(service: MemoryService, query: str) -> list[tuple[str, float]]:
    return [(hit.content, hit.score) for hit in service.search(query, limit=6).hits]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(MEMORIES) - 1), st.integers(3, 8))
def test_where_the_keywords_cover_the_query_the_ranking_is_the_one_without_meaning(
        settings: Settings, extractor: ConceptExtractor, new_store: Callable[[str], str], which: int, words: int):
    query = " ".join(MEMORIES[which].split()[:words])
    rankings = []
    for enabled, name in ((True, "on.db"), (False, "off.db")):
        store = settings.model_copy(update={"db": new_store(f"{which}-{words}-{name}")})
        service = _filled(store, extractor, enabled=enabled)
        try:
            rankings.append(_ranking(service, query))
        finally:
            service.close()
    assert rankings[0] == rankings[1]


def test_the_semantic_leg_is_off_on_conversation_turns(service: MemoryService):
    turns = [{"content": f"{'Ann' if n % 2 else 'Ben'}: line {n} about {word} (said on 1 May, 2023)", "project": "talk"}
             for n, word in enumerate(["garden", "tomatoes", "basil", "rain", "soil", "seeds"] * 4)]
    service.store_many(turns)
    hits = service.search("Ann: I am so anxious and my hands are shaking tonight", project="talk", limit=5).hits
    assert all(hit.bm25_rank is not None or hit.activation_rank is not None for hit in hits)
    assert np.all(np.diff([hit.score for hit in hits]) <= 0)


def test_composition_counts_a_need_covered_by_a_close_synonym_and_says_by_which(service: MemoryService):
    service.store_many([{"content": text} for text in MEMORIES])
    composition = service.associate("Bart anxious", mode="composition").composition
    assert composition is not None
    assert "anxious" in composition.covered and "anxious" not in composition.gaps
    assert [(c.need, c.concept) for c in composition.covered_by] == [("anxious", "nervous")]
    assert composition.covered_by[0].similarity >= 0.55
    assert "nervous" in composition.sources[0].content


def test_without_meaning_the_synonym_stays_a_gap(settings: Settings, extractor: ConceptExtractor):
    service = _filled(settings, extractor, cover_threshold=1.0)
    try:
        composition = service.associate("Bart anxious", mode="composition").composition
        assert composition is not None and "anxious" in composition.gaps and composition.covered_by == ()
    finally:
        service.close()


def test_without_the_semantic_index_the_default_relevance_cut_drops_nothing(
        settings: Settings, extractor: ConceptExtractor, service: MemoryService, new_store: Callable[[str], str]):
    from graphmem.service.recall.relevance import DEFAULT_MIN_RELEVANCE

    # Relevance is calibrated with the cosine as evidence: without it the default cut measured a loss.
    assert service.recall_service._cut(DEFAULT_MIN_RELEVANCE) == DEFAULT_MIN_RELEVANCE
    plain = _filled(settings.model_copy(update={"db": new_store("plain.db")}), extractor, enabled=False)
    try:
        assert plain.recall_service._cut(DEFAULT_MIN_RELEVANCE) == 0.0
        assert plain.recall_service._cut(0.3) == 0.3  # a threshold the caller names still applies
        assert plain.search("the cache warmed by cron", limit=6, min_relevance=0.99).hits == ()
    finally:
        plain.close()


PEOPLE = ["Bart was anxious the night before the speech contest at school",
          "Lisa was uneasy before her first swimming lesson",
          "The invoice total is computed from the line items after the discount",
          "Tom planted tomatoes and basil in the school garden",
          "Lisa baked a lemon cake with her grandmother",
          "Bart repaired the bicycle chain with his father"]
# A dialogue's context: the speaker's tag names whose memories matter; the words are shared with none.
DIALOGUE = '<Lisa>: "I have to give a talk in class tomorrow and I am terrified." <Assistant>: "That sounds stressful."'


@pytest.mark.parametrize(("name_weight", "lisas_first"), [(0.2, True), (0.0, False)])
def test_where_meaning_decides_the_named_persons_memories_come_first(
        settings: Settings, extractor: ConceptExtractor, name_weight: float, lisas_first: bool):
    service = MemoryService(settings.model_copy(update={"semantic": settings.semantic.model_copy(
        update={"name_weight": name_weight})}), extractor=extractor)
    try:
        service.store_many([{"content": text} for text in PEOPLE])
        for ranked in ([hit.content for hit in service.search(DIALOGUE, limit=3).hits],
                       [memory.content for memory in service.associate(DIALOGUE, max_results=3).memories]):
            assert ranked[0].startswith("Lisa was uneasy")  # by meaning, with or without names
            assert all(text.startswith("Lisa") for text in ranked[:2]) is lisas_first
    finally:
        service.close()

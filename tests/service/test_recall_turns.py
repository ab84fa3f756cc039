"""Conversation turns: recognized by their shape, ranked with their neighbours and their speaker."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from graphmem import MemoryService, Settings
from graphmem.service.recall.turns import named_speakers, speaker_of_text
from nlp import ConceptExtractor

FILLER = ["the weather was nice", "we watched a film", "my cat slept all day", "I cooked pasta tonight",
          "the train was late again", "we walked by the river", "I read a novel", "the shop was closed",
          "my sister called me", "I cleaned the kitchen", "we played cards", "the garden needs water"]


@pytest.mark.parametrize(("text", "speaker"), [
    ("Caroline: I went to a support group.", "caroline"),
    ("Dr. Ann Lee: take two a day", "dr. ann lee"),
    ("user: hello", "user"),
    ("1:56 pm on 8 May, 2023", ""),
    ("https://example.com is down", ""),
    ("No speaker prefix here: just a colon later", ""),
])
def test_speaker_prefix(text: str, speaker: str) -> None:
    assert speaker_of_text(text) == speaker


def test_named_speakers_are_whole_words() -> None:
    assert named_speakers("What did Caroline say?", {"caroline", "mel"}) == {"caroline"}
    assert named_speakers("What did Melanie say?", {"caroline", "mel"}) == set()


def _turns(service: MemoryService, project: str, lines: list[str]) -> None:
    service.store_many([{"content": f"{'Alice' if i % 2 == 0 else 'Bruno'}: {line} (said on 8 May, 2023)",
                         "project": project} for i, line in enumerate(lines)])


def test_a_conversation_is_recognized_and_documents_are_not(service: MemoryService) -> None:
    _turns(service, "talk", FILLER * 2)
    service.store_many([{"content": f"Report {n}\nThe quarterly {line} and the numbers were reviewed by the "
                                    f"finance team in detail, with many other words around them.", "project": "docs"}
                        for n, line in enumerate(FILLER)])
    service.store_many([{"content": f"Key{n}: value {line}", "project": "notes"} for n, line in enumerate(FILLER)])
    service.uow.fresh()  # as every read does before it activates: the stores' queued effects applied
    assert service.recall.activate("pasta", _view(service, "talk"), 0, 10).conversational
    assert not service.recall.activate("pasta", _view(service, "docs"), 0, 10).conversational
    assert not service.recall.activate("pasta", _view(service, "notes"), 0, 10).conversational


def _view(service: MemoryService, project: str):  # the service's own filter type
    return service.recall_service.view(project, None, None, None, False)


def test_the_answer_in_the_next_turn_is_found(service: MemoryService) -> None:
    lines = list(FILLER)
    lines[4:4] = ["what instrument are you learning these days?", "the cello, lessons every Tuesday"]
    _turns(service, "talk", lines)
    hits = service.search("which instrument are you learning?", project="talk", limit=5).hits
    answer = [hit for hit in hits if "cello" in hit.content]  # shares no word with the question
    assert answer and answer[0].bm25_rank is not None  # reached through the keyword leg's neighbour share


def test_the_named_speakers_turn_comes_first(service: MemoryService) -> None:
    lines = list(FILLER)
    lines[2:2] = ["I adopted a puppy from the shelter", "I adopted a puppy from the shelter too"]  # Alice, Bruno
    _turns(service, "talk", lines)
    hits = service.search("Did Bruno adopt a puppy?", project="talk", limit=3).hits
    assert hits[0].content.startswith("Bruno: I adopted a puppy")
    recall = service.associate("Did Bruno adopt a puppy?", project="talk", max_results=3).memories
    assert recall[0].content.startswith("Bruno: I adopted a puppy")


def test_a_cached_filter_scope_follows_writes(service: MemoryService) -> None:
    """Per-filter scopes are reused between queries; after a write the results equal a cold engine's."""
    from graphmem.service.recall.engine import _ScopeCache

    _turns(service, "talk", FILLER * 2)
    _turns(service, "other", [f"{line} near the harbour" for line in FILLER])

    def both() -> tuple[list[tuple[str, float, tuple[str, ...]]], list[tuple[str, float, tuple[str, ...]]]]:
        searched = service.search("cat pasta harbour", project="talk")
        recalled = service.associate("cat pasta harbour", project="talk")
        return ([(h.id, h.score, h.concepts) for h in searched.hits],
                [(m.id, m.activation_score, m.concepts) for m in recalled.memories])

    first = both()
    assert both() == first  # served from the cached scope
    _turns(service, "talk", ["my cat found the pasta by the harbour", "the cat liked the harbour"])
    warm = both()
    service.recall._scopes = _ScopeCache()
    assert both() == warm
    assert warm != first


def test_a_named_speakers_name_is_a_speaker_cue_not_a_keyword(service: MemoryService, monkeypatch) -> None:
    """The name would match every turn of its speaker (the ``Name:`` prefix) and the other speaker's turns
    that address them: it weighs the speaker's turns instead of joining the full-text match."""
    _turns(service, "talk", FILLER * 2)
    asked: list[set[str]] = []
    index = service.projection.keywords
    rank = index.rank

    def spy(words, limit, allowed=None, admitted=None):
        asked.append(set(words))
        return rank(words, limit, allowed, admitted)

    monkeypatch.setattr(index, "rank", spy)
    hits = service.search("What did Bruno say about the pasta?", project="talk", limit=3).hits
    assert "bruno" not in asked[-1] and "pasta" in asked[-1] and hits[0].content.startswith("Bruno:")
    service.search("What did Alice and Bruno say about the pasta?", project="talk")
    assert {"alice", "bruno"} <= asked[-1]  # two speakers named: no speaker cue, the names are words


def _weekend_talk(service: MemoryService) -> None:
    lines = list(FILLER)
    lines[3:3] = ["this weekend I cleaned the garage"]  # shorter: the keywords rank it first
    lines[9:9] = ["this weekend I went to my first kickboxing and karate class"]
    _turns(service, "talk", lines)


@pytest.mark.parametrize("weight", [1.0, 0.0])
def test_a_turn_about_the_question_in_other_words_comes_first_by_centred_meaning(
        settings: Settings, extractor: ConceptExtractor, weight: float) -> None:
    semantic = settings.semantic.model_copy(update={"turn_affinity_weight": weight})
    service = MemoryService(settings.model_copy(update={"semantic": semantic}), extractor=extractor)
    try:
        _weekend_talk(service)
        question = "Which martial arts did they try at the weekend?"  # "weekend" is the only shared word
        first = service.search(question, project="talk", limit=3).hits[0].content
        recalled = service.associate(question, project="talk", max_results=3).memories[0].content
        topic = "kickboxing" if weight > 0 else "garage"  # weight 0: the keyword order stands
        assert topic in first and topic in recalled
    finally:
        service.close()


def test_the_centred_meaning_leaves_a_document_store_as_it_was(settings: Settings, extractor: ConceptExtractor,
                                                               new_store: Callable[[str], str]) -> None:
    rankings = []
    for weight in (1.0, 0.0):
        semantic = settings.semantic.model_copy(update={"turn_affinity_weight": weight})
        store = settings.model_copy(update={"db": new_store(f"docs-{weight}.db"), "semantic": semantic})
        service = MemoryService(store, extractor=extractor)
        try:
            service.store_many([{"content": f"Report {n}\nThe quarterly {line} and the numbers were reviewed by the "
                                            f"finance team in detail, with many other words around them.",
                                 "project": "docs"} for n, line in enumerate(FILLER)])
            hits = service.search("which martial arts did the finance team try?", project="docs", limit=6).hits
            rankings.append([(hit.content, hit.score) for hit in hits])
        finally:
            service.close()
    assert rankings[0] == rankings[1]

"""Search is never worse than keywords: with no activation signal, the fused ranking is the keyword ranking."""

from __future__ import annotations

from graphmem import MemoryService

HOBBIES = ["pottery", "violin", "climbing", "sourdough", "chess", "kayaking", "origami", "gardening",
           "astronomy", "knitting", "surfing", "calligraphy", "beekeeping", "fencing", "archery", "juggling",
           "sailing", "woodwork", "birdwatching", "photography", "skating", "rowing", "tango", "poetry"]


def _conversation(service: MemoryService, project: str) -> None:
    # Every turn names a speaker and a date: both are hubs of the project, nothing else repeats.
    turns = []
    for number, hobby in enumerate(HOBBIES):
        speaker = "Alice" if number % 2 == 0 else "Bruno"
        turns.append({"content": f"{speaker}: I tried {hobby} this week, Bruno and Alice agreed it was fun. "
                                 f"(said on 8 May, 2023)", "project": project})
    service.store_many(turns)


def _assert_keyword_order(service: MemoryService, query: str, project: str) -> None:
    hits = service.search(query, project=project, limit=10).hits
    assert hits, "the keyword leg finds the turns"
    assert all(hit.activation_rank is None for hit in hits)
    assert [hit.bm25_rank for hit in hits] == list(range(1, len(hits) + 1))


def test_hub_only_query_returns_the_keyword_ranking(service: MemoryService) -> None:
    _conversation(service, "talk")
    _conversation(service, "other")
    _assert_keyword_order(service, "What did Alice and Bruno say in May 2023?", "talk")


def test_query_with_concepts_absent_from_the_project_returns_the_keyword_ranking(service: MemoryService) -> None:
    _conversation(service, "talk")
    service.store("Zeppelin hangar maintenance schedule for Alice", project="elsewhere")
    _assert_keyword_order(service, "Alice zeppelin hangar", "talk")


def test_a_specific_concept_still_activates(service: MemoryService) -> None:
    _conversation(service, "talk")
    hits = service.search("When did Alice try pottery?", project="talk", limit=5).hits
    assert "pottery" in hits[0].content
    assert hits[0].activation_rank == 1

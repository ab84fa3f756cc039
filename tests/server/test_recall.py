"""The recall adapter shapes what the search read and reads nothing itself: a result asked without its notes
is refused, never completed by a second read."""

from __future__ import annotations

import json

import pytest

from graphmem.server.recall import associate_out, search_out
from tests.conftest import WEBHOOK


def test_the_adapter_shows_the_notes_the_search_read_and_refuses_a_result_without_them(service):
    original = service.store(WEBHOOK).id
    newer = service.edits.correct(original, WEBHOOK + " (and a retry budget)").created_id
    out = search_out(service.search("webhook idempotency", include_superseded=True, notes=True), "compact")
    assert {hit.id: hit.notes for hit in out.hits}[original] == [f"superseded by {newer}"]
    with pytest.raises(TypeError, match="notes=True"):
        search_out(service.search("webhook idempotency"), "compact")
    with pytest.raises(TypeError, match="notes=True"):
        associate_out(service.associate("webhook idempotency"), "compact")


def _hit(number: int, content: str, concepts: int):
    from graphmem.service.recall.results import SearchHit

    return SearchHit(id=f"mem_{number}", score=1.0 / (number + 3), kind="decision", content=content, project="p",
                     bm25_rank=number, activation_rank=None, created_at="2026-12-02T00:00:00+00:00",
                     topic_key=f"t/{number}", tags=("a", "b"), concepts=tuple(f"c{i}" for i in range(concepts)),
                     decay_score=0.5, review_candidate=number == 1, relevance=0.25 + number / 100)


@pytest.mark.parametrize("detail", ["compact", "full"])
def test_a_search_page_shows_each_hit_as_the_hit_model_reads_it_with_every_cut_named_in_order(detail):
    from graphmem.server.bounds import CONCEPTS_SHOWN, NOTES_SHOWN, Cuts
    from graphmem.server.common import reply
    from graphmem.server.models.recall import SearchHitOut
    from graphmem.service.recall.results import NotedSearchResult

    long = "x" * 5_000
    hits = (_hit(0, "short", 2), _hit(1, long, CONCEPTS_SHOWN + 5), _hit(2, long, 4), _hit(3, "plain", 0))
    notes = {"mem_1": tuple(f"note {i}" for i in range(NOTES_SHOWN + 2)), "mem_3": ("superseded by mem_0",)}
    result = NotedSearchResult(query="q", hits=hits, total_candidates=9, offset=0, limit=10, notes=notes)
    out = search_out(result, detail)
    shown = [hit.model_dump(mode="json") for hit in out.hits]
    cut = Cuts(len(hits)).hit_chars
    for hit, dumped in zip(hits, shown, strict=True):
        whole = SearchHitOut.model_validate(hit).model_dump(mode="json")  # every field the hit model reads
        content = hit.content if len(hit.content) <= cut else hit.content[:cut] + "…"
        expected = {**whole, "content": content, "notes": list(notes.get(hit.id, ()))[:NOTES_SHOWN]}
        if detail == "compact":
            expected = {key: expected[key] for key in ("id", "score", "relevance", "kind", "content", "notes")}
            expected["concepts"] = list(hit.concepts[:3])
        else:
            expected["concepts"] = list(hit.concepts[:CONCEPTS_SHOWN])
        assert dumped == {key: value for key, value in expected.items() if value not in ([], None)}
    # Each cap names itself once, in the order the hits first met it: content, notes, then concepts.
    assert out.truncated == [f"content cut to {cut:,} characters (memory_open reads it whole) (2 cut)",
                             f"notes: at most {NOTES_SHOWN} a hit (1 cut)",
                             *([f"concepts: at most {CONCEPTS_SHOWN} a hit (1 cut)"] if detail == "full" else [])]
    answer = reply(out)
    assert json.loads(answer.content[0].text) == answer.structured_content == out.model_dump(mode="json",
                                                                                            by_alias=True)
    assert "\n" not in answer.content[0].text and ", " not in answer.content[0].text[:20]

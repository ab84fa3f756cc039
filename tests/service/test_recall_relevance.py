"""Relevance: calibrated from the evidence, never rising down a list, the same coverage the gate reads."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import InvalidInput
from graphmem.service.recall.relevance import Evidence, calibrated
from tests.conftest import ORDERS, WEBHOOK

evidence = st.builds(Evidence, rank=st.integers(1, 200), share=st.floats(0, 1), coverage=st.floats(0, 1),
                     cosine=st.floats(0, 1))


@given(st.lists(evidence, max_size=30), st.sampled_from(["search", "associate"]))
def test_relevance_is_a_probability_that_never_rises_down_a_list(found, tool):
    shown = calibrated(tool, found)
    assert all(0.0 <= value <= 1.0 for value in shown)
    assert all(earlier >= later for earlier, later in itertools.pairwise(shown))


def test_more_evidence_is_more_relevant():
    weak, strong = Evidence(1, 1.0, 0.0, 0.05), Evidence(1, 1.0, 1.0, 0.7)
    for tool in ("search", "associate"):
        assert calibrated(tool, [strong])[0] > 0.5
        assert calibrated(tool, [weak])[0] < 0.2


def test_coverage_is_the_share_of_the_query_weight_a_hit_mentions(service):
    service.store(WEBHOOK)
    service.store(ORDERS)
    service.store("Lunch is served at noon in the canteen")
    hits = {hit.content: hit for hit in service.search("webhook idempotency key canteen", min_relevance=0).hits}
    assert hits[WEBHOOK].evidence is not None and hits[ORDERS].evidence is not None
    assert 0 < hits[ORDERS].evidence.coverage < 1 and 0 < hits[WEBHOOK].evidence.coverage < 1
    lunch = hits["Lunch is served at noon in the canteen"].evidence
    assert lunch is not None and 0 < lunch.coverage < hits[WEBHOOK].evidence.coverage + hits[ORDERS].evidence.coverage
    assert [hit.relevance for hit in hits.values()] == sorted((hit.relevance for hit in hits.values()), reverse=True)


def test_a_bad_min_relevance_is_refused_by_the_python_api_too(service):
    for bad in (-0.5, 1.01, True, "0.3"):
        with pytest.raises(InvalidInput, match="min_relevance"):
            service.search("webhook", min_relevance=bad)
        with pytest.raises(InvalidInput, match="min_relevance"):
            service.associate("webhook", min_relevance=bad)


def test_relevance_never_rises_from_one_page_to_the_next(service):
    service.store_many([{"content": f"Webhook retries {n} need an idempotency key, note {n}"} for n in range(12)])
    first = service.search("webhook retries idempotency", limit=4, min_relevance=0).hits
    second = service.search("webhook retries idempotency", limit=4, offset=4, min_relevance=0).hits
    assert first and second and first[-1].relevance >= second[0].relevance
    whole = service.search("webhook retries idempotency", limit=8, min_relevance=0).hits
    assert [hit.relevance for hit in whole] == [hit.relevance for hit in (*first, *second)]

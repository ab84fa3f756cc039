"""Hits an agent can trust, through a real MCP client: the order is the shown score, relevance cuts filler."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import ORDERS, WEBHOOK
from tests.server.test_tools import call

pytestmark = pytest.mark.anyio

BRIDGED = [
    "Mira Okafor leads the billing team and reviews every payment migration",
    "The billing team moved the invoice service to the Frankfurt cluster last spring",
    "The Frankfurt cluster runs Kubernetes 1.29 with three control plane nodes",
    "Kubernetes upgrades need a maintenance window announced a week ahead",
    "Payment migrations are reviewed in the Thursday architecture meeting",
    WEBHOOK,
    ORDERS,
]


def non_increasing(values: list[float]) -> bool:
    return all(earlier >= later for earlier, later in itertools.pairwise(values))


async def store_all(client, texts: list[str]) -> None:
    for text in texts:
        await call(client, "memory_store", content=text)


async def test_associate_memories_are_ordered_by_the_score_they_show(client):
    await store_all(client, BRIDGED)
    result = await call(client, "memory_associate", query="who reviews the migration of the Frankfurt cluster",
                        max_results=7)
    memories = result["memories"]
    assert len(memories) >= 4
    assert non_increasing([m["score"] for m in memories])
    assert non_increasing([m["relevance"] for m in memories])
    assert all(0.0 <= m["relevance"] <= 1.0 for m in memories)


async def test_search_hits_are_ordered_by_their_score_with_review_candidates_blended_in(client, service):
    # Ten fresh memories and three fading ones (in the decay danger zone at different ages): review blending
    # gives three of ten slots to the fading ones, which must still be shown in score order.
    await store_all(client, [f"Webhook retries {n} need an idempotency key on every handler" for n in range(10)])
    now = datetime.now(UTC)
    fading = [("webhook payload signatures and retries", 9), ("webhook retries and idempotency key rotation", 12),
              ("notes about webhook retries", 7)]
    service.store_many([{"content": text, "created_at": (now - timedelta(days=days)).isoformat()}
                        for text, days in fading])
    result = await call(client, "memory_search", query="webhook retries idempotency key", limit=10, detail="full")
    hits = result["hits"]
    assert any(hit["review_candidate"] for hit in hits)
    assert non_increasing([hit["score"] for hit in hits])
    assert non_increasing([hit["relevance"] for hit in hits])


async def test_min_relevance_returns_fewer_hits_when_fewer_are_relevant(client):
    await store_all(client, BRIDGED)
    query = "Frankfurt cluster Kubernetes"
    everything = (await call(client, "memory_search", query=query, min_relevance=0.0))["hits"]
    assert len(everything) >= 4
    relevance = [hit["relevance"] for hit in everything]
    cut = (relevance[0] + relevance[-1]) / 2
    assert relevance[0] > cut > relevance[-1]
    kept = (await call(client, "memory_search", query=query, min_relevance=cut))["hits"]
    assert 0 < len(kept) < len(everything)
    assert [hit["id"] for hit in kept] == [hit["id"] for hit in everything[: len(kept)]]
    assert all(hit["relevance"] >= cut for hit in kept)
    recalled = (await call(client, "memory_associate", query=query, min_relevance=0.0))["memories"]
    cut = (recalled[0]["relevance"] + recalled[-1]["relevance"]) / 2
    fewer = (await call(client, "memory_associate", query=query, min_relevance=cut))["memories"]
    assert 0 < len(fewer) < len(recalled) and all(m["relevance"] >= cut for m in fewer)


async def test_a_query_nothing_answers_scores_lower_than_one_the_store_answers(client):
    await store_all(client, BRIDGED)
    answered = (await call(client, "memory_search", query="Kubernetes upgrades maintenance window"))["hits"]
    unanswered = (await call(client, "memory_search", query="sourdough starter hydration", min_relevance=0.0))
    assert answered and answered[0]["relevance"] > max((h["relevance"] for h in unanswered["hits"]), default=0.0)


def test_the_tools_default_min_relevance_is_the_recall_services():
    # The tool module keeps its own copy, so that listing the tools imports no part of recall (numpy, the
    # projection): a call that leaves min_relevance out must still get the service's default.
    from graphmem.server import recall as tools
    from graphmem.service.recall import relevance

    assert tools.DEFAULT_MIN_RELEVANCE == relevance.DEFAULT_MIN_RELEVANCE

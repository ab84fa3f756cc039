"""Meaning through the MCP tools: a context in other words reaches its memory in search and associate."""

from __future__ import annotations

import pytest

from tests.server.test_tools import call
from tests.service.test_semantic_recall import CONTEXT, MEMORIES

pytestmark = pytest.mark.anyio


async def test_search_and_associate_find_a_memory_by_meaning(client):
    for text in MEMORIES:
        await call(client, "memory_store", content=text)
    searched = await call(client, "memory_search", query=CONTEXT, limit=2)
    assert "nervous" in searched["hits"][0]["content"]
    associated = await call(client, "memory_associate", query=CONTEXT, max_results=2)
    assert "nervous" in associated["memories"][0]["content"]
    scores = [m["activation_score"] for m in associated["memories"]]
    assert scores == sorted(scores, reverse=True)


async def test_a_one_word_form_is_matched_to_the_spaced_form(client):
    for text in MEMORIES:
        await call(client, "memory_store", content=text)
    result = await call(client, "memory_associate", query="rollback", mode="composition")
    assert [seed["name"] for seed in result["seed_nodes"]] == ["roll"]
    assert result["unmatched_concepts"] == []
    assert "Roll back" in result["memories"][0]["content"]
    assert "rollback" not in result["composition"]["gaps"]


async def test_composition_says_which_concept_covered_a_need_by_meaning(client):
    for text in MEMORIES:
        await call(client, "memory_store", content=text)
    result = await call(client, "memory_associate", query="Bart anxious", mode="composition")
    assert result["composition"]["covered_by"] == {"anxious": "nervous"}
    assert "anxious" in result["composition"]["covered"]

"""Every answer has a documented maximum size (docs/security.md, "Answer sizes"), checked through a real MCP
client on a store of maximal memories: the caps hold and each cut is named in ``truncated``."""

from __future__ import annotations

import json
import random

import pytest

from graphmem.server import bounds
from graphmem.service.export.graph_page import MAX_PAGE_EDGES
from graphmem.service.memories.capture import MAX_ITEMS, MAX_NOTE_CHARS, MAX_SKIPPED_SHOWN
from graphmem.service.recall.compose import MAX_NEEDS
from scripts.fuzz_attacks import maximal_note

pytestmark = pytest.mark.anyio


async def call(client, name, **arguments):
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


@pytest.fixture
async def maximal(client, service):
    rng = random.Random(25)
    for index in range(2):
        service.store(maximal_note(rng, f"Always deploy service {index} with tool {index}."), kind="decision")
    service.store("Never deploy a service on Fridays", kind="decision")
    return maximal_note(rng, "deploy service tool")[:10_000]


def size(answer) -> int:
    return len(json.dumps(answer, ensure_ascii=False))


async def test_a_long_search_on_maximal_memories_answers_within_its_documented_size(client, maximal):
    found = await call(client, "memory_search", query=maximal, limit=100, detail="full")
    assert found["hits"] and all(len(hit["content"]) <= bounds.HIT_CHARS + 1 for hit in found["hits"])
    assert sum(len(hit["content"]) for hit in found["hits"]) <= bounds.ANSWER_CHARS + len(found["hits"])
    assert all(len(hit.get("concepts", [])) <= bounds.CONCEPTS_SHOWN for hit in found["hits"])
    assert len(found.get("unmatched_concepts", [])) <= bounds.ECHO_SHOWN
    assert any("content cut to 4,000 characters" in line for line in found["truncated"])
    assert size(found) < 200_000  # 640 KB before the caps


async def test_a_long_composition_query_uses_its_most_specific_needs_and_says_so(client, maximal):
    composed = await call(client, "memory_associate", query=maximal, mode="composition", max_results=100)
    composition = composed["composition"]
    assert len(composition["covered"]) + len(composition["gaps"]) <= MAX_NEEDS
    assert len(composed["query_concepts"]) <= bounds.ECHO_SHOWN and len(composed["seed_nodes"]) <= bounds.ECHO_SHOWN
    assert len(composition["conflicts"]) <= bounds.CONFLICTS_SHOWN
    assert all(len(c["reason"]) <= bounds.REASON_CHARS + 1 for c in composition["conflicts"])
    notes = composed["truncated"]
    assert any(line.startswith(f"needs: the {MAX_NEEDS} most specific of") for line in notes)
    assert any(line.startswith("query_concepts: the first 64 of") for line in notes)
    assert size(composed) < 200_000  # 830 KB before the caps


async def test_a_short_answer_has_nothing_cut(client, maximal):
    found = await call(client, "memory_associate", query="Fridays deploy", mode="composition")
    assert "truncated" not in found or all("content cut" in line for line in found["truncated"])
    small = await call(client, "memory_search", query="Fridays")
    assert "truncated" not in small or small["truncated"] == [
        line for line in small["truncated"] if "content cut" in line]


async def test_an_export_page_of_maximal_memories_is_bounded_and_pages_on(client, maximal):
    page = await call(client, "memory_export", limit=500, max_content_chars=5_000)
    assert len(page["nodes"]) <= 500 and len(page["edges"]) <= MAX_PAGE_EDGES
    assert page["total_nodes"] > 10_000 and page["has_more"] and page["next_offset"] == len(page["nodes"])
    assert size(page) < 1_000_000


async def test_a_huge_note_is_refused_whole_with_its_limit_named(client, service):
    before = service.repository.counts()["memories"]
    huge = "## Decisions\n" + "- keep the deploy window short\n" * (MAX_NOTE_CHARS // 30 + 10)
    result = await client.call_tool("memory_capture", {"content": huge})
    assert result.is_error and f"the limit is {MAX_NOTE_CHARS:,}" in result.content[0].text
    many = "## Decisions\n" + "".join(f"- decision {index}\n" for index in range(MAX_ITEMS + 1))
    result = await client.call_tool("memory_capture", {"content": many})
    assert result.is_error and f"at most {MAX_ITEMS}" in result.content[0].text
    assert service.repository.counts()["memories"] == before


async def test_a_capture_lists_the_first_skipped_lines_and_counts_the_rest(client):
    note = "## Decisions\n- Use Redis for sessions\n" + "stray line\n" * 300
    captured = await call(client, "memory_capture", content=note, dry_run=True)
    assert len(captured["skipped"]) == MAX_SKIPPED_SHOWN
    assert captured["truncated"] == [f"skipped: the first {MAX_SKIPPED_SHOWN} of 300 lines"]

"""Kyew's promises through the kyew dialect and a real MCP client: skills from patterns appear, can be
activated and are found by the query; a correction keeps the id the agent holds; the learn fields are
graphmem's own; recall's format and summarize change the answer."""

from __future__ import annotations

import re

import pytest
from mcp import Client

from graphmem.server import build_server
from tests.server.test_dialects import text

pytestmark = pytest.mark.anyio

DEPLOYS = [
    "The deploy script needs the --env production flag for the worker deploy",
    "Run npm run build:worker before the worker deploy to catch type errors",
    "The worker deploy fails when the production env flag is missing",
    "After the worker deploy, check the production env dashboard",
    "The worker deploy to production needs the env secrets loaded first",
    "Roll back a failed worker deploy with the production env previous tag",
]


@pytest.fixture
async def kyew(service, settings):
    async with Client(build_server(settings, tools="kyew", service=service)) as connected:
        yield connected


async def _learn_all(kyew) -> list[str]:
    replies = []
    for n, observation in enumerate(DEPLOYS):
        replies.append(await text(kyew, "memory", {
            "action": "learn", "observation": observation, "domain": "infrastructure", "task_type": "deploy",
            "tools_used": ["npm", "wrangler"], "outcome": "failure" if n % 2 else "success"}))
    return replies


async def test_related_learns_draft_a_skill_that_recall_finds_by_query_and_that_can_be_activated(kyew, service):
    replies = await _learn_all(kyew)
    assert re.search(r"\d+ related memories found — \d+ more before skill generation\.", replies[0])
    generated = [r for r in replies if "skill generated" in r]
    assert generated, replies
    skill_id = re.search(r"\((skill_\w+), draft, v1\)", generated[0]).group(1)
    billing = [service.store(content, project="infrastructure").id for content in (
        "Rotate the billing API keys every quarter", "Billing API keys live in the vault under billing")]
    service.learning.skills.draft(billing, "infrastructure")
    found = await text(kyew, "memory", {"action": "recall", "query": "worker deploy", "domain": "infrastructure",
                                        "include": "skills"})
    assert found.startswith("Found 1 skill:") and f"({skill_id}, draft)" in found and "billing" not in found.lower()
    both = await text(kyew, "memory", {"action": "recall", "query": "worker deploy", "domain": "infrastructure",
                                       "include": "all", "limit": 3})
    assert both.startswith("Found 3 memories and 1 skill:") and "Skill: " in both
    activated = await kyew.call_tool("memory_skill_transition", {"skill_id": skill_id, "status": "active"})
    assert not activated.is_error, activated.content[0].text
    full = await text(kyew, "recall", {"query": "worker deploy", "domain": "infrastructure", "include": "skills",
                                       "skill_detail": "full"})
    assert f"({skill_id}, active)" in full and "\n  1. " in full


async def test_learn_fields_are_the_memory_fields_graphmem_filters_by(kyew, service):
    await _learn_all(kyew)
    failures = service.search("worker deploy", project="infrastructure", outcome="failure", limit=10).hits
    assert len(failures) == 3
    assert service.search("worker deploy", task_type="deploy", tools_used=["wrangler"], limit=10).hits


async def test_a_correction_keeps_the_id_the_agent_holds(kyew, service):
    saved = await text(kyew, "remember", {"observation": "Deploys go out on Fridays at noon", "domain": "ops"})
    held = re.search(r"mem_\w+", saved).group(0)
    reply = await text(kyew, "memory", {"action": "correct", "memory_id": held,
                                        "correction": "Deploys go out on Tuesdays at noon, never on Fridays"})
    assert reply.startswith(f"Memory {held} corrected. Previous version preserved in lineage")
    by_id = await text(kyew, "memory", {"action": "recall", "memory_id": held})
    assert "Tuesdays" in by_id and f"corrected version of {held}" in by_id and "Fridays at noon (" not in by_id
    again = await text(kyew, "correct", {"memory_id": held, "correction": "Deploys go out on Tuesdays at 10:00"})
    assert "corrected" in again
    assert "Tuesdays at 10:00" in await text(kyew, "recall", {"memory_id": held})
    gone = await text(kyew, "forget", {"memory_id": held})
    assert gone.startswith(f"Memory {held} (its current version mem_") and gone.endswith("forgotten.")
    assert "Tuesdays" not in await text(kyew, "recall", {"query": "deploys tuesdays", "domain": "ops"})


async def test_format_and_summarize_change_the_answer(kyew):
    await _learn_all(kyew)
    ask = {"action": "recall", "query": "worker deploy production", "domain": "infrastructure", "limit": 4}
    plain = await text(kyew, "memory", ask)
    compact = await text(kyew, "memory", {**ask, "format": "compact"})
    full = await text(kyew, "memory", {**ask, "format": "full"})
    assert len({plain, compact, full}) == 3
    assert "(infrastructure, " in plain and "(infrastructure, " not in compact
    assert "task_type: deploy" in full and "tools_used: npm, wrangler" in full
    summary = await text(kyew, "memory", {**ask, "summarize": True})
    assert summary.startswith("Found 4 memories.") and "Outcomes: " in summary and "Common themes: " in summary
    assert summary.count("[mem_") == 1  # one pointer, not the list

"""KiroGraph's promises through the kirograph dialect and a real MCP client: Watchmen counts since the last
summary, a reset stores one, a synthesis writes the brief, per-skill files and a summary; search by
session filters before the cut; prune has the seed's "older than"; a duplicate store names the existing
id; projectPath defaults to the working directory and scopes every count; a prompt joins the session."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.server.test_brief_roots import rooted_client
from tests.server.test_dialects import text
from tests.server.test_tools import call

pytestmark = pytest.mark.anyio

PATTERNS = [
    "To release the CLI, bump the version in pyproject and tag the release commit",
    "To release the CLI, build the wheel and upload the release to the package index",
    "To release the CLI, tag the release commit and push the tag before the upload",
    "After the CLI release upload, announce the release version in the changelog",
]


@pytest.fixture
async def kiro(service, settings, tmp_path):
    """A KiroGraph agent's client; it declares ``tmp_path`` as a root, so briefs may be written there."""
    async with rooted_client(service, settings, tmp_path, tools="kirograph") as connected:
        yield connected


async def _store(kiro, content: str, kind: str = "note", project: str = "/work/shop") -> str:
    reply = await text(kiro, "kirograph_mem_store", {"content": content, "kind": kind, "projectPath": project})
    return re.search(r"mem_\w+", reply).group(0)


async def test_watchmen_counts_since_the_last_summary_and_a_reset_stores_one(kiro, service):
    for n in range(8):
        await _store(kiro, f"Checkout step {n} validates the cart total against the price list")
    assert (await call(kiro, "kirograph_watchmen_status", projectPath="/work/shop"))["count"] == 8
    await _store(kiro, "Session summary: the checkout validation work is done", kind="summary")
    assert (await call(kiro, "kirograph_watchmen_status", projectPath="/work/shop"))["count"] == 0
    await _store(kiro, "Checkout retries the payment once on a gateway timeout", kind="decision")
    assert (await call(kiro, "kirograph_watchmen_status", projectPath="/work/shop"))["count"] == 1
    after = await call(kiro, "kirograph_watchmen_reset", projectPath="/work/shop")
    assert after["count"] == 0
    summaries = [m for m in service.repository.memories_from_source("kirograph") if m.kind == "summary"]
    assert len(summaries) == 2 and any("reset" in m.content for m in summaries)
    assert all(m.project == "shop" for m in summaries)


async def test_a_synthesis_writes_the_brief_one_file_per_skill_and_a_summary(kiro, service, tmp_path):
    root = tmp_path / "cli"
    root.mkdir()
    for content in PATTERNS:
        await _store(kiro, content, kind="pattern", project=str(root))
    await _store(kiro, "The CLI is released from main only", kind="decision", project=str(root))
    status = await call(kiro, "kirograph_watchmen_status", projectPath=str(root))
    assert status["skill_files"] and status["ready"] is True
    brief = await call(kiro, "kirograph_watchmen_synthesize", projectPath=str(root))
    assert brief["skipped"] is False and brief["written"] and brief["skill_files"] == status["skill_files"]
    skill_file = root / brief["skill_files"][0]
    assert skill_file.read_text().startswith("<!-- graphmem:skill ") and "\n1. " in skill_file.read_text()
    assert "The CLI is released from main only" in (root / "AGENTS.md").read_text()
    summary = service.repository.memories_by_id([brief["summary_id"]])[brief["summary_id"]]
    assert summary.kind == "summary" and summary.project == "cli"
    assert brief["status"]["count"] == 0
    # a file graphmem did not write is left as it is
    skill_file.write_text("my own notes\n")
    again = await call(kiro, "kirograph_watchmen_synthesize", projectPath=str(root), force=True)
    assert again["skipped_files"] == brief["skill_files"] and skill_file.read_text() == "my own notes\n"
    # nor is a link planted in its place followed out of the project
    outside = tmp_path / "outside.md"
    outside.write_text("not the project's\n")
    skill_file.unlink()
    skill_file.symlink_to(outside)
    linked = await call(kiro, "kirograph_watchmen_synthesize", projectPath=str(root), force=True)
    assert linked["skipped_files"] == brief["skill_files"] and outside.read_text() == "not the project's\n"


async def test_search_by_session_filters_before_the_cut(kiro, service):
    mine = [await _store(kiro, "The webhook retry loop stopped after the deploy"),
            await _store(kiro, "A webhook retry storm followed the gateway outage")]
    session = service.repository.memories_by_id(mine)[mine[0]].session_id
    service.store_many([{"content": f"webhook retry webhook retry webhook retry note {n}", "project": "shop",
                         "session_id": "ses_other_agent"} for n in range(150)])
    found = await call(kiro, "kirograph_mem_search", query="webhook retry", sessionId=session, limit=5,
                       projectPath="/work/shop")
    assert {hit["id"] for hit in found["hits"]} == set(mine)


async def test_search_hits_carry_their_notes_with_and_without_a_session(kiro, service):
    first = await _store(kiro, "The webhook retry loop stopped after the deploy")
    second = await _store(kiro, "The webhook retry loop kept running after the deploy")
    relation = service.relations.relate(first, second, "contradicts").relation.id
    session = service.repository.memories_by_id([first])[first].session_id
    for scope in ({}, {"sessionId": session}):
        found = await call(kiro, "kirograph_mem_search", query="webhook retry loop", projectPath="/work/shop",
                           **scope)
        notes = {hit["id"]: hit["notes"] for hit in found["hits"]}
        assert notes[first] == [f"contradicted by {second} ({relation})"], scope
        assert notes[second] == [f"contradicted by {first} ({relation})"], scope


def _aged(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


async def test_prune_removes_observations_created_before_the_duration_of_every_kind(kiro, service):
    old = service.store_many([
        {"content": "We chose Postgres over MySQL for the orders service", "kind": "decision", "project": "shop",
         "created_at": _aged(180)},
        {"content": "The orders service is a modular monolith", "kind": "architecture", "project": "shop",
         "created_at": _aged(120)},
        {"content": "A note about the old staging box", "project": "shop", "created_at": _aged(100)}])
    fresh = await _store(kiro, "The orders service now emits order.created events", kind="decision")
    service.edits.touch([old[0].id])  # used today: KiroGraph still prunes it (created 180 days ago)
    preview = await call(kiro, "kirograph_mem_prune", olderThan="90d", dryRun=True, projectPath="/work/shop")
    assert {i["id"] for i in preview["items"]} == {r.id for r in old}
    kept = await call(kiro, "kirograph_mem_prune", olderThan="90d", dryRun=True, projectPath="/work/shop",
                      protectKinds=["decision", "architecture"], since="used")
    assert {i["id"] for i in kept["items"]} == {old[2].id}
    pruned = await call(kiro, "kirograph_mem_prune", olderThan="90d", projectPath="/work/shop")
    assert pruned["count"] == 3
    statuses = {m.id: m.status for m in service.repository.memories_by_id([*(r.id for r in old), fresh]).values()}
    assert statuses == {**{r.id: "forgotten" for r in old}, fresh: "active"}


async def test_a_duplicate_store_names_the_existing_id(kiro):
    first = await _store(kiro, "Orders are idempotent on the client order key", kind="decision")
    again = await text(kiro, "kirograph_mem_store", {"content": "Orders are idempotent on the client order key",
                                                     "kind": "decision", "projectPath": "/work/shop"})
    assert again == f"Observation already exists (duplicate content). Existing observation: {first} [decision]"


async def test_project_path_defaults_to_the_working_directory_and_scopes_counts_and_conflicts(kiro, service):
    here = await _store(kiro, "The default project is the server's working directory", project="")
    assert service.repository.memories_by_id([here])[here].project == Path.cwd().name
    a = await _store(kiro, "Payments use Stripe", kind="decision")
    b = await _store(kiro, "Payments use Adyen", kind="decision")
    other = [await _store(kiro, "The blog uses Hugo", kind="decision", project="/work/blog"),
             await _store(kiro, "The blog uses Jekyll", kind="decision", project="/work/blog")]
    await call(kiro, "kirograph_mem_compare", observationA=a, observationB=b, relation="conflicts_with")
    await call(kiro, "kirograph_mem_compare", observationA=other[0], observationB=other[1], relation="conflicts_with")
    shop = await call(kiro, "kirograph_mem_conflicts_list", projectPath="/work/shop")
    assert [{i["source"]["id"], i["target"]["id"]} for i in shop["items"]] == [{a, b}]
    status = await call(kiro, "kirograph_mem_status", projectPath="/work/blog")
    assert status["observations"] == 2 and status["pending_conflicts"] == 1 and status["project"] == "blog"
    assert status["by_kind"] == {"decision": 2}


async def test_a_prompt_saved_after_stores_joins_their_session(kiro):
    await _store(kiro, "Cart totals are computed on the server")
    saved = await call(kiro, "kirograph_mem_save_prompt", content="Why are cart totals wrong?",
                       projectPath="/work/shop")
    timeline = await call(kiro, "kirograph_mem_timeline", projectPath="/work/shop")
    assert len(timeline["timeline"]) == 1
    assert timeline["timeline"][0]["session"]["id"] == saved["session"]["id"]
    assert timeline["timeline"][0]["observations"] and timeline["timeline"][0]["prompts"]


async def test_the_brief_lists_a_paraphrase_once_and_keeps_both_sides_of_a_conflict(kiro, tmp_path):
    root = tmp_path / "auth"
    root.mkdir()
    project = str(root)
    first = await _store(kiro, "Session tokens are stored in Redis with a one hour expiry", "decision", project)
    second = await _store(kiro, "We keep session tokens in Redis and they expire after one hour", "decision", project)
    pair = await call(kiro, "kirograph_mem_compare", observationA=first, observationB=second,
                      relation="not_conflict", projectPath=project)
    await call(kiro, "kirograph_mem_judge", relationId=pair["relation"]["id"], relation="not_conflict",
               confidence=0.9, projectPath=project)
    a = await _store(kiro, "Refresh tokens are rotated on every use by the auth service", "decision", project)
    b = await _store(kiro, "Refresh tokens are rotated once a day by the auth service", "decision", project)
    await call(kiro, "kirograph_mem_compare", observationA=a, observationB=b, relation="conflicts_with",
               projectPath=project)
    brief = await call(kiro, "kirograph_watchmen_synthesize", projectPath=project, force=True)
    listed = {line["memory_id"] for line in brief["lines"]}
    assert second in listed and first not in listed
    assert {a, b} <= listed
    agents = (root / "AGENTS.md").read_text()
    assert "expire after one hour" in agents and "with a one hour expiry" not in agents

"""The relation-area tools through a real MCP client session: the scan → compare → judge → recall flow,
facts, capture, lint, topic keys, as_of, and readable refusals that leave the store unchanged."""

from __future__ import annotations

import pytest

from graphmem.core.relations import valid_relation_types
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio

TOOLS = {"memory_relate", "memory_propose_relation", "memory_pending_relations", "memory_judge_relation",
         "memory_ignore_relation", "memory_scan_conflicts", "memory_suggest_key", "memory_fact_add",
         "memory_fact_invalidate", "memory_facts_at", "memory_fact_timeline", "memory_capture", "memory_lint"}
ALWAYS = "Always run database migrations inside a transaction"
NEVER = "Never wrap Alembic migration scripts in transactions; they lock the deploy"


async def test_the_tools_are_listed_with_schemas_enums_and_intent(client):
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert listed.keys() >= TOOLS
    assert all(listed[name].output_schema for name in TOOLS)
    relation = listed["memory_relate"].input_schema["properties"]["type"]
    assert set(valid_relation_types()) == set(relation["enum"])
    for name in ("memory_lint", "memory_pending_relations", "memory_scan_conflicts", "memory_facts_at",
                 "memory_fact_timeline", "memory_suggest_key"):
        assert listed[name].annotations.read_only_hint is True, name
    assert listed["memory_relate"].annotations.read_only_hint is False
    assert "as_of" in listed["memory_associate"].input_schema["properties"]
    assert "as_of" in listed["memory_open"].input_schema["properties"]


async def test_scan_compare_judge_then_recall_hides_the_replaced_decision(client):
    always = (await call(client, "memory_store", content=ALWAYS, kind="decision"))["id"]
    never = (await call(client, "memory_store", content=NEVER, kind="decision"))["id"]
    await call(client, "memory_store", content="Database backups run nightly at two")
    scan = await call(client, "memory_scan_conflicts")
    [candidate] = scan["candidates"]
    assert {candidate["a"]["id"], candidate["b"]["id"]} == {always, never} and candidate["kind"] == "polarity"
    assert candidate["newer_id"] == never
    older = always if candidate["newer_id"] == never else never
    proposed = await call(client, "memory_propose_relation", source=candidate["newer_id"], target=older,
                          type="supersedes", reason=candidate["reason"], confidence=0.9)
    assert proposed["relation"]["status"] == "pending" and proposed["action"] == "created"
    pending = await call(client, "memory_pending_relations")
    assert [i["relation"]["id"] for i in pending["items"]] == [proposed["relation"]["id"]]
    assert (pending["items"][0]["source"]["id"], pending["items"][0]["target"]["id"]) == (never, always)
    query = "database migrations in a transaction"
    hits = await call(client, "memory_search", query=query)
    assert {h["id"] for h in hits["hits"]} >= {always, never}
    judged = await call(client, "memory_judge_relation", relation_id=proposed["relation"]["id"])
    assert judged["superseded"] == [always]
    assert judged["target"]["superseded_by"] == never
    hits = await call(client, "memory_search", query=query)
    assert always not in {h["id"] for h in hits["hits"]} and never in {h["id"] for h in hits["hits"]}
    recalled = await call(client, "memory_associate", query=query, include_superseded=True)
    assert always in {m["id"] for m in recalled["memories"]}
    assert (await call(client, "memory_scan_conflicts"))["candidates"] == []
    history = await call(client, "memory_history", ref=always)
    assert [(e["old_id"], e["new_id"], e["via"]) for e in history["events"]] == [(always, never,
                                                                                  "supersedes")]


async def test_as_of_reaches_associate_and_open_through_the_tools(client):
    old = await call(client, "memory_store", content="Sessions are stored in signed JWT cookies",
                     topic_key="decision/sessions", valid_from="2024-01-01T00:00:00Z")
    new = await call(client, "memory_store", content="Sessions are stored in Redis so they can be revoked",
                     topic_key="decision/sessions")
    assert new["superseded"] == [old["id"]]
    now_hits = await call(client, "memory_associate", query="sessions stored")
    assert [m["id"] for m in now_hits["memories"]] == [new["id"]]
    opened = await call(client, "memory_open", ids=["decision/sessions"], as_of="2024-06-01T00:00:00Z")
    assert opened["not_found"] == ["decision/sessions"]  # created now: it did not exist in 2024


async def test_refusals_are_readable_and_leave_the_store_unchanged(client, service):
    first = (await call(client, "memory_store", content=ALWAYS))["id"]
    second = (await call(client, "memory_store", content=NEVER))["id"]
    message = await refused(client, "memory_relate", source=first, target=second, type="replaces")
    assert "supersedes" in message and "not_conflict" in message
    assert "itself" in await refused(client, "memory_relate", source=first, target=first, type="related")
    assert "relation_id" in await refused(client, "memory_judge_relation")
    assert "unknown relation id" in await refused(client, "memory_ignore_relation", relation_id="rel_x")
    assert "NotFound" in await refused(client, "memory_propose_relation", source=first, target="decision/none",
                                       type="contradicts")
    assert "object" in await refused(client, "memory_fact_add", subject="alice", predicate="works at")
    assert "content" in await refused(client, "memory_capture", content="   ")
    assert service.repository.counts()["relations"] == 0
    assert service.repository.counts()["memories"] == 2
    assert (await call(client, "memory_fact_timeline", subject="alice"))["facts"] == []


async def test_facts_through_the_tool(client):
    first = await call(client, "memory_fact_add", subject="Alice", predicate="works at", object="Acme",
                       valid_from="2024-01-01T00:00:00Z")
    second = await call(client, "memory_fact_add", subject="alice", predicate="works at", object="Globex",
                        valid_from="2024-06-01T00:00:00Z")
    assert [f["id"] for f in second["closed"]] == [first["fact"]["id"]]
    then = await call(client, "memory_facts_at", at="2024-03-01T00:00:00Z", subject="alice")
    assert [f["object"] for f in then["facts"]] == ["acme"]
    closed = await call(client, "memory_fact_invalidate", fact_id=second["fact"]["id"], at="2024-09-01T00:00:00Z")
    assert closed["fact"]["valid_to"].startswith("2024-09-01")
    timeline = await call(client, "memory_fact_timeline", subject="alice")
    assert [f["object"] for f in timeline["facts"]] == ["acme", "globex"]


async def test_capture_suggest_key_and_lint_through_the_tools(client):
    note = ("## Decisions\n- Use Redis for session storage\n- ok\n\n"
            "## Errors\n1. Webhook handler timed out at 30s\n")
    preview = await call(client, "memory_capture", content=note, dry_run=True)
    assert preview["stored"] == 0 and [i["id"] for i in preview["items"]] == [None, None]
    captured = await call(client, "memory_capture", content=note, project="web", tags=["session-1"])
    assert [(i["kind"], i["duplicate"]) for i in captured["items"]] == [("decision", False), ("error", False)]
    assert captured["skipped"][0]["reason"] == "shorter than 5 characters" and captured["stored"] == 2
    again = await call(client, "memory_capture", content=note, project="web")
    assert again["duplicates"] == 2
    assert [i["id"] for i in again["items"]] == [i["id"] for i in captured["items"]]
    key = await call(client, "memory_suggest_key", kind="decision", title="Zürich: Redis für Sessions")
    assert key["topic_key"] == "decision/zürich-redis-für-sessions"
    lint = await call(client, "memory_lint")
    assert lint["ok"] is True and lint["findings"] == []

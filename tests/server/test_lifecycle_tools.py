"""The lifecycle and session tools through a real MCP client session (in-process)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from graphmem import MemoryService, Settings
from graphmem.server import build_server
from tests.conftest import ORDERS, WEBHOOK
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio


def store_old(service, content: str, days: float) -> str:
    created = (datetime.now(UTC) - timedelta(days=days)).isoformat()
    return service.store_many([{"content": content, "created_at": created}])[0].id


def counts(service) -> dict:
    status = service.status()
    return {key: status[key] for key in ("memories", "by_status", "relations", "sessions")}


async def test_the_two_tools_are_listed_with_action_enums_and_honest_annotations(client):
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    lifecycle, session = listed["memory_lifecycle"], listed["memory_session"]
    assert lifecycle.annotations.destructive_hint is True and lifecycle.annotations.read_only_hint is False
    assert session.annotations.destructive_hint is False and session.annotations.read_only_hint is False
    actions = set(lifecycle.input_schema["properties"]["action"]["enum"])
    assert {"correct", "gc", "prune", "promote", "review"} <= actions
    assert session.input_schema["properties"]["action"]["enum"] == ["start", "end", "save_prompt", "timeline"]
    assert lifecycle.output_schema and session.output_schema


async def test_a_session_round_trip_start_store_prompt_timeline_end(client):
    started = await call(client, "memory_session", action="start", project="payments")
    session_id = started["session"]["id"]
    assert session_id.startswith("ses_") and started["session"]["client"] and not started["reused"]
    stored = await call(client, "memory_store", content=WEBHOOK, project="payments")
    prompt = await call(client, "memory_session", action="save_prompt", project="payments",
                        content="Why does every webhook handler need a key?")
    assert prompt["session"]["id"] == session_id and prompt["prompt"]["id"].startswith("prm_")
    again = await call(client, "memory_session", action="start", project="payments")
    assert again["reused"] and [m["id"] for m in again["recent_memories"]] == [stored["id"]]
    timeline = await call(client, "memory_session", action="timeline", project="payments")
    entry = timeline["timeline"][0]
    assert entry["session"]["id"] == session_id and [o["id"] for o in entry["observations"]] == [stored["id"]]
    assert [p["content"] for p in entry["prompts"]] == ["Why does every webhook handler need a key?"]
    ended = await call(client, "memory_session", action="end", session_id=session_id)
    assert ended["session"]["ended_at"] and not ended["session"]["open"]


async def test_correct_then_history_shows_both_versions_and_search_the_new_one(client):
    original = await call(client, "memory_store", content="Sessions use JWT cookies", kind="decision")
    corrected = await call(client, "memory_lifecycle", action="correct", ids=[original["id"]],
                           content="Sessions live in Redis with a sliding TTL", reason="revocation")
    new = corrected["created_id"]
    assert corrected["relation_id"].startswith("rel_")
    history = await call(client, "memory_lifecycle", action="history", ids=[new])
    assert [(v["id"], v["current"]) for v in history["items"]] == [(original["id"], False), (new, True)]
    search = await call(client, "memory_search", query="sessions")
    assert [hit["id"] for hit in search["hits"]] == [new]
    assert search["hits"][0]["status"] == "active" and search["hits"][0]["review_candidate"] is False


async def test_forget_review_touch_and_metrics_through_the_tool(client, service):
    webhook = await call(client, "memory_store", content=WEBHOOK, review_after="2020-01-01T00:00:00Z")
    orders = await call(client, "memory_store", content=ORDERS, review_after=1_577_836_800_000)
    review = await call(client, "memory_lifecycle", action="review")
    assert {item["id"] for item in review["items"]} == {webhook["id"], orders["id"]}
    assert all(item["days_overdue"] > 2000 for item in review["items"])
    marked = await call(client, "memory_lifecycle", action="mark_reviewed", ids=[orders["id"]],
                        reschedule=True)
    assert marked["items"][0]["review_after"] > datetime.now(UTC).isoformat()
    touched = await call(client, "memory_lifecycle", action="touch", ids=[webhook["id"]], boost=True)
    assert touched["items"][0]["use_count"] == 1 and touched["items"][0]["strength"] == pytest.approx(1.1)
    await call(client, "memory_lifecycle", action="forget", ids=[webhook["id"]], superseded_by=orders["id"])
    search = await call(client, "memory_search", query="webhook")
    assert webhook["id"] not in {h["id"] for h in search["hits"]}
    metrics = await call(client, "memory_lifecycle", action="metrics")
    assert {"store", "search", "lifecycle.forget"} <= {m["operation"] for m in metrics["metrics"]}


async def test_gc_and_prune_are_dry_runs_unless_asked(client, service):
    faded = store_old(service, WEBHOOK, days=120)
    before = counts(service)
    dry = await call(client, "memory_lifecycle", action="gc")
    assert dry["dry_run"] and [item["id"] for item in dry["items"]] == [faded] and counts(service) == before
    pruned = await call(client, "memory_lifecycle", action="prune", older_than="90d", dry_run=False)
    assert pruned["count"] == 1 and service.open([faded]).memories[0].status == "archived"


async def test_bad_input_is_a_readable_error_and_leaves_the_store_unchanged(client, service):
    memory = await call(client, "memory_store", content=WEBHOOK)
    other = await call(client, "memory_store", content=ORDERS)
    before = counts(service)
    assert "exactly one id" in await refused(client, "memory_lifecycle", action="forget",
                                             ids=[memory["id"], other["id"]])
    assert "content is required" in await refused(client, "memory_lifecycle", action="correct",
                                                  ids=[memory["id"]])
    assert "90d, 2w" in await refused(client, "memory_lifecycle", action="prune", older_than="soon",
                                      dry_run=False)
    assert "unknown memory id" in await refused(client, "memory_lifecycle", action="touch", ids=["mem_nope"])
    assert "vault_path" in await refused(client, "memory_lifecycle", action="promote", ids=[memory["id"]],
                                         force=True, export=True, dry_run=False)
    await refused(client, "memory_lifecycle", action="shred")
    await refused(client, "memory_session", action="start", timeout_minutes=0)
    assert "unknown session id" in await refused(client, "memory_session", action="end",
                                                 session_id="ses_nope")
    assert counts(service) == before


async def test_promotion_outside_the_vault_is_refused_through_the_tool(tmp_path, extractor):
    vault = tmp_path / "vault"
    vault.mkdir()
    settings = Settings.load(db=str(tmp_path / "v.db"), environ={}, lifecycle={"vault_path": str(vault)})
    service = MemoryService(settings, extractor=extractor)
    memory = service.store(WEBHOOK).id
    async with Client(build_server(settings, service=service)) as connected:
        message = await refused(connected, "memory_lifecycle", action="promote", ids=[memory], force=True,
                                export=True, dry_run=False, folder="../../etc")
        assert "outside the vault" in message
        promoted = await call(connected, "memory_lifecycle", action="promote", ids=[memory], force=True,
                              export=True, dry_run=False)
    assert promoted["items"][0]["vault_path"].startswith(str(vault.resolve()))
    assert service.open([memory]).memories[0].status == "promoted"
    service.close()

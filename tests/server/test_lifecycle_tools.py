"""The memory-lifecycle and session tools through a real MCP client session (in-process)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from mcp import Client

from graphmem import MemoryService, Settings
from graphmem.server import build_server
from tests.conftest import ORDERS, WEBHOOK
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio


def counts(service) -> dict:
    status = service.status()
    return {key: status[key] for key in ("memories", "by_status", "relations", "sessions")}


LIFECYCLE = {"memory_correct": False, "memory_forget": False, "memory_restore": False, "memory_touch": False,
             "memory_history": True, "memory_review": True, "memory_mark_reviewed": False, "memory_promote": False,
             "memory_metrics": True, "memory_session_start": False, "memory_session_end": False,
             "memory_save_prompt": False, "memory_timeline": True}


async def test_each_intent_is_its_own_tool_with_a_truthful_read_only_hint(client):
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name, read_only in LIFECYCLE.items():
        assert listed[name].annotations.read_only_hint is read_only, name
        assert "action" not in listed[name].input_schema["properties"], name
        assert listed[name].output_schema, name
    assert listed["memory_forget"].annotations.destructive_hint is True
    assert not {"memory_gc", "memory_prune", "gc", "prune"} & listed.keys()  # admin jobs: the CLI


async def test_a_session_round_trip_start_store_prompt_timeline_end(client):
    started = await call(client, "memory_session_start", project="payments")
    session_id = started["session"]["id"]
    assert session_id.startswith("ses_") and started["session"]["client"] and not started["reused"]
    stored = await call(client, "memory_store", content=WEBHOOK, project="payments")
    prompt = await call(client, "memory_save_prompt", project="payments",
                        content="Why does every webhook handler need a key?")
    assert prompt["session"]["id"] == session_id and prompt["prompt"]["id"].startswith("prm_")
    again = await call(client, "memory_session_start", project="payments")
    assert again["reused"] and [m["id"] for m in again["recent_memories"]] == [stored["id"]]
    timeline = await call(client, "memory_timeline", project="payments")
    entry = timeline["timeline"][0]
    assert entry["session"]["id"] == session_id and [o["id"] for o in entry["observations"]] == [stored["id"]]
    assert [p["content"] for p in entry["prompts"]] == ["Why does every webhook handler need a key?"]
    ended = await call(client, "memory_session_end", session_id=session_id)
    assert ended["session"]["ended_at"] and not ended["session"]["open"]


async def test_correct_then_history_shows_both_versions_and_search_the_new_one(client):
    original = await call(client, "memory_store", content="Sessions use JWT cookies", kind="decision")
    corrected = await call(client, "memory_correct", id=original["id"],
                           content="Sessions live in Redis with a sliding TTL", reason="revocation")
    new = corrected["created_id"]
    assert new.startswith("mem_") and corrected["id"] == original["id"]
    history = await call(client, "memory_history", ref=new)
    assert [m["id"] for m in history["memories"]] == [original["id"], new] and history["current_ids"] == [new]
    search = await call(client, "memory_search", query="sessions", detail="full")
    assert [hit["id"] for hit in search["hits"]] == [new]
    assert search["hits"][0]["status"] == "active" and search["hits"][0]["review_candidate"] is False
    shown = await call(client, "memory_search", query="sessions", as_of="2020-01-01T00:00:00Z")
    assert shown["hits"] == []
    old = await call(client, "memory_search", query="JWT cookies", include_superseded=True)
    [hit] = [h for h in old["hits"] if h["id"] == original["id"]]
    assert hit["notes"] == [f"superseded by {new}"]


async def test_forget_review_touch_restore_and_metrics_through_the_tools(client, service):
    webhook = await call(client, "memory_store", content=WEBHOOK, review_after="2020-01-01T00:00:00Z")
    orders = await call(client, "memory_store", content=ORDERS, review_after=1_577_836_800_000)
    review = await call(client, "memory_review")
    assert {item["id"] for item in review["items"]} == {webhook["id"], orders["id"]}
    assert all(item["days_overdue"] > 2000 for item in review["items"])
    marked = await call(client, "memory_mark_reviewed", id=orders["id"], reschedule=True)
    assert marked["items"][0]["review_after"] > datetime.now(UTC).isoformat()
    touched = await call(client, "memory_touch", ids=[webhook["id"]], boost=True)
    assert touched["id"] == webhook["id"] and service.open([webhook["id"]]).memories[0].use_count == 1
    forgotten = await call(client, "memory_forget", id=webhook["id"], superseded_by=orders["id"])
    assert forgotten["status"] == "forgotten"
    search = await call(client, "memory_search", query="webhook")
    assert webhook["id"] not in {h["id"] for h in search["hits"]}
    restored = await call(client, "memory_restore", id=webhook["id"])
    assert restored["status"] == "active"
    metrics = await call(client, "memory_metrics")
    assert {"store", "search", "lifecycle.forget"} <= {m["operation"] for m in metrics["metrics"]}


async def test_bad_input_is_a_readable_error_and_leaves_the_store_unchanged(client, service):
    memory = await call(client, "memory_store", content=WEBHOOK)
    await call(client, "memory_store", content=ORDERS)
    before = counts(service)
    assert "content" in await refused(client, "memory_correct", id=memory["id"])
    assert "content" in await refused(client, "memory_correct", id=memory["id"], content="  ")
    assert "unknown memory id" in await refused(client, "memory_touch", ids=["mem_nope"])
    assert "ids" in await refused(client, "memory_touch", ids=[])
    assert "NotFound" in await refused(client, "memory_forget", id="mem_nope")
    assert "vault_path" in await refused(client, "memory_promote", ids=[memory["id"]], force=True, export=True,
                                         dry_run=False)
    await refused(client, "memory_session_start", timeout_minutes=0)
    assert "unknown session id" in await refused(client, "memory_session_end", session_id="ses_nope")
    assert counts(service) == before


async def test_promotion_outside_the_vault_is_refused_through_the_tool(tmp_path, new_store, extractor):
    vault = tmp_path / "vault"
    vault.mkdir()
    settings = Settings.load(db=new_store("v.db"), environ={}, lifecycle={"vault_path": str(vault)})
    service = MemoryService(settings, extractor=extractor)
    memory = service.store(WEBHOOK).id
    async with Client(build_server(settings, tools="full", service=service)) as connected:
        message = await refused(connected, "memory_promote", ids=[memory], force=True, export=True,
                                dry_run=False, folder="../../etc")
        assert "outside the vault" in message
        promoted = await call(connected, "memory_promote", ids=[memory], force=True, export=True, dry_run=False)
    assert promoted["items"][0]["vault_path"].startswith(str(vault.resolve()))
    assert service.open([memory]).memories[0].status == "promoted"
    service.close()

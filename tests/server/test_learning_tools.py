"""The learning tools through a real MCP client: clusters, duplicates, consolidate (+ undo), learn,
skills (list, transition, rollback, outcome), briefs (status, synthesize, reset)."""

from __future__ import annotations

import pytest

from tests.server.test_brief_roots import rooted_client
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio

TOKENS = ["Never store access tokens in localStorage; an XSS payload can read them.",
          "Access tokens must not go into localStorage because XSS can read them."]
DEPLOY = [
    "Run `npm run build:worker` before `kubectl rollout restart deploy/worker` or the old bundle ships.",
    "Deploy of the worker failed: `kubectl rollout restart deploy/worker` shipped a stale bundle from npm.",
    "After `npm run build:worker`, check the worker bundle hash before `kubectl rollout restart deploy/worker`.",
    "Worker deploy checklist: `npm run build:worker`, then `kubectl rollout restart deploy/worker`, then smoke test.",
]


async def test_clusters_duplicates_consolidate_and_undo(client, service):
    ids = [service.store(text, kind="decision", project="web").id for text in TOKENS]
    clusters = await call(client, "memory_clusters", project="web")
    cluster = clusters["clusters"][0]
    assert sorted(cluster["memory_ids"]) == sorted(ids) and cluster["action"] == "merge"
    duplicates = await call(client, "memory_duplicates")
    assert {duplicates["pairs"][0]["left_id"], duplicates["pairs"][0]["right_id"]} == set(ids)
    preview = await call(client, "memory_consolidate_preview", cluster_id=cluster["id"])
    assert preview["action"] == "preview" and "localStorage" in preview["previews"][0]["content"]
    applied = await call(client, "memory_consolidate_apply", cluster_id=cluster["id"])
    assert sorted(applied["archived"]) == sorted(ids)
    search = await call(client, "memory_search", query="localStorage tokens")
    assert [hit["id"] for hit in search["hits"]] == [applied["merged_id"]]
    undone = await call(client, "memory_consolidate_undo", merged_id=applied["merged_id"])
    assert sorted(undone["restored"]) == sorted(ids)
    assert "NotFound" in await refused(client, "memory_consolidate_apply", cluster_id="clu_0000000000000000")


async def test_learn_drafts_a_skill_that_moves_through_its_lifecycle(client):
    replies = [await call(client, "memory_learn", observation=text, domain="infra", kind="pattern")
               for text in DEPLOY]
    assert replies[2]["message"].startswith("2 related memories found — 1 more before a skill draft")
    skill_id = replies[3]["skill_id"]
    drafts = await call(client, "memory_skills", project="infra", status="draft")
    assert [s["id"] for s in drafts["skills"]] == [skill_id]
    active = await call(client, "memory_skill_transition", skill_id=skill_id, status="active", actor="alice")
    assert active["status"] == "active" and active["version"] == 2
    used = await call(client, "memory_skill_outcome", skill_id=skill_id, outcome="failure")
    assert used["failures"] == 1
    rolled = await call(client, "memory_skill_rollback", skill_id=skill_id, version=1, reason="undo activation")
    assert rolled["status"] == "draft" and rolled["history"][-1]["action"] == "rolled_back_to_1"
    one = await call(client, "memory_skills", skill_id=skill_id)
    assert [v["actor"] for v in one["skills"][0]["history"]] == ["graphmem", "alice", "agent", "agent"]


async def test_brief_status_synthesize_and_reset(service, settings, tmp_path):
    async with rooted_client(service, settings, tmp_path) as client:
        await _brief_round_trip(client, service, tmp_path)


async def _brief_round_trip(client, service, tmp_path):
    service.store("Use Terraform workspaces per region", kind="decision", project="infra")
    status = await call(client, "memory_brief_status", project="infra")
    assert status["count"] == 1 and status["threshold"] == 5 and "AGENTS.md" in status["targets"]
    skipped = await call(client, "memory_brief_synthesize", root=str(tmp_path), project="infra")
    assert skipped["skipped"] and not (tmp_path / "AGENTS.md").exists()
    written = await call(client, "memory_brief_synthesize", root=str(tmp_path), project="infra", force=True)
    agents = (tmp_path / "AGENTS.md").read_text(encoding="utf-8")
    assert "AGENTS.md" in written["written"] and written["lines"][0]["memory_id"] in agents
    service.store("Pin the AWS provider to 5.x", kind="decision", project="infra")
    reset = await call(client, "memory_brief_reset", project="infra")
    assert reset["count"] == 0

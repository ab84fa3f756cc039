"""The learning commands through the shell entry point: clusters, duplicates, consolidate, skills, brief."""

from __future__ import annotations

import json

import pytest

from graphmem.cli import main

TOKENS = ["Never store access tokens in localStorage; an XSS payload can read them.",
          "Access tokens must not go into localStorage because XSS can read them."]
DEPLOY = [
    "Run `npm run build:worker` before `kubectl rollout restart deploy/worker` or the old bundle ships.",
    "Deploy of the worker failed: `kubectl rollout restart deploy/worker` shipped a stale bundle from npm.",
    "After `npm run build:worker`, check the worker bundle hash before `kubectl rollout restart deploy/worker`.",
    "Worker deploy checklist: `npm run build:worker`, then `kubectl rollout restart deploy/worker`, then smoke test.",
]


@pytest.fixture
def run(tmp_path, new_store, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    database = new_store("memory.db")

    def invoke(*argv: str, as_json: bool = True) -> tuple[int, object]:
        code = main(["--db", database, "--create", *(["--json"] if as_json else []), *argv])
        out = capsys.readouterr()
        if code != 0:
            return code, out.err
        return code, json.loads(out.out) if as_json else out.out
    return invoke


def test_clusters_duplicates_consolidate_apply_and_undo(run):
    ids = [run("store", text, "--kind", "decision", "--project", "web")[1]["id"] for text in TOKENS]
    _, clusters = run("clusters", "--project", "web")
    cluster = clusters["clusters"][0]
    assert sorted(cluster["memory_ids"]) == sorted(ids) and cluster["action"] == "merge"
    code, text = run("clusters", "--project", "web", as_json=False)
    assert code == 0 and cluster["id"] in text and "cohesion" in text
    _, duplicates = run("duplicates")
    assert {duplicates["pairs"][0]["left_id"], duplicates["pairs"][0]["right_id"]} == set(ids)
    _, preview = run("consolidate", cluster["id"])
    assert preview["action"] == "preview" and "localStorage" in preview["previews"][0]["content"]
    _, applied = run("consolidate", cluster["id"], "--apply")
    assert sorted(applied["archived"]) == sorted(ids)
    _, search = run("search", "localStorage tokens")
    assert [hit["id"] for hit in search["hits"]] == [applied["merged_id"]]
    _, undone = run("consolidate", "--undo", applied["merged_id"])
    assert sorted(undone["restored"]) == sorted(ids)
    code, message = run("consolidate")
    assert code == 2 and "usage: graphmem consolidate" in message


def test_skills_learn_lifecycle_and_brief(run, tmp_path):
    replies = [run("skills", "learn", text, "--project", "infra", "--kind", "pattern")[1] for text in DEPLOY]
    assert replies[2]["message"].startswith("2 related memories found")
    skill_id = replies[3]["skill_id"]
    _, listed = run("skills", "list", "--status", "draft")
    assert [s["id"] for s in listed["skills"]] == [skill_id]
    _, active = run("skills", "activate", skill_id, "--actor", "alice", "--reason", "works")
    assert active["status"] == "active" and active["version"] == 2
    _, used = run("skills", "outcome", skill_id, "success")
    assert used["successes"] == 1
    _, rolled = run("skills", "rollback", skill_id, "1")
    assert rolled["status"] == "draft"
    code, shown = run("skills", "show", skill_id, as_json=False)
    assert code == 0 and "v2 activated by alice" in shown and "1. " in shown
    code, message = run("skills", "rollback", skill_id)
    assert code == 2 and "usage: graphmem skills rollback" in message
    _, status = run("brief", "status", "--project", "infra")
    assert status["count"] == 4 and status["threshold"] == 5
    _, written = run("brief", "synthesize", "--project", "infra", "--root", str(tmp_path), "--force")
    assert "AGENTS.md" in written["written"] and (tmp_path / "AGENTS.md").read_text().count(skill_id) == 0
    _, reset = run("brief", "reset", "--project", "infra")
    assert reset["count"] == 0

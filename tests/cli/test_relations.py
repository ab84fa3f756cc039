"""The relations commands through the shell entry point: relate, conflicts and fact."""

from __future__ import annotations

import json

import pytest

from graphmem.cli import main


@pytest.fixture
def run(tmp_path, new_store, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    database = new_store("memory.db")

    def invoke(*argv: str) -> tuple[int, object]:
        code = main(["--db", database, "--create", "--json", *argv])
        out = capsys.readouterr()
        return code, (json.loads(out.out) if code == 0 else out.err)
    return invoke


def test_relate_scan_compare_and_judge_from_the_shell(run):
    _, cookies = run("store", "Sessions are stored in signed JWT cookies", "--topic-key", "decision/cookies")
    _, redis = run("store", "Sessions are stored in Redis so they can be revoked",
                   "--topic-key", "decision/redis")
    code, related = run("relate", "decision/redis", "decision/cookies", "supersedes", "--reason", "moved")
    assert code == 0 and related["superseded"] == [cookies["id"]]
    _, always = run("store", "Always run database migrations inside a transaction")
    _, never = run("store", "Never wrap Alembic migration scripts in transactions; they lock the deploy")
    _, scan = run("conflicts", "scan")
    assert [{c["a"]["id"], c["b"]["id"]} for c in scan["candidates"]] == [{always["id"], never["id"]}]
    _, proposed = run("conflicts", "compare", never["id"], always["id"], "--relation", "supersedes")
    _, pending = run("conflicts", "pending")
    assert pending["items"][0]["relation"]["id"] == proposed["relation"]["id"]
    _, judged = run("conflicts", "judge", proposed["relation"]["id"], "--confidence", "0.8")
    assert judged["relation"]["status"] == "judged" and judged["superseded"] == [always["id"]]
    _, opened = run("show", "decision/cookies")
    assert opened["memories"][0]["superseded_by"] == redis["id"]
    code, message = run("relate", "decision/redis", "decision/cookies", "replaces")
    assert code == 2 and "valid types" in message
    code, message = run("conflicts", "judge")
    assert code == 2 and "usage: graphmem conflicts judge" in message


def test_facts_from_the_shell(run):
    run("fact", "add", "alice", "works at", "acme", "--valid-from", "2026-01-01")
    _, replaced = run("fact", "add", "alice", "works at", "globex", "--valid-from", "2026-06-01")
    assert [f["object"] for f in replaced["closed"]] == ["acme"]
    _, then = run("fact", "at", "alice", "--at", "2026-03-01")
    assert [f["object"] for f in then["facts"]] == ["acme"]

"""The lifecycle CLI commands: bulk jobs are dry runs until --apply, and output names every id."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli import main
from tests.conftest import ORDERS, WEBHOOK


@pytest.fixture
def db(new_store, extractor) -> tuple[str, list[str]]:
    path = new_store("cli.db")
    service = MemoryService(Settings.load(db=path, environ={}), extractor=extractor)
    created = (datetime.now(UTC) - timedelta(days=120)).isoformat()
    records = [{"content": WEBHOOK, "created_at": created},
               {"content": ORDERS, "kind": "decision", "created_at": created}]
    ids = [r.id for r in service.store_many(records)]
    service.close()
    return path, ids


def run(capsys, *argv: str) -> dict:
    assert main(["--json", "--create", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_gc_and_prune_report_a_dry_run_then_apply_it(db, capsys):
    path, (note, decision) = db
    dry = run(capsys, "--db", path, "gc")
    assert dry["dry_run"] and [item["id"] for item in dry["items"]] == [note]
    assert run(capsys, "--db", path, "prune", "--older-than", "90d")["count"] == 1
    applied = run(capsys, "--db", path, "prune", "--older-than", "90d", "--no-protect", "--apply")
    assert {item["id"] for item in applied["items"]} == {note, decision} and not applied["dry_run"]
    assert run(capsys, "--db", path, "gc")["items"] == []


def test_history_review_sessions_and_metrics_print_text_with_ids(db, capsys):
    path, (note, _) = db
    assert main(["--db", path, "correct", note, "Webhook handlers dedupe on the Idempotency-Key header"]) == 0
    assert main(["--db", path, "history", note]) == 0
    out = capsys.readouterr().out
    assert note in out and "supersedes" in out and "* mem_" in out
    assert main(["--db", path, "metrics"]) == 0
    assert "lifecycle.correct" in capsys.readouterr().out


def test_a_bad_duration_prints_one_line_and_exits_2(db, capsys):
    path, _ = db
    assert main(["--db", path, "prune", "--older-than", "soon", "--apply"]) == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith("error: duration 'soon'")

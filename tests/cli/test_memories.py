"""The memory commands of ``graphmem`` (and every command's help): a JSON round trip, one-line errors, the demo."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from graphmem.cli import COMMANDS, build_parser, main
from graphmem.store.engine import open_engine
from graphmem.store.tables import SCHEMA_VERSION
from tests.conftest import ORDERS, WEBHOOK

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    """No graphmem.toml or GRAPHMEM_* variable of the developer's shell leaks into a test."""
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("GRAPHMEM_")]:
        monkeypatch.delenv(name)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Run one command on a store it may create; stderr without the line naming the store."""
    code = main(["--create", *argv])
    captured = capsys.readouterr()
    return code, captured.out, "".join(line for line in captured.err.splitlines(keepends=True)
                                       if not line.startswith("graphmem: "))


def run_json(capsys, *argv: str) -> object:
    code, out, err = run(capsys, "--json", *argv)
    assert code == 0, err
    return json.loads(out)


# -- every command is documented --------------------------------------------------------------------
@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_text_and_an_example_that_parses(name, capsys):
    handler, example = COMMANDS[name]
    summary = (handler.__doc__ or "").strip().splitlines()[0]
    assert summary, f"{name} has no docstring"
    for invocation in example.split("; "):  # an example may show several invocations
        words = shlex.split(invocation)
        assert words[:2] == ["graphmem", name]
        assert build_parser().parse_args(words[1:]).command == name
    with pytest.raises(SystemExit) as exited:
        main([name, "--help"])
    assert exited.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())  # argparse re-wraps the text
    assert summary in shown and f"example: {example}" in shown


# -- a round trip through the shell -----------------------------------------------------------------
def test_capture_stores_a_notes_bullets_and_history_and_chain_show_one_view(tmp_path, new_store, capsys):
    db = new_store("memories.db")
    note = tmp_path / "note.md"
    note.write_text("## Decisions\n- Use Redis for session storage\n\n## Errors\n- Webhook timed out\n",
                    encoding="utf-8")
    captured = run_json(capsys, "--db", db, "capture", str(note), "--project", "web")
    assert captured["stored"] == 2 and [i["kind"] for i in captured["items"]] == ["decision", "error"]
    first = run_json(capsys, "--db", db, "store", "Sessions live in signed cookies", "--topic-key", "decision/sessions")
    second = run_json(capsys, "--db", db, "store", "Sessions live in Redis", "--topic-key", "decision/sessions")
    history = run_json(capsys, "--db", db, "history", "decision/sessions")
    assert [m["id"] for m in history["memories"]] == [first["id"], second["id"]]
    assert history["current_ids"] == [second["id"]] and history["events"][0]["old_id"] == first["id"]
    assert run_json(capsys, "--db", db, "chain", "decision/sessions") == history
    assert run(capsys, "--db", db, "history", "decision/other")[0] == 2


def test_store_search_associate_stats_export_import_round_trip(tmp_path, new_store, capsys):
    db, copy = new_store("one.db"), new_store("two.db")
    webhook = run_json(capsys, "--db", db, "store", WEBHOOK, "--kind", "pattern", "--project", "payments",
                       "--tag", "stripe")
    orders = run_json(capsys, "store", ORDERS, "--kind", "solution", "--project", "payments", "--db", db,
                      "--json")  # options after the command name work too
    again = run_json(capsys, "--db", db, "store", WEBHOOK.upper(), "--kind", "pattern",
                     "--project", "payments")
    assert (again["id"], again["duplicate"], webhook["duplicate"]) == (webhook["id"], True, False)
    assert "idempotency key" in webhook["concepts"]

    search = run_json(capsys, "--db", db, "search", "idempotency key header", "--project", "payments")
    assert search["hits"][0]["id"] == orders["id"]
    assert all(isinstance(hit["score"], float) for hit in search["hits"])
    recall = run_json(capsys, "--db", db, "associate", "retry webhooks", "--project", "payments")
    assert orders["id"] in [m["id"] for m in recall["memories"]]
    composed = run_json(capsys, "--db", db, "associate", "retry webhooks", "--mode", "composition")
    assert composed["composition"]["min_coverage"] == 0.7
    stats = run_json(capsys, "--db", db, "stats")
    assert stats["memories"] == 2 and stats["concepts"] > 5

    exported = tmp_path / "backup.jsonl"
    code, _, err = run(capsys, "--db", db, "export", "--format", "jsonl", "-o", str(exported))
    assert code == 0 and err.startswith("exported ")
    report = run_json(capsys, "--db", copy, "import", str(exported))
    assert report["added"]["memories"] == 2
    code, out, _ = run(capsys, "--db", copy, "export")
    assert out == exported.read_text(encoding="utf-8")  # lossless: the copy exports the same file


def test_import_reads_plain_observations_and_export_writes_node_link_json(tmp_path, new_store, capsys):
    db = new_store("memory.db")
    lines = [json.dumps({"content": WEBHOOK, "project": "payments"}), json.dumps({"content": ORDERS}), ""]
    (tmp_path / "observations.jsonl").write_text("\n".join(lines), encoding="utf-8")
    report = run_json(capsys, "--db", db, "import", "observations.jsonl")
    assert (report["format"], report["added"], report["duplicates"]) == ("observations", {"memories": 2}, 0)
    stored = run_json(capsys, "--db", db, "search", "idempotency key")["hits"]
    graph = run_json(capsys, "--db", db, "export", "--format", "node-link")
    node_ids = {node["id"] for node in graph["nodes"]}
    assert {hit["id"] for hit in stored} <= node_ids and "concept:idempotency key" in node_ids
    assert graph["links"]


def test_text_output_is_readable_without_json(tmp_path, capsys):
    db = str(tmp_path / "memory.db")
    code, out, _ = run(capsys, "--db", db, "store", WEBHOOK)
    assert code == 0 and out.startswith("stored mem_")
    code, out, _ = run(capsys, "--db", db, "associate", "retry webhooks")
    assert code == 0 and out.startswith("query concepts: ") and "mem_" in out


# -- bad input: exit 2, one line, no traceback ------------------------------------------------------
BAD_INPUT = {
    "empty content": (["store", "   "], "content"),
    "unknown kind": (["store", "x", "--kind", "gossip"], "kind"),
    "coverage out of range": (["associate", "q", "--min-coverage", "1.5"], "min_coverage"),
    "limit out of range": (["search", "q", "--limit", "0"], "limit"),
    "malformed as_of": (["search", "q", "--as-of", "yesterday"], "as_of"),
    "missing import file": (["import", "no-such-file.jsonl"], "no-such-file.jsonl"),
    "unwritable export": (["export", "-o", "no/such/dir/out.jsonl"], "no/such/dir"),
}


@pytest.mark.parametrize("argv, names", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path, capsys, argv, names):
    code, out, err = run(capsys, "--db", str(tmp_path / "memory.db"), *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and names in err
    assert "Traceback" not in err


def test_a_bad_import_line_is_refused_with_its_number_and_writes_nothing(tmp_path, new_store, capsys):
    db = new_store("memory.db")
    lines = [json.dumps({"content": WEBHOOK}), "{not json", json.dumps({"content": ORDERS, "kind": "nope"})]
    (tmp_path / "bad.jsonl").write_text("\n".join(lines), encoding="utf-8")
    code, _, err = run(capsys, "--db", db, "import", "bad.jsonl")
    assert code == 2 and "line 2" in err and err.count("\n") == 1
    assert run_json(capsys, "--db", db, "stats")["memories"] == 0


def test_a_database_from_a_newer_schema_is_one_line_error(tmp_path, capsys):
    db = tmp_path / "newer.db"
    engine = open_engine(str(db))
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE graphmem_meta SET value = ? WHERE key = 'schema_version'",
                                   (str(SCHEMA_VERSION + 1),))
    engine.dispose()
    code, _, err = run(capsys, "--db", str(db), "stats")
    assert code == 2 and "newer" in err and err.count("\n") == 1


# -- the demo -----------------------------------------------------------------------------------------
def test_the_demo_runs_on_the_bundled_data_and_every_query_returns_hits(capsys):
    summary = run_json(capsys, "demo")
    queries = json.loads((DATA / "demo_queries.json").read_text(encoding="utf-8"))
    assert [entry["query"] for entry in summary] == [q["query"] for q in queries]
    # Retrieval quality is tuned elsewhere; here the demo must only run and answer every query.
    unanswered = [entry["query"] for entry in summary if entry["hit_count"] < 1]
    assert unanswered == []


def test_a_whole_graph_picture_too_large_to_read_says_so_and_a_query_picture_does_not(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    assert run(capsys, "--db", db, "import", str(DATA / "observations.jsonl"))[0] == 0
    code, _, err = run(capsys, "--db", db, "export", "--format", "html", "-o", str(tmp_path / "all.html"))
    assert code == 0 and err.startswith("exported html: 3542 nodes")
    assert "too many to read in one picture" in err and "--query" in err
    code, _, err = run(capsys, "--db", db, "export", "--format", "html", "--query", "retry webhooks", "-o",
                       str(tmp_path / "query.html"))
    assert code == 0 and "too many" not in err

"""The CLI as a shell user meets it (issue 13, items 9 and 10): standard input, pipes, ``--version``, ``show``,
help text with defaults, and readable output."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys

import pytest

from graphmem import __version__
from graphmem.cli import build_parser, main
from tests.conftest import ORDERS, WEBHOOK


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("GRAPHMEM_")]:
        monkeypatch.delenv(name)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--db", "memory.db", "--create", *argv])
    captured = capsys.readouterr()
    return code, captured.out, "".join(line for line in captured.err.splitlines(keepends=True)
                                       if not line.startswith("graphmem: "))


# -- item 9: broken commands ------------------------------------------------------------------------
def test_capture_dash_reads_the_note_from_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("## Decisions\n- Use Redis for session storage\n"))
    code, out, err = run(capsys, "--json", "capture", "-", "--project", "web")
    assert code == 0, err
    assert json.loads(out)["stored"] == 1


def test_a_closed_pipe_ends_the_command_quietly(capsys, monkeypatch):
    run(capsys, "store", WEBHOOK)
    read_end, write_end = os.pipe()
    os.close(read_end)  # what `| head` does once it has its lines
    broken = io.TextIOWrapper(io.FileIO(write_end, "w"), write_through=True)
    monkeypatch.setattr(sys, "stdout", broken)
    code = main(["--db", "memory.db", "search", "webhook"])
    err = capsys.readouterr().err
    assert code == 141 and "Broken pipe" not in err and "error" not in err
    sys.stdout.flush()  # stdout now points at /dev/null: flushing at exit stays quiet


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.strip() == f"graphmem {__version__}"


def test_show_prints_one_memory_by_id_or_topic_key(capsys):
    _, out, _ = run(capsys, "--json", "store", ORDERS, "--topic-key", "payments/order-idempotency",
                    "--kind", "decision", "--project", "payments", "--tag", "orders")
    stored = json.loads(out)["id"]
    code, out, err = run(capsys, "show", "payments/order-idempotency")
    assert code == 0, err
    assert out.startswith(f"{stored} [decision] payments  topic payments/order-idempotency")
    assert ORDERS in out and "tags: orders" in out and "concepts: " in out
    code, out, _ = run(capsys, "--json", "show", stored)
    assert code == 0 and json.loads(out)["memories"][0]["content"] == ORDERS
    code, out, err = run(capsys, "show", "mem_doesnotexist")
    assert code == 2 and out == "" and err == "error: unknown memory id or topic key: mem_doesnotexist\n"


# -- item 10: help and output -----------------------------------------------------------------------
def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_the_top_level_help_describes_graphmem_to_a_user():
    shown = " ".join(build_parser().format_help().split())
    assert "thin command-line shell" not in shown and "``" not in shown and "MemoryService" not in shown
    assert "memory" in shown.casefold() and "MCP" in shown


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_every_option_has_help_text_and_shows_its_default(name):
    parser = _subparsers()[name]
    shown = " ".join(parser.format_help().split())
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{name} {action.option_strings or action.dest} has no help text"
        if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
            assert f"(default: {action.default})" in shown, f"{name} {action.option_strings} shows no default"


def test_the_positional_help_of_conflicts_is_its_own_not_copied_from_fact():
    conflicts = " ".join(_subparsers()["conflicts"].format_help().split())
    assert "subject predicate object" not in conflicts and "REL_ID" in conflicts


def test_stats_prints_readable_text_not_python_reprs(capsys):
    run(capsys, "store", WEBHOOK, "--kind", "pattern")
    code, out, _ = run(capsys, "stats")
    assert code == 0 and "{" not in out and "'" not in out
    assert "by kind: pattern 1" in out


def test_counts_are_worded_in_the_right_number_and_json_count_matches_total(capsys):
    _, out, _ = run(capsys, "--json", "store", WEBHOOK)
    stored = json.loads(out)["id"]
    code, out, _ = run(capsys, "touch", stored)
    assert code == 0 and out.rstrip().endswith("reinforced 1 memory")
    _, out, _ = run(capsys, "--json", "touch", stored)
    report = json.loads(out)
    assert report["count"] == report["total"] == 1
    _, out, _ = run(capsys, "history", stored)
    assert out.rstrip().endswith("1 version, 1 current")


def test_import_prints_only_its_report_on_stdout(capsys, tmp_path):
    (tmp_path / "one.jsonl").write_text(json.dumps({"content": WEBHOOK}) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", "one.jsonl")
    assert code == 0 and out == "imported (observations): memories 1; duplicates 0\n"

"""The CLI as a shell user meets it (issue 13, items 9 and 10): standard input, pipes, ``--version``, ``show``,
help text with defaults, and readable output."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from graphmem import __version__
from graphmem.cli import main
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

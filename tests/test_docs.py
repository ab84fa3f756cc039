"""Docs are code: every example in README.md and docs/*.md runs in the suite and prints what the page shows.

Every CLI command is documented with its help text, its example and the output that example printed. The core
commands live in ``docs/cli.md`` under ``## graphmem <command>`` headings; a feature's own page
(``docs/<feature>.md``) may document its commands: the help text on the page, and a ``console`` block with
``$ <example>`` followed by the output it printed.

Which code blocks run, by the fence's language tag:

- ``python``: a complete example. It runs, in a fresh directory with no ``GRAPHMEM_*`` variable, and what it
  prints must equal the ``output`` block right after it (a line ``…`` there stands for any lines). A Python
  block without an ``output`` block must still run without error.
- ``console``: a terminal session on the bundled corpus, run by
  ``test_every_console_example_prints_what_the_page_shows`` (the runner is ``tests/doc_console.py``):

  - A line starting ``$ `` is a command; the lines after it, up to the next ``$ `` line or the end of the
    block, are what it printed: stdout and stderr as they interleave, except the ``graphmem: using store …``
    line every command writes on stderr. A command with no lines under it printed nothing.
  - A page's blocks run in order, as one session, in a fresh directory shown as ``/home/me/webshop`` (the
    real temporary path is printed as that) with ``HOME=/home/me``, no ``GRAPHMEM_*`` or ``XDG_*`` variable,
    ``COLUMNS=100``, a copy of ``data/``, and a project store holding the bundled corpus: what
    ``graphmem init`` then ``graphmem import data/observations.jsonl`` make, as docs/cli.md tells a reader to
    do first. A page with ``<!-- doccheck: fresh directory -->`` starts without the store and makes its own
    (README.md, docs/cli.md, docs/configuration.md). Later blocks see what earlier ones wrote, so the figures
    a block quotes about the corpus hold only before the page writes to the store (``scripts/doc_figures.py``
    measures those figures, and ``tests/test_doc_figures.py`` checks the quotes).
  - Volatile parts. A line ``…`` (indented or not) stands for any number of lines, and ``…`` inside a line
    for any text on that line: use it for durations, scores that move with the clock, and long outputs cut
    short (graphmem itself ends a cut text with ``…``, which ``…`` also matches). An id (``mem_``, ``rel_``,
    ``fact_``, ``ses_``, ``prm_``, ``skill_`` and 20 characters, or ``clu_`` and 16 hex digits) matches the
    id printed in its place; the same id shown twice must be the same id printed twice, two different ids
    shown must be two printed, and a later command that uses a shown id runs with the printed one. A
    timestamp matches itself, or one printed during the page's run (the "now" of the example; a time
    derived from now, such as a review date a week ahead, is written with ``…``).
  - Files a page reads: ``<!-- doccheck: file PATH -->`` right before any fenced block writes that block's
    text to ``PATH`` before the page runs; ``<!-- doccheck: file PATH`` then lines then ``-->`` writes those
    lines (a file the page uses but need not show, such as a broken input).
  - ``<!-- doccheck: skip: REASON -->`` right before a block keeps it from running. Only what cannot run in
    the suite is skipped (a server that runs until stopped, the test suite itself), and
    :data:`NOT_RUN` lists every such block, so a new one is a deliberate change here.

  Every ``$ graphmem …`` line, run or not, must also parse.
- ``json``, ``toml``, ``text``, ``markdown``, ``output``, ``bash`` and untagged blocks are shown, not run: request
  and result shapes, configuration, figures, or setup steps that need a network, an MCP client or another
  machine. Tag a block ``pycon`` or ``text`` to show Python that must not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.cli import COMMANDS, build_parser
from tests import doc_console

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CORE_COMMANDS = ("serve", "store", "show", "search", "associate", "import", "export", "stats", "demo")
_CONSOLE_BLOCK = re.compile(r"```(?:console|shell|sh|bash|text)\n(.*?)```", re.DOTALL)


def pages() -> dict[Path, str]:
    return {page: page.read_text(encoding="utf-8") for page in sorted(DOCS.glob("*.md"))}


def example_outputs(text: str) -> dict[str, list[str]]:
    """``$ command`` line → the output lines printed under it, over every console block of a page."""
    outputs: dict[str, list[str]] = {}
    for block in _CONSOLE_BLOCK.findall(text):
        current: list[str] | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = outputs.setdefault(line[2:].strip(), [])
            elif current is not None and line.strip():
                current.append(line)
    return outputs


def invocations(example: str) -> list[str]:
    """A command's example string may hold several invocations separated by ``; ``."""
    return [part.strip() for part in example.split("; ")]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_documented_with_help_text_an_example_and_its_output(name):
    handler, example = COMMANDS[name]
    summary = (handler.__doc__ or "").strip().splitlines()[0]
    for invocation in invocations(example):
        shown = {page.name: example_outputs(text).get(invocation) for page, text in pages().items()}
        documented = [page for page, output in shown.items() if output is not None]
        assert documented, f"no page of docs/ shows '$ {invocation}' in a console block"
        assert any(shown[page] for page in documented), f"'$ {invocation}' is shown without its output"
        assert any(summary in pages()[DOCS / page] for page in documented), (
            f"the help text of {name} ({summary!r}) is not on the page that shows its example")


def test_the_core_commands_have_their_own_section_on_the_cli_page():
    cli_page = (DOCS / "cli.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## graphmem (\S+)\s*$", cli_page, re.MULTILINE)
    assert sorted(headings) == sorted(CORE_COMMANDS)


def test_every_graphmem_line_in_the_docs_parses():
    lines = [line for text in pages().values() for line in example_outputs(text)
             if line.startswith("graphmem ")]
    assert lines
    for line in lines:
        args = build_parser().parse_args(shlex.split(line)[1:])
        assert args.command in COMMANDS, line


_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```\n(?:```output\n(.*?)```)?", re.DOTALL)


def python_examples() -> list[tuple[str, str, str | None]]:
    """(where, code, expected output or None) for every ``python`` block of README.md and docs/*.md."""
    examples = []
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for index, (code, output) in enumerate(_PYTHON_BLOCK.findall(page.read_text(encoding="utf-8"))):
            examples.append((f"{page.name}#{index + 1}", code, output or None))
    return examples


def matches(printed: list[str], expected: list[str]) -> bool:
    """``printed`` equals ``expected`` where a line ``…`` in ``expected`` stands for any lines."""
    if not expected:
        return not printed
    if expected[0] == "…":
        return any(matches(printed[cut:], expected[1:]) for cut in range(len(printed) + 1))
    return bool(printed) and printed[0] == expected[0] and matches(printed[1:], expected[1:])


def test_the_readme_has_a_python_example_with_its_output():
    assert any(where.startswith("README.md") and output for where, _, output in python_examples())


@pytest.mark.parametrize("where, code, output", python_examples(), ids=[e[0] for e in python_examples()])
def test_every_python_example_runs_and_prints_what_the_page_says(where, code, output, tmp_path):
    environ = {name: value for name, value in os.environ.items() if not name.startswith("GRAPHMEM_")}
    environ["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environ, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{where} failed:\n{done.stderr}"
    if output is not None:
        assert matches(done.stdout.splitlines(), output.splitlines()), f"{where} printed:\n{done.stdout}"


# --- console blocks ---------------------------------------------------------------------------------------

CONSOLE_PAGES = {page.name: doc_console.parse_page(page.name, page.read_text(encoding="utf-8"))
                 for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]}
NOT_RUN = {  # every console block marked `doccheck: skip`, with the reason it cannot run in the suite
    "cli.md": "a server runs until it is stopped, and the log shows a client's request "
              "(tests/test_processes.py starts one)",
    "testing.md": "runs the test suite, which runs this page",
}


@pytest.fixture(scope="module")
def runner():
    started = doc_console.Runner()
    yield started
    started.close()


@pytest.fixture(scope="module")
def corpus_store(runner, tmp_path_factory) -> tuple[Path, int]:
    """The bundled corpus in a new project store, made as a reader makes it (``graphmem init``, ``graphmem import``),
    and when it was made: the import opens a session per project, so its "now" is part of every page's run."""
    started_ms = int(time.time() * 1000)
    sandbox = doc_console.Sandbox(tmp_path_factory.mktemp("corpus"), runner)
    for command, last_line in [("graphmem init", "created /home/me/webshop/.graphmem/memory.db"),
                               ("graphmem import data/observations.jsonl",
                                "imported (observations): memories 341; duplicates 0")]:
        done = sandbox.run(command)
        assert done.returncode == 0 and last_line in done.lines, done.lines
    return sandbox.cwd / ".graphmem", started_ms


def _report(block: doc_console.Block, command: doc_console.Command, ran: str,
            printed: doc_console.Transcript) -> str:
    return "\n".join([f"{block.page}:{command.line}: `$ {command.text}` does not print what the page shows",
                      *([f"(ran as `$ {ran}`)"] if ran != command.text else []), "--- shown",
                      *command.expected, f"--- printed (exit code {printed.returncode})", *printed.lines])


@pytest.mark.parametrize("name", [name for name, page in CONSOLE_PAGES.items()
                                  if any(block.skip is None for block in page.blocks)])
def test_every_console_example_prints_what_the_page_shows(name, runner, corpus_store, tmp_path):
    page = CONSOLE_PAGES[name]
    sandbox = doc_console.Sandbox(tmp_path, runner)
    started_ms = int(time.time() * 1000)
    if page.corpus:
        store, started_ms = corpus_store
        shutil.copytree(store, sandbox.cwd / ".graphmem")
    for path, content in page.files:
        sandbox.write(path, content)
    bindings = doc_console.Bindings(started_ms=started_ms)
    for block in page.blocks:
        if block.skip is not None:
            continue
        for command in block.commands:
            ran = bindings.substitute(command.text)
            printed = sandbox.run(ran)
            matched = doc_console.match(command.expected, printed.lines, bindings)
            assert matched is not None, _report(block, command, ran, printed)
            bindings = matched


def test_every_console_block_runs_unless_it_says_why_it_cannot():
    blocks = [block for page in CONSOLE_PAGES.values() for block in page.blocks]
    skipped = {block.page: block.skip for block in blocks if block.skip is not None}
    assert skipped == NOT_RUN
    assert len(blocks) - len(skipped) >= 39  # README.md and docs/: 39 blocks run, 2 do not
    assert all(block.commands for block in blocks), [block.where for block in blocks if not block.commands]


def test_the_console_matcher_binds_ids_and_times_and_cuts_at_ellipses():
    bindings = doc_console.Bindings(started_ms=int(time.time() * 1000) - 1_000)
    a, b = "mem_01kk8znyd0rqzzzey23a", "mem_01m8mry4jqd6r5h8ma20"
    x, y = "mem_01abcdefgh0123456789", "mem_01zyxwvtsr9876543210"
    now = datetime.now(UTC).isoformat()
    shown = (f"{a} supersedes {b} at 2026-11-30T16:41:27+00:00", "…", f"kept {a} (took …s)")
    matched = doc_console.match(shown, [f"{x} supersedes {y} at {now}", "one", "two", f"kept {x} (took 0.25s)"],
                                bindings)
    assert matched is not None and matched.substitute(f"graphmem show {b}") == f"graphmem show {y}"
    assert doc_console.match(shown, [f"{x} supersedes {y} at {now}", f"kept {y} (took 1s)"], bindings) is None
    assert doc_console.match(shown, [f"{x} supersedes {x} at {now}", f"kept {x} (took 1s)"], bindings) is None
    assert doc_console.match(("at 2026-03-09T09:43:32+00:00",), ["at 2026-03-10T09:43:32+00:00"], bindings) is None
    assert doc_console.match(("a", "b"), ["a", "b", "c"], bindings) is None
    with pytest.raises(KeyError):
        bindings.substitute(f"graphmem show {a}")

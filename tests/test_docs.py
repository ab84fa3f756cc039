"""Docs are code: every CLI command is documented with its help text, its example and the output that
example printed, and every ``$ graphmem …`` line in the docs still parses.

The core commands live in ``docs/cli.md`` under ``## graphmem <command>`` headings; a feature's own page
(``docs/<feature>.md``) may document its commands: the help text on the page, and a ``console`` block with
``$ <example>`` followed by the output it printed.

Which code blocks run (README.md and docs/*.md), by the fence's language tag:

- ``python``: a complete example. It runs, in a fresh directory with no ``GRAPHMEM_*`` variable, and what it
  prints must equal the ``output`` block right after it (a line ``…`` there stands for any lines). A Python
  block without an ``output`` block must still run without error.
- ``console``: ``$ graphmem …`` lines and the output they printed on the bundled corpus; every such line must
  parse (below) and each command's example must be shown with its output.
- ``json``, ``toml``, ``text``, ``markdown``, ``output``, ``bash`` and untagged blocks are shown, not run: request
  and result shapes, configuration, figures, or setup steps that need a network or another machine. Tag a
  block ``pycon`` or ``text`` to show Python that must not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from graphmem.cli import COMMANDS, build_parser

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

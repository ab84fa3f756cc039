"""Docs are code: every CLI command is documented with its help text, its example and the output that
example printed, and every ``$ graphmem …`` line in the docs still parses.

The core commands live in ``docs/cli.md`` under ``## graphmem <command>`` headings; a feature's own page
(``docs/<feature>.md``) may document its commands: the help text on the page, and a ``console`` block with
``$ <example>`` followed by the output it printed.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from graphmem.cli import COMMANDS, build_parser

DOCS = Path(__file__).resolve().parent.parent / "docs"
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

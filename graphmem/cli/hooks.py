"""Entry points for an agent client's hooks: memory to inject at session start, a session note captured at stop.

A client such as Claude Code runs a command at an event and writes a JSON object to its stdin (``session_id``,
``cwd``, ``hook_event_name``; at ``Stop`` also ``transcript_path`` and ``stop_hook_active``). Both commands open
the store of the session's working directory (``cwd``, found by the usual rule), and its project defaults to that
directory's project (:func:`graphmem.settings.project_of`). docs/hooks.md has the Claude Code configuration.

A failing hook exits 1, never 2: Claude Code reads exit code 2 from a Stop hook as "do not stop", which would
keep the agent running on a memory error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from graphmem.cli.app import Commands, emit, open_service, read_input
from graphmem.errors import GraphmemError, InvalidInput

__all__ = ["COMMANDS", "add_arguments", "cmd_hook_start", "cmd_hook_stop", "last_assistant_text", "read_event"]

_SHOWN_CHARS = 200  # a memory's text in the injected context: enough to act on, short enough for every session


def cmd_hook_start(args: argparse.Namespace) -> None:
    """Session-start hook: print the project's recent memories, due reviews and open conflicts, ready to inject."""
    try:
        _entered()
        project = args.project or _default_project()
        report = open_service(args).sessions.start(project, args.client)
    except (GraphmemError, OSError) as error:
        _fail(error)
    emit(args, report, lambda r: render_start(r, project))


def cmd_hook_stop(args: argparse.Namespace) -> None:
    """Stop hook: capture the session note (the last reply's Decisions / Errors / Patterns ... bullets)."""
    try:
        event = _entered()
        note = read_input(args.file) if args.file else last_assistant_text(event)
        if event.get("stop_hook_active") or not note.strip():  # a hook-driven continuation, or nothing to capture
            emit(args, {"stored": 0, "duplicates": 0, "skipped": 0}, lambda _: "nothing to capture")
            return
        result = open_service(args).capture.markdown(note, project=args.project or _default_project(),
                                                     tags=args.tag, source="hook")
    except (GraphmemError, OSError) as error:
        _fail(error)
    emit(args, result, lambda r: "\n".join([*(f"{i.id} [{i.kind}] {i.content[:90]}" for i in r.items),
                                             f"captured {r.stored}, duplicates {r.duplicates}"]))


def render_start(report: Any, project: str | None) -> str:
    """The session start as Markdown for the agent's context: what each memory says, with its id."""
    lines = [f"# graphmem: memory of {'project ' + project if project else 'every project'}",
             f"{report.message}. Recall more with memory_search; store decisions, errors and patterns as you work."]
    sections = [("Recent memories", [f"- [{m.kind}] {m.id}: {_cut(m.content)}" for m in report.recent_memories]),
                ("Due for review", [f"- {m.id} ({m.days_overdue} days overdue): {_cut(m.content)}"
                                    for m in report.due_reviews]),
                ("Open conflicts", [f"- {c.type} {c.source_id} → {c.target_id}: {c.reason or 'pending judgment'}"
                                    for c in report.open_conflicts])]
    for title, items in sections:
        lines += [f"\n## {title}", *(items or ["- none"])]
    return "\n".join(lines)


def read_event(text: str) -> dict[str, Any]:
    """The hook's JSON object; empty input is an empty event (a hook run by hand)."""
    if not text.strip():
        return {}
    try:
        event = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInput(f"the hook input on stdin is not JSON: {error}") from None
    if not isinstance(event, dict):
        raise InvalidInput("the hook input on stdin must be a JSON object")
    return event


def last_assistant_text(event: dict[str, Any]) -> str:
    """The text of the last assistant message in the event's transcript (Claude Code's JSON lines)."""
    path = event.get("transcript_path")
    if not path:
        return ""
    last = ""
    for line in Path(path).expanduser().read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line being written as we read
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            last = _text_of(message.get("content")) or last
    return last


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict)
                         and part.get("type") == "text")
    return ""


def _entered() -> dict[str, Any]:
    """Read the event and move to its working directory, so the store and project are the session's."""
    event = read_event("" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read())
    folder = event.get("cwd")
    if isinstance(folder, str) and folder:
        os.chdir(folder)
    return event


def _default_project() -> str | None:
    from graphmem.settings import project_of

    return project_of(Path.cwd())


def _fail(error: Exception) -> NoReturn:
    print(f"error: {error}", file=sys.stderr)
    raise SystemExit(1)


def _cut(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= _SHOWN_CHARS else flat[:_SHOWN_CHARS - 1] + "…"


COMMANDS: Commands = {
    "hook-start": (cmd_hook_start, "graphmem hook-start --project web-frontend"),
    "hook-stop": (cmd_hook_stop, "graphmem hook-stop --project web-frontend --file session-note.md"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the hook commands (each also reads the client's JSON event on stdin)."""
    for name in COMMANDS:
        parsers[name].add_argument("--project", help="the project (default: the session directory's project: "
                                                     "its git root's or project store's folder name)")
    parsers["hook-start"].add_argument("--client", help="the client's name, kept on the session")
    parsers["hook-stop"].add_argument("--file", help="capture this note file instead of the transcript's last reply")
    parsers["hook-stop"].add_argument("--tag", action="append", default=[], help="tag every captured memory")

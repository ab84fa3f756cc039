"""The sessions command: the timeline of recent sessions (docs/lifecycle.md). A thin call into
``MemoryService.sessions``.
"""

from __future__ import annotations

import argparse
from typing import Any

from graphmem.cli.app import Commands, run_closing

__all__ = ["COMMANDS", "add_arguments"]


def cmd_sessions(args: argparse.Namespace) -> None:
    """The timeline: recent sessions with their observations (ids) and saved prompts."""
    run_closing(args, lambda s: s.sessions.timeline(args.limit, args.session, args.project),
                render_sessions, embeds=False)


def render_sessions(report: Any) -> str:
    lines = []
    for entry in report.timeline:
        info = entry.session
        lines.append(f"{info.id}  {info.project or '-'}  {info.client or '-'}  started {info.started_at}  "
                     f"{'open' if info.open else 'closed'}  ({entry.observation_count} observations)")
        lines += [f"    prompt {p.id}: {p.content[:90]}" for p in entry.prompts]
        lines += [f"    {item.id}  [{item.kind}] {(item.content or '')[:90]}" for item in entry.observations]
    return "\n".join([*lines, report.message])


COMMANDS: Commands = {
    "sessions": (cmd_sessions, "graphmem sessions --project web-frontend --limit 2"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of ``sessions``."""
    sessions = parsers["sessions"]
    sessions.add_argument("--project", help="only this project's memories")
    sessions.add_argument("--limit", type=int, default=5, help="at most this many")
    sessions.add_argument("--session", help="one session id")

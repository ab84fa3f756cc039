"""What every CLI command shares: the store this call opens, the service over it, output and the command table.

Feature modules (``memories``, ``relations``, ``lifecycle``, ``start``) import only this module, never each
other, and call only the ``MemoryService`` facade. Nothing heavy loads here: the service (spaCy, scipy,
SQLAlchemy) is imported by :func:`open_service`, when a command needs it.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Command", "Commands", "HelpFormatter", "emit", "open_service", "plain", "read_input", "render_history",
           "settings_for"]

Command = Callable[[argparse.Namespace], None]
# name → (handler, example): the handler's docstring is the command's help, the example its epilog.
Commands = dict[str, tuple[Command, str]]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless it has none worth showing (unset, off, empty)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False, [], argparse.SUPPRESS) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def settings_for(args: argparse.Namespace, *, create: bool = False) -> Any:
    """The settings of this call, once the store they name exists (or may be created).

    Prints the one stderr line that says which store this process opened.
    """
    from graphmem.settings import Settings, store_location

    settings = Settings.load(**({"db": args.db} if args.db else {}))
    location = store_location(settings)
    if location.path is not None and not location.path.is_absolute():
        # memory_status and stats report the store by its full path, whatever directory they run from
        settings = settings.model_copy(update={"db": str(location.path.absolute())})
        location = store_location(settings)
    # A named store (--db, GRAPHMEM_DB, a project's .graphmem/) must exist: a typo must not silently
    # become a new, empty memory. The per-user store is the one fallback created on first use.
    created = location.prepare(create=create or args.create or location.source == "user")
    print(f"graphmem: {'created' if created else 'using'} store {location.shown()} ({location.source})",
          file=sys.stderr)
    return settings


def open_service(args: argparse.Namespace, *, create: bool = False) -> Any:
    """The ``MemoryService`` over this call's store; closed at exit, so one-shot commands keep their metrics."""
    from graphmem.service import MemoryService

    service = MemoryService(settings_for(args, create=create))
    atexit.register(service.close)  # one-shot commands still persist their metrics (docs/lifecycle.md)
    return service


def read_input(name: str) -> str:
    """The UTF-8 text of the file ``name``, or of standard input for ``-``."""
    if name == "-":
        return sys.stdin.read()
    return Path(name).read_text(encoding="utf-8")


def emit(args: argparse.Namespace, value: Any, render: Callable[[Any], str]) -> None:
    """Print ``value``: JSON with ``--json``, else ``render(value)``."""
    if args.json:
        print(json.dumps(plain(value), ensure_ascii=False, indent=2, default=str))
    else:
        print(render(value))


def plain(value: Any) -> Any:
    """``value`` with every dataclass turned into a dict, for JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def render_history(history: Any) -> str:
    """The one history view (``history`` and ``chain``): versions oldest first, * current, then events."""
    lines = [f"{'*' if v.current else ' '} {v.id} [{v.valid_from} → {v.valid_to or 'now'}] {v.content[:90]}"
             for v in history.memories]
    lines += [f"  {e.at}: {e.new_id} replaced {e.old_id} ({e.via})" for e in history.events]
    return "\n".join([*lines, history.message])

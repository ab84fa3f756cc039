"""What every CLI command shares: the store this call opens, the service over it, output and the command table.

Feature modules (one per feature of the service: ``memories``, ``recall``, ``relations``, ``lifecycle``,
``sessions``, ``learning``, ``export``, ``maintenance``; and ``start``, ``hooks``) import only this module, never
each other, and call only the ``MemoryService`` facade. Nothing heavy loads here: the service (spaCy, scipy,
SQLAlchemy) is imported by :func:`open_service`, when a command needs it.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import gc
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["Command", "Commands", "HelpFormatter", "collector_paused", "emit", "open_service", "plain", "read_input",
           "render_report", "resume_collector", "run_closing", "settings_for"]

Command = Callable[[argparse.Namespace], None]
# name → (handler, example): the handler's docstring is the command's help, the example its epilog.
Commands = dict[str, tuple[Command, str]]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless it has none worth showing (unset, off, empty)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False, [], argparse.SUPPRESS) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


_RESUME: list[bool] = []  # per running command: whether the collector was on when start-up paused it


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run a command with the cyclic garbage collector paused until :func:`resume_collector` (or its end).

    Start-up imports create hundreds of thousands of long-lived objects and almost no cyclic garbage, yet
    they trigger full collections that walk everything already imported: a fifth of the CPU of importing
    the server and the service (``python -c "import graphmem.server.app"``: 2.4-2.6 s with the collector,
    2.0-2.1 s without, docs/benchmarks.md, issue 22). The collector is on again once the modules are
    imported and the service is built, and in any case when the command returns.
    """
    gc.unfreeze()  # what an earlier command in this process froze (tests run many) is collected as usual again
    _RESUME.append(gc.isenabled())
    gc.disable()
    try:
        yield
    finally:
        if _RESUME.pop():
            gc.enable()


def resume_collector(*, freeze: bool = False) -> None:
    """Start-up is over (modules imported, service built): collect garbage again if start-up paused it.

    ``freeze`` (a one-shot command): what start-up made first moves to the collector's permanent generation,
    which no collection walks, the interpreter's own at exit included. Those collections walked every
    imported module, class and validator: 0.25 s of the 0.9 s of CPU of a ``graphmem show`` (issue 22).
    What the command makes from then on is collected as usual.
    """
    if _RESUME and _RESUME[-1]:
        if freeze:
            gc.freeze()
        gc.enable()


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


def open_service(args: argparse.Namespace, *, create: bool = False, embeds: bool = True) -> Any:
    """The ``MemoryService`` over this call's store; closed at exit, so one-shot commands keep their metrics.

    ``embeds=False``: the command parses and embeds no text, so the embedding model loads only if something
    asks for it after all (it otherwise starts loading at open, on a thread the process waits for at exit)."""
    from graphmem.service import MemoryService

    # A one-shot command: each feature, and the projection, open on first use (show reads rows only)
    service = MemoryService(settings_for(args, create=create), preload_embedder=embeds, preload=False)
    resume_collector(freeze=True)
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


def run_closing(args: argparse.Namespace, call: Callable[[Any], Any], render: Callable[[Any], str], *,
                embeds: bool = True) -> None:
    """Open the service, ``emit`` what ``call(service)`` returns, and close the service (flushing its metrics)."""
    service = open_service(args, embeds=embeds)
    try:
        emit(args, call(service), render)
    finally:
        service.close()


def render_report(report: Any) -> str:
    """A lifecycle report (memory edits and the lifecycle's jobs): one line per memory (id first), then the
    message."""
    lines = [_item_line(item) for item in report.items]
    lines += [f"{m.operation:<28} calls {m.calls:>6}  errors {m.errors:>4}  mean {m.mean_ms:>8.2f} ms  "
              f"p50 {m.p50_ms:>8.2f}  p95 {m.p95_ms:>8.2f}  max {m.max_ms:>8.2f}" for m in report.metrics]
    return "\n".join([*lines, report.message])


def _item_line(item: Any) -> str:
    marks = [f"[{item.kind}]" if item.kind else "", item.status or "",
             f"score {item.score:.3f}" if item.score is not None else "",
             f"{item.days_overdue:g} days overdue" if item.days_overdue is not None else "",
             "current" if item.current else "",
             f"superseded by {item.superseded_by}" if item.superseded_by else "",
             f"→ {item.vault_path}" if item.vault_path else "",
             "; ".join(item.reasons)]
    head = f"{'*' if item.current else ' '} {item.id}  " + "  ".join(m for m in marks if m)
    return head + (f"\n      {item.content[:100]}" if item.content else "")

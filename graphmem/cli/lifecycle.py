"""The lifecycle commands of the ``graphmem`` CLI: bulk jobs (gc, prune, promote) and review, history,
sessions and metrics (docs/lifecycle.md). Each is a thin call into ``MemoryService.lifecycle``.

gc, prune and promote are dry runs unless ``--apply`` is given; only ``--delete`` deletes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from graphmem.cli.app import Commands, emit, open_service, render_history

__all__ = ["COMMANDS", "add_arguments", "render_report", "render_sessions"]


def _run(args: argparse.Namespace, call: Callable[[Any], Any], render: Callable[[Any], str]) -> None:
    service = open_service(args)
    try:
        emit(args, call(service), render)
    finally:
        service.close()  # flushes metrics


def cmd_touch(args: argparse.Namespace) -> None:
    """Reinforce memories: use_count + 1, last_used = now (--boost raises strength)."""
    _run(args, lambda s: s.lifecycle.touch(args.ids, boost=args.boost), render_report)


def cmd_forget(args: argparse.Namespace) -> None:
    """Soft-forget a memory (status forgotten, valid until now); as_of before now still shows it."""
    _run(args, lambda s: s.lifecycle.forget(args.id, superseded_by=args.superseded_by, reason=args.reason),
         render_report)


def cmd_restore(args: argparse.Namespace) -> None:
    """Restore a forgotten or archived memory."""
    _run(args, lambda s: s.lifecycle.restore(args.id), render_report)


def cmd_correct(args: argparse.Namespace) -> None:
    """Correct a memory: a new version supersedes it; the original stays in its history."""
    _run(args, lambda s: s.lifecycle.correct(args.id, args.content, reason=args.reason), render_report)


def cmd_history(args: argparse.Namespace) -> None:
    """Every version of a memory, oldest first; * marks the current one."""
    _run(args, lambda s: s.history.of(args.id), render_history)


def cmd_review(args: argparse.Namespace) -> None:
    """The review queue (memories past review_after), or --mark ID to clear/reschedule one."""
    if args.mark:
        _run(args, lambda s: s.lifecycle.mark_reviewed(args.mark, reschedule=args.reschedule,
                                                       review_after=args.next), render_report)
    else:
        _run(args, lambda s: s.lifecycle.review_queue(args.project, args.limit), render_report)


def cmd_promote(args: argparse.Namespace) -> None:
    """Promote to long-term memory: named ids, or auto-detected candidates (dry run unless --apply)."""
    _run(args, lambda s: s.lifecycle.promote(args.ids, dry_run=not args.apply, force=args.force,
                                             export=args.export, folder=args.folder, project=args.project,
                                             limit=args.limit), render_report)


def cmd_gc(args: argparse.Namespace) -> None:
    """Archive (or --delete) memories whose decay score fell below the forget threshold."""
    _run(args, lambda s: s.lifecycle.gc(dry_run=not args.apply, mode="delete" if args.delete else "archive",
                                        limit=args.limit, project=args.project, threshold=args.threshold),
         render_report)


def cmd_prune(args: argparse.Namespace) -> None:
    """Archive (or --delete) memories neither created nor used within --older-than; kinds can be protected."""
    protect = [] if args.no_protect else (args.protect or None)
    _run(args, lambda s: s.lifecycle.prune(args.older_than, dry_run=not args.apply,
                                           mode="delete" if args.delete else "archive", protect=protect,
                                           project=args.project, limit=args.limit), render_report)


def cmd_sessions(args: argparse.Namespace) -> None:
    """The timeline: recent sessions with their observations (ids) and saved prompts."""
    _run(args, lambda s: s.sessions.timeline(args.limit, args.session, args.project),
         render_sessions)


def cmd_metrics(args: argparse.Namespace) -> None:
    """Per-operation calls, errors and latency (mean, p50, p95, max), kept across restarts; --reset clears."""
    _run(args, lambda s: s.lifecycle.metrics_report(reset=args.reset), render_report)


COMMANDS: Commands = {
    "touch": (cmd_touch, "graphmem touch payments-api/outbox --boost"),
    "correct": (cmd_correct, ('graphmem correct web-frontend/session-storage '
                           '"Sessions live in Redis with a 30-minute sliding TTL"')),
    "history": (cmd_history, "graphmem history web-frontend/session-storage"),
    "forget": (cmd_forget, 'graphmem forget web-frontend/sw-lifecycle --reason "the service worker is gone"'),
    "restore": (cmd_restore, "graphmem restore web-frontend/sw-lifecycle"),
    "review": (cmd_review, "graphmem review --project web-frontend; "
                           "graphmem review --mark infra/deploy-tooling --reschedule"),
    "promote": (cmd_promote, "graphmem promote payments-api/outbox --force --apply --export"),
    "prune": (cmd_prune, "graphmem prune --older-than 90d --protect decision"),
    "gc": (cmd_gc, "graphmem gc"),
    "sessions": (cmd_sessions, "graphmem sessions --project web-frontend --limit 2"),
    "metrics": (cmd_metrics, "graphmem metrics"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the lifecycle commands (docs/lifecycle.md)."""
    parsers["touch"].add_argument("ids", nargs="+", help="memory ids or topic keys")
    parsers["touch"].add_argument("--boost", action="store_true", help="also raise strength (capped)")
    for name in ("forget", "restore", "correct", "history"):
        parsers[name].add_argument("id", help="memory id or topic key")
    parsers["forget"].add_argument("--superseded-by", help="the memory that replaces it")
    parsers["correct"].add_argument("content", help="the corrected text")
    for name in ("forget", "correct"):
        parsers[name].add_argument("--reason", help="why, kept with the change")
    review = parsers["review"]
    review.add_argument("--mark", metavar="ID", help="mark this memory reviewed (clears its date)")
    review.add_argument("--reschedule", action="store_true",
                        help="with --mark: next review after a growing interval")
    review.add_argument("--next", metavar="WHEN", help="with --mark: next review at an ISO date or epoch ms")
    promote = parsers["promote"]
    promote.add_argument("ids", nargs="*", help="memory ids (default: auto-detect candidates)")
    promote.add_argument("--force", action="store_true", help="promote named ids even if criteria fail")
    promote.add_argument("--export", action="store_true", help="write Markdown notes to lifecycle.vault_path")
    promote.add_argument("--folder", help="folder inside the vault (default: lifecycle.vault_folder)")
    for name in ("promote", "gc", "prune"):
        parsers[name].add_argument("--apply", action="store_true", help="change the store (default: dry run)")
    for name in ("gc", "prune"):
        parsers[name].add_argument("--delete", action="store_true", help="hard-delete instead of archiving")
    parsers["gc"].add_argument("--threshold", type=float, help="default: decay.forget_threshold")
    prune = parsers["prune"]
    prune.add_argument("--older-than", default="90d", help="idle age: 12h, 90d, 2w, 6m, 1y")
    prune.add_argument("--protect", action="append", metavar="KIND", help="kind never pruned (repeatable)")
    prune.add_argument("--no-protect", action="store_true", help="protect no kind")
    for name, limit in (("review", 20), ("promote", 100), ("gc", 1000), ("prune", 10_000), ("sessions", 5)):
        parsers[name].add_argument("--project", help="only this project's memories")
        parsers[name].add_argument("--limit", type=int, default=limit, help="at most this many")
    parsers["sessions"].add_argument("--session", help="one session id")
    parsers["metrics"].add_argument("--reset", action="store_true", help="clear every counter")


def render_report(report: Any) -> str:
    """One line per memory (id first), then the message."""
    lines = [_item_line(item) for item in report.items]
    lines += [f"{m.operation:<28} calls {m.calls:>6}  errors {m.errors:>4}  mean {m.mean_ms:>8.2f} ms  "
              f"p50 {m.p50_ms:>8.2f}  p95 {m.p95_ms:>8.2f}  max {m.max_ms:>8.2f}" for m in report.metrics]
    return "\n".join([*lines, report.message])


def render_sessions(report: Any) -> str:
    lines = []
    for entry in report.timeline:
        info = entry.session
        lines.append(f"{info.id}  {info.project or '-'}  {info.client or '-'}  started {info.started_at}  "
                     f"{'open' if info.open else 'closed'}  ({entry.observation_count} observations)")
        lines += [f"    prompt {p.id}: {p.content[:90]}" for p in entry.prompts]
        lines += [f"    {item.id}  [{item.kind}] {(item.content or '')[:90]}" for item in entry.observations]
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

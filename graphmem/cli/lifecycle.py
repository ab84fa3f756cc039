"""The lifecycle commands: bulk jobs (gc, prune, promote), review and metrics (docs/lifecycle.md). Each is a
thin call into ``MemoryService.lifecycle``.

gc, prune and promote are dry runs unless ``--apply`` is given; only ``--delete`` deletes. The edits of one
memory (touch, correct, forget, restore) are memories commands (``cli/memories.py``).
"""

from __future__ import annotations

import argparse

from graphmem.cli.app import Commands, render_report, run_closing

__all__ = ["COMMANDS", "add_arguments"]


def cmd_review(args: argparse.Namespace) -> None:
    """The review queue (memories past review_after), or --mark ID to clear/reschedule one."""
    if args.mark:
        run_closing(args, lambda s: s.lifecycle.mark_reviewed(args.mark, reschedule=args.reschedule,
                                                       review_after=args.next), render_report)
    else:
        run_closing(args, lambda s: s.lifecycle.review_queue(args.project, args.limit), render_report)


def cmd_promote(args: argparse.Namespace) -> None:
    """Promote to long-term memory: named ids, or auto-detected candidates (dry run unless --apply)."""
    run_closing(args, lambda s: s.lifecycle.promote(args.ids, dry_run=not args.apply, force=args.force,
                                             export=args.export, folder=args.folder, project=args.project,
                                             limit=args.limit), render_report)


def cmd_gc(args: argparse.Namespace) -> None:
    """Archive (or --delete) memories whose decay score fell below the forget threshold."""
    run_closing(args, lambda s: s.lifecycle.gc(dry_run=not args.apply, mode="delete" if args.delete else "archive",
                                        limit=args.limit, project=args.project, threshold=args.threshold),
         render_report)


def cmd_prune(args: argparse.Namespace) -> None:
    """Archive (or --delete) memories neither created nor used within --older-than; kinds can be protected."""
    protect = [] if args.no_protect else (args.protect or None)
    run_closing(args, lambda s: s.lifecycle.prune(args.older_than, dry_run=not args.apply,
                                           mode="delete" if args.delete else "archive", protect=protect,
                                           project=args.project, limit=args.limit), render_report)


def cmd_metrics(args: argparse.Namespace) -> None:
    """Per-operation calls, errors and latency (mean, p50, p95, max), kept across restarts; --reset clears."""
    run_closing(args, lambda s: s.lifecycle.metrics_report(reset=args.reset), render_report)


COMMANDS: Commands = {
    "review": (cmd_review, "graphmem review --project web-frontend; "
                           "graphmem review --mark infra/deploy-tooling --reschedule"),
    "promote": (cmd_promote, "graphmem promote payments-api/outbox --force --apply --export"),
    "prune": (cmd_prune, "graphmem prune --older-than 90d --protect decision"),
    "gc": (cmd_gc, "graphmem gc"),
    "metrics": (cmd_metrics, "graphmem metrics"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the lifecycle commands (docs/lifecycle.md)."""
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
    for name, limit in (("review", 20), ("promote", 100), ("gc", 1000), ("prune", 10_000)):
        parsers[name].add_argument("--project", help="only this project's memories")
        parsers[name].add_argument("--limit", type=int, default=limit, help="at most this many")
    parsers["metrics"].add_argument("--reset", action="store_true", help="clear every counter")

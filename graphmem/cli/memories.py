"""The memories commands: store, show, capture, history (also ``chain``), and the edits of one memory: touch,
correct, forget and restore (docs/cli.md, docs/lifecycle.md, docs/relations.md).

Each is a thin call into the ``MemoryService`` facade that prints text, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
from typing import Any

from graphmem.cli.app import Commands, emit, open_service, read_input, render_report, run_closing
from graphmem.core.values import KINDS
from graphmem.errors import NotFound

__all__ = ["ALIASES", "COMMANDS", "add_arguments"]


def cmd_store(args: argparse.Namespace) -> None:
    """Store one observation."""
    result = open_service(args).store(args.content, kind=args.kind, project=args.project,
                                      topic_key=args.topic_key, tags=args.tag, review_after=args.review_after)
    emit(args, result, lambda r: f"{'duplicate of' if r.duplicate else 'stored'} {r.id} [{r.kind}] "
                                 f"concepts: {', '.join(r.concepts[:12])}")


def cmd_show(args: argparse.Namespace) -> None:
    """Show one memory by id or topic key: its full text, fields, concepts and relations."""
    result = open_service(args, embeds=False).open([args.ref])
    if not result.memories:
        raise NotFound("memory id or topic key", args.ref)
    emit(args, result, _render_show)


_SHOWN_CONCEPTS = 12


def _render_show(result: Any) -> str:
    memory = result.memories[0]
    head = [memory.id, f"[{memory.kind}]", memory.project or "-"]
    head += [f" topic {memory.topic_key}"] if memory.topic_key else []
    lines = [" ".join(head) + f"  {memory.status}", memory.content,
             f"created {memory.created_at.isoformat()}  valid {memory.valid_from.isoformat()} → "
             f"{memory.valid_to.isoformat() if memory.valid_to else 'now'}  used {memory.use_count} "
             f"{'time' if memory.use_count == 1 else 'times'}  strength {memory.strength:.2f}"]
    lines += [f"superseded by {memory.superseded_by}"] if memory.superseded_by else []
    lines += [f"tags: {', '.join(memory.tags)}"] if memory.tags else []
    concepts = result.concepts.get(memory.id, ())
    more = f" (+{len(concepts) - _SHOWN_CONCEPTS} more, all with --json)" if len(concepts) > _SHOWN_CONCEPTS else ""
    lines.append(f"concepts: {', '.join(concepts[:_SHOWN_CONCEPTS]) or '-'}{more}")
    lines += [f"relation {r.id}: {r.source_id} {r.type} {r.target_id} ({r.status})" for r in result.relations]
    return "\n".join(lines)


def cmd_capture(args: argparse.Namespace) -> None:
    """Capture a markdown note's Decisions / Learnings / Errors ... bullets as typed memories."""
    content = read_input(args.file)
    capture = open_service(args).capture
    result = capture.markdown(content, project=args.project, tags=args.tag, dry_run=args.dry_run)
    emit(args, result, lambda r: "\n".join(
        [f"{i.id or '(dry run)'} [{i.kind}] {i.content[:90]}" for i in r.items]
        + [f"skipped line {s.line}: {s.reason}: {s.text[:60]}" for s in r.skipped]
        + [f"stored {r.stored}, duplicates {r.duplicates}, skipped {len(r.skipped)}"]))


def cmd_history(args: argparse.Namespace) -> None:
    """Every version of a memory or topic key, oldest first (* marks the current one), and what replaced what."""
    run_closing(args, lambda s: s.history.of(args.ref, args.project), render_history)


def render_history(history: Any) -> str:
    """Versions oldest first, * current, then one line per replacement with its time."""
    lines = [f"{'*' if v.current else ' '} {v.id} [{v.valid_from} → {v.valid_to or 'now'}] {v.content[:90]}"
             for v in history.memories]
    lines += [f"  {e.at}: {e.new_id} replaced {e.old_id} ({e.via})" for e in history.events]
    return "\n".join([*lines, history.message])


def cmd_touch(args: argparse.Namespace) -> None:
    """Reinforce memories: use_count + 1, last_used = now (--boost raises strength)."""
    run_closing(args, lambda s: s.edits.touch(args.ids, boost=args.boost), render_report)


def cmd_forget(args: argparse.Namespace) -> None:
    """Soft-forget a memory (status forgotten, valid until now); as_of before now still shows it."""
    run_closing(args, lambda s: s.edits.forget(args.id, superseded_by=args.superseded_by, reason=args.reason),
                render_report)


def cmd_restore(args: argparse.Namespace) -> None:
    """Restore a forgotten or archived memory."""
    run_closing(args, lambda s: s.edits.restore(args.id), render_report)


def cmd_correct(args: argparse.Namespace) -> None:
    """Correct a memory: a new version supersedes it; the original stays in its history."""
    run_closing(args, lambda s: s.edits.correct(args.id, args.content, reason=args.reason), render_report)


COMMANDS: Commands = {
    "store": (cmd_store, 'graphmem store "Use Redis for session storage" --kind decision --project web'),
    "show": (cmd_show, "graphmem show search-service/engine"),
    "capture": (cmd_capture, "graphmem capture notes/session-2026-03-01.md --project web"),
    "history": (cmd_history, "graphmem history web-frontend/session-storage"),
    "touch": (cmd_touch, "graphmem touch payments-api/outbox --boost"),
    "correct": (cmd_correct, ('graphmem correct web-frontend/session-storage '
                           '"Sessions live in Redis with a 30-minute sliding TTL"')),
    "forget": (cmd_forget, 'graphmem forget web-frontend/sw-lifecycle --reason "the service worker is gone"'),
    "restore": (cmd_restore, "graphmem restore web-frontend/sw-lifecycle"),
}
# Another name for a command: ``chain`` was the relation pages' name for the one history view.
ALIASES = {"chain": "history"}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the memories commands."""
    store = parsers["store"]
    store.add_argument("content", help="the observation's text")
    store.add_argument("--kind", default="note", help=f"one of: {', '.join(KINDS)}")
    store.add_argument("--project", help="the project it belongs to")
    store.add_argument("--topic-key", help="a stable key such as decision/session-storage; a new memory under "
                                           "the same key replaces the current one")
    store.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    store.add_argument("--review-after", help="review it after this date (ISO 8601 or epoch ms)")
    parsers["show"].add_argument("ref", metavar="ID_OR_TOPIC_KEY", help="memory id or topic key")
    capture = parsers["capture"]
    capture.add_argument("file", help="the markdown note, or - for standard input")
    capture.add_argument("--tag", action="append", default=[], help="a tag for every item (repeatable)")
    capture.add_argument("--dry-run", action="store_true", help="show what would be stored, store nothing")
    capture.add_argument("--project", help="the project every captured memory is stored in")
    parsers["history"].add_argument("ref", metavar="ID_OR_TOPIC_KEY", help="memory id or topic key")
    parsers["history"].add_argument("--project", help="the project whose topic key this is")
    parsers["touch"].add_argument("ids", nargs="+", help="memory ids or topic keys")
    parsers["touch"].add_argument("--boost", action="store_true", help="also raise strength (capped)")
    for name in ("forget", "restore", "correct"):
        parsers[name].add_argument("id", help="memory id or topic key")
    parsers["forget"].add_argument("--superseded-by", help="the memory that replaces it")
    parsers["correct"].add_argument("content", help="the corrected text")
    for name in ("forget", "correct"):
        parsers[name].add_argument("--reason", help="why, kept with the change")

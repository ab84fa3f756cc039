"""The relations commands: relate, conflicts and fact (docs/relations.md).

Each command is a thin call into ``MemoryService.relations`` that prints text, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from graphmem.cli.app import Commands, emit, open_service
from graphmem.core.relations import valid_relation_types
from graphmem.errors import InvalidInput

__all__ = ["COMMANDS", "add_arguments", "cmd_conflicts", "cmd_fact", "cmd_relate"]


def _args(args: argparse.Namespace, count: int, usage: str) -> list[str]:
    if len(args.args) != count:
        raise InvalidInput(f"usage: {usage}")
    return list(args.args)


def cmd_relate(args: argparse.Namespace) -> None:
    """Relate two memories (ids or topic keys) with a typed relation, judged now."""
    outcome = open_service(args).relations.relate(args.source, args.target, args.type,
                                                     confidence=args.confidence, reason=args.reason,
                                                     evidence=args.evidence)
    emit(args, outcome, lambda o: f"{o.action}: {o.message}" + (
        f"; superseded {', '.join(o.superseded)}" if o.superseded else ""))


def cmd_conflicts(args: argparse.Namespace) -> None:
    """Conflict workflow: scan, pending, compare A B, judge REL_ID, ignore REL_ID."""
    service = open_service(args)
    relations = service.relations
    if args.action == "scan":
        result: Any = service.conflicts.scan(args.limit, args.project, min_score=args.min_score)
        render: Callable[[Any], str] = _render_scan
    elif args.action == "pending":
        result, render = relations.pending(args.limit), _render_pending
    elif args.action == "compare":
        source, target = _args(args, 2, "graphmem conflicts compare A B --relation TYPE")
        confidence = 1.0 if args.confidence is None else args.confidence
        result = relations.compare(source, target, args.relation or "conflicts_with", confidence=confidence,
                                   reason=args.reason)
        render = _render_outcome
    elif args.action == "judge":
        (relation_id,) = _args(args, 1, "graphmem conflicts judge REL_ID [--relation TYPE] [--stronger ID]")
        result = relations.judge(relation_id, args.relation, confidence=args.confidence, reason=args.reason,
                                 stronger=args.stronger)
        render = _render_outcome
    else:
        (relation_id,) = _args(args, 1, "graphmem conflicts ignore REL_ID")
        result, render = relations.ignore(relation_id, args.reason), _render_outcome
    emit(args, result, render)


def _render_scan(scan: Any) -> str:
    lines = [f"{c.score:.3f} [{c.kind}] {c.a.id} vs {c.b.id}: {c.reason}\n    A: {c.a.content[:100]}\n"
             f"    B: {c.b.content[:100]}" for c in scan.candidates]
    return "\n".join([*lines, f"scanned {scan.scanned} memories, {scan.pairs_compared} pairs, "
                              f"{scan.settled_pairs_skipped} already related"])


def _render_pending(page: Any) -> str:
    lines = [f"{i.relation.id} {i.relation.type} ({i.relation.confidence}) {i.source.id} → {i.target.id}: "
             f"{i.relation.reason or ''}" for i in page.items]
    return "\n".join(lines) or "no pending relations"


def _render_outcome(outcome: Any) -> str:
    return f"{outcome.action}: {outcome.message}"


def cmd_fact(args: argparse.Namespace) -> None:
    """Temporal facts: add S P O, invalidate FACT_ID, at [--at T], timeline SUBJECT."""
    facts = open_service(args).facts
    if args.action == "add":
        subject, predicate, obj = _args(args, 3, "graphmem fact add SUBJECT PREDICATE OBJECT")
        result: Any = facts.add(subject, predicate, obj, confidence=args.confidence,
                                valid_from=args.valid_from, invalidate_previous=not args.keep_previous,
                                reason=args.reason)
    elif args.action == "invalidate":
        (fact_id,) = _args(args, 1, "graphmem fact invalidate FACT_ID [--at T]")
        result = facts.invalidate(fact_id, args.at, args.reason)
    elif args.action == "timeline":
        (subject,) = _args(args, 1, "graphmem fact timeline SUBJECT")
        result = facts.timeline(subject)
    else:
        result = facts.at(args.at, *(args.args + [None] * 3)[:3])
    emit(args, result, _render_facts)


def _render_facts(result: Any) -> str:
    facts = result.facts if hasattr(result, "facts") else (result.fact, *result.closed)
    lines = [f"{f.id} {f.subject} | {f.predicate} | {f.object}  [{f.valid_from.isoformat()} → "
             f"{f.valid_to.isoformat() if f.valid_to else 'now'}]" for f in facts]
    return "\n".join(([result.message] if getattr(result, "message", "") else []) + lines) or "no facts"


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the relations commands."""
    relate = parsers["relate"]
    relate.add_argument("source",
                        help="memory id or topic key (the side that supersedes, causes, supports...)")
    relate.add_argument("target", help="memory id or topic key")
    relate.add_argument("type", help=f"one of: {', '.join(valid_relation_types())}")
    conflicts = parsers["conflicts"]
    conflicts.add_argument("action", choices=["scan", "pending", "compare", "judge", "ignore"],
                           help="scan for candidates, list pending relations, or compare, judge or ignore one")
    conflicts.add_argument("args", nargs="*", metavar="ID",
                           help="compare: memory ids or topic keys A B; judge, ignore: REL_ID")
    fact = parsers["fact"]
    fact.add_argument("action", choices=["add", "invalidate", "at", "timeline"],
                      help="add a fact, invalidate one, list the facts at an instant, or a subject's timeline")
    fact.add_argument("args", nargs="*", metavar="ARG",
                      help="add: SUBJECT PREDICATE OBJECT; invalidate: FACT_ID; at: [SUBJECT [PREDICATE "
                           "[OBJECT]]]; timeline: SUBJECT")
    for p in (relate, conflicts, fact):
        # conflicts: None keeps a judged relation's confidence unless one is given
        p.add_argument("--confidence", type=float, default=None if p is conflicts else 1.0,
                       help="how sure, 0-1" + ("; judge: default keeps the relation's" if p is conflicts else ""))
        p.add_argument("--reason", help="why, kept with the relation or fact")
    relate.add_argument("--evidence", help="where it shows (a link, a file, a commit)")
    conflicts.add_argument("--relation", help="compare/judge: relation type")
    conflicts.add_argument("--stronger", help="judge: id of the side that wins")
    conflicts.add_argument("--min-score", type=float, default=0.0, help="scan: leave out weaker candidates (0-1)")
    fact.add_argument("--valid-from", help="add: when it became true (ISO 8601 or epoch ms; default: now)")
    fact.add_argument("--at", help="at, invalidate: the instant (default: now)")
    fact.add_argument("--keep-previous", action="store_true", help="add: do not close the previous object")
    conflicts.add_argument("--project", help="only this project")
    conflicts.add_argument("--limit", type=int, default=50, help="scan: newest memories to compare; pending: "
                                                                  "relations to list")


COMMANDS: Commands = {
    "relate": (cmd_relate, "graphmem relate payments-api/ledger payments-api/outbox related "
                           "--reason 'both are written in the payment transaction'"),
    "conflicts": (cmd_conflicts, "graphmem conflicts scan --limit 100; graphmem conflicts pending"),
    "fact": (cmd_fact, "graphmem fact add alice 'works at' globex --valid-from 2026-03-01"),
}

"""The recall commands: search and associate (docs/cli.md). Thin calls into ``MemoryService.search`` and
``MemoryService.associate`` that print text, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
from typing import Any

from graphmem.cli.app import Commands, emit, open_service
from graphmem.core.values import KINDS

__all__ = ["COMMANDS", "add_arguments"]


def cmd_search(args: argparse.Namespace) -> None:
    """Hybrid search (BM25 + activation)."""
    result = open_service(args).search(args.query, project=args.project, kind=args.kind, limit=args.limit,
                                       as_of=args.as_of)
    emit(args, result, lambda r: "\n".join(
        f"{h.score:.4f}  {h.id}  [{h.kind}] {h.content[:100]}" for h in r.hits) or "no hits")


def cmd_associate(args: argparse.Namespace) -> None:
    """Spreading-activation recall or composition."""
    result = open_service(args).associate(args.query, mode=args.mode, project=args.project,
                                          max_results=args.limit, min_coverage=args.min_coverage)
    emit(args, result, _render_associate)


def _render_associate(result: Any) -> str:
    lines = [f"query concepts: {', '.join(result.query_concepts)}",
             f"seeds: {', '.join(s.name for s in result.seed_nodes)}   unmatched: "
             f"{', '.join(result.unmatched_concepts) or '-'}   activated: {result.activated_count}"]
    lines += [f"{m.relevance:.4f}  {m.id}  [{m.type}] {m.content[:90]}\n"
              f"          via: {', '.join(m.concepts[:4])}{'' if m.direct else '  (no shared query concept)'}"
              for m in result.memories]
    if result.composition:
        comp = result.composition
        lines.append(f"composition: {comp.coverage_percent}% covered (min {comp.min_coverage:.0%}, "
                     f"met={comp.coverage_met}); gaps: {', '.join(comp.gaps) or '-'}")
        lines += [f"  {step.order}. {step.memory_id}: {step.why}" for step in comp.integration_plan]
        lines += [f"  conflict: {c.memory_ids[0]} vs {c.memory_ids[1]}: {c.reason}" for c in comp.conflicts]
    return "\n".join(lines)


COMMANDS: Commands = {
    "search": (cmd_search, 'graphmem search "session storage" --project web --json'),
    "associate": (cmd_associate, 'graphmem associate "retry webhooks" --mode composition'),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the recall commands."""
    for name in ("search", "associate"):
        recall = parsers[name]
        recall.add_argument("query", help="what to look for, in words")
        recall.add_argument("--project", help="only this project's memories")
        recall.add_argument("--limit", type=int, default=10, help="memories to return (1-100)")
    parsers["search"].add_argument("--kind", help=f"only memories of this kind: {', '.join(KINDS)}")
    parsers["search"].add_argument("--as-of", help="what was visible at this instant (ISO 8601 or epoch ms)")
    parsers["associate"].add_argument("--mode", choices=["recall", "composition"], default="recall",
                                      help="recall: related memories; composition: the fewest that cover the query")
    parsers["associate"].add_argument("--min-coverage", type=float, default=0.7,
                                      help="composition: the share of the query's needs to cover (0-1)")

"""The memory commands: store, search, associate, import, export and stats (DESIGN §5, docs/cli.md).

Each is a thin call into ``MemoryService`` that prints text, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from graphmem.cli.app import Commands, emit, open_service, read_input
from graphmem.core.values import KINDS
from graphmem.errors import InvalidInput, NotFound

__all__ = ["COMMANDS", "add_arguments", "cmd_associate", "cmd_export", "cmd_import", "cmd_search", "cmd_show",
           "cmd_stats", "cmd_store"]


def cmd_store(args: argparse.Namespace) -> None:
    """Store one observation."""
    result = open_service(args).store(args.content, kind=args.kind, project=args.project,
                                      topic_key=args.topic_key, tags=args.tag, review_after=args.review_after)
    emit(args, result, lambda r: f"{'duplicate of' if r.duplicate else 'stored'} {r.id} [{r.kind}] "
                                 f"concepts: {', '.join(r.concepts[:12])}")


def cmd_show(args: argparse.Namespace) -> None:
    """Show one memory by id or topic key: its full text, fields, concepts and relations."""
    result = open_service(args).open([args.ref])
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


def cmd_import(args: argparse.Namespace) -> None:
    """Import JSONL: graphmem's export or plain observations (one JSON object with 'content' per line)."""
    from rich.progress import Progress

    service = open_service(args)
    lines = read_input(args.file).splitlines()
    from rich.console import Console

    # The bar goes to stderr, and only on a terminal: stdout holds the report alone.
    console = Console(stderr=True)
    with Progress(console=console, disable=args.json or not console.is_terminal, transient=True) as progress:
        task = progress.add_task("importing", total=len(lines))
        report = service.import_jsonl(lines, on_progress=lambda done: progress.update(task, completed=done))
    emit(args, dataclasses.replace(report, ids=()), lambda r: f"imported ({r.format}): "
         + ", ".join(f"{k} {v}" for k, v in r.added.items()) + f"; duplicates {r.duplicates}")


# Above this the HTML view switches from the force-directed layout to concentric rings (docs/export.md), and the
# whole-graph picture of the 341-memory sample (3,542 nodes) is one unreadable ball.
_LEGIBLE_NODES = 1_500


def cmd_export(args: argparse.Namespace) -> None:
    """Export the store (lossless JSONL) or the graph: node-link, GraphML, GEXF, Cypher, CSV, DOT or HTML."""
    service = open_service(args)
    scope = _export_scope(args)
    if args.format == "csv":
        paths = service.exports.write_csv(Path(args.output), scope)
        print(f"exported {paths[0]} and {paths[1]}", file=sys.stderr)
        return
    out = open(args.output, "w", encoding="utf-8") if args.output != "-" else sys.stdout  # noqa: SIM115
    try:
        if args.format == "jsonl":
            count = service.export_jsonl(out)
            message = f"exported {count} records"
        else:
            graph = service.exports.write(args.format, out, scope).graph
            message = (f"exported {args.format}: {graph.number_of_nodes()} nodes, "
                       f"{graph.number_of_edges()} edges")
            if args.format == "html" and graph.number_of_nodes() > _LEGIBLE_NODES:
                message += (f"; {graph.number_of_nodes()} nodes are too many to read in one picture: export a "
                            "query's neighbourhood (--query TEXT --hops 2) or one project (--project NAME)")
    finally:
        if out is not sys.stdout:
            out.close()
    if args.output != "-":
        print(message, file=sys.stderr)


def _export_scope(args: argparse.Namespace) -> Any:
    from graphmem.service.export import ExportScope

    scoped = args.project or args.as_of or args.query
    if args.format == "jsonl" and scoped:
        raise InvalidInput("jsonl is the lossless backup of the whole store; --project/--as-of/--query "
                           "apply to the graph formats")
    if args.format == "csv" and args.output == "-":
        raise InvalidInput("csv writes nodes.csv and edges.csv: name a directory with -o")
    return ExportScope(project=args.project, as_of=args.as_of, query=args.query, hops=args.hops,
                       max_results=args.max_results)


def cmd_stats(args: argparse.Namespace) -> None:
    """Counts by kind, degree distribution, top concepts, components, orphans and communities."""
    from graphmem.service.export.stats import render_stats

    emit(args, open_service(args).status(), render_stats)


COMMANDS: Commands = {
    "store": (cmd_store, 'graphmem store "Use Redis for session storage" --kind decision --project web'),
    "show": (cmd_show, "graphmem show search-service/engine"),
    "search": (cmd_search, 'graphmem search "session storage" --project web --json'),
    "associate": (cmd_associate, 'graphmem associate "retry webhooks" --mode composition'),
    "import": (cmd_import, "graphmem import data/observations.jsonl"),
    "export": (cmd_export, 'graphmem export --format html --query "retry webhooks" --hops 2 -o graph.html'),
    "stats": (cmd_stats, "graphmem stats --json"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the memory commands."""
    store = parsers["store"]
    store.add_argument("content", help="the observation's text")
    store.add_argument("--kind", default="note", help=f"one of: {', '.join(KINDS)}")
    store.add_argument("--project", help="the project it belongs to")
    store.add_argument("--topic-key", help="a stable key such as decision/session-storage; a new memory under "
                                           "the same key replaces the current one")
    store.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    store.add_argument("--review-after", help="review it after this date (ISO 8601 or epoch ms)")
    parsers["show"].add_argument("ref", metavar="ID_OR_TOPIC_KEY", help="memory id or topic key")
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
    parsers["import"].add_argument("file", help="the JSONL file, or - for standard input")
    _export_arguments(parsers["export"])


def _export_arguments(export: argparse.ArgumentParser) -> None:
    """The export command's options (docs/export.md)."""
    formats = ["jsonl", "node-link", "graphml", "gexf", "cypher", "csv", "dot", "html"]
    export.add_argument("--format", default="jsonl", choices=formats,
                        help="jsonl is the lossless backup; the others are the graph")
    export.add_argument("-o", "--output", default="-", help="file, or a directory for csv; - is stdout")
    export.add_argument("--project", help="only this project's memories")
    export.add_argument("--as-of", help="the time slice: memories valid at this instant")
    export.add_argument("--query", help="the subgraph this query activates (what memory_associate returns)")
    export.add_argument("--hops", type=int, default=1, help="with --query: hops around activated memories")
    export.add_argument("--max-results", type=int, default=10, help="with --query: activated memories")

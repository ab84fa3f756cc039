"""The export commands: import, export and stats (docs/cli.md, docs/export.md). Thin calls into
``MemoryService`` (``import_jsonl``, ``exports``, ``status``) that print text, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from graphmem.cli.app import Commands, emit, open_service, read_input
from graphmem.errors import InvalidInput

__all__ = ["COMMANDS", "add_arguments"]


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
    service = open_service(args, embeds=args.query is not None)  # a query's subgraph is an associate
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
    """What a graph format exports; ``None`` for jsonl, the whole store's backup (which imports no graph code)."""
    if args.format == "jsonl":
        if args.project or args.as_of or args.query:
            raise InvalidInput("jsonl is the lossless backup of the whole store; --project/--as-of/--query "
                               "apply to the graph formats")
        return None
    if args.format == "csv" and args.output == "-":
        raise InvalidInput("csv writes nodes.csv and edges.csv: name a directory with -o")
    from graphmem.service.export import ExportScope

    return ExportScope(project=args.project, as_of=args.as_of, query=args.query, hops=args.hops,
                       max_results=args.max_results)


def cmd_stats(args: argparse.Namespace) -> None:
    """Counts by kind, degree distribution, top concepts, components, orphans and communities."""
    from graphmem.service.export.stats import render_stats

    emit(args, open_service(args, embeds=False).status(), render_stats)


COMMANDS: Commands = {
    "import": (cmd_import, "graphmem import data/observations.jsonl"),
    "export": (cmd_export, 'graphmem export --format html --query "retry webhooks" --hops 2 -o graph.html'),
    "stats": (cmd_stats, "graphmem stats --json"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the export commands."""
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

"""``graphmem``: a thin command-line shell over ``MemoryService``.

Every command prints readable text, or JSON with ``--json``. Errors print one line and exit 2.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from graphmem.cli_lifecycle import LIFECYCLE_COMMANDS, add_lifecycle_arguments
from graphmem.cli_relations import RELATION_COMMANDS
from graphmem.cli_relations import add_arguments as add_relation_arguments
from graphmem.errors import GraphmemError
from graphmem.settings import Settings

__all__ = ["COMMANDS", "build_parser", "main"]

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _service(args: argparse.Namespace) -> Any:
    from graphmem.service import MemoryService

    overrides = {"db": args.db} if args.db else {}
    service = MemoryService(Settings.load(**overrides))
    atexit.register(service.close)  # one-shot commands still persist their metrics (docs/lifecycle.md)
    return service


def _emit(args: argparse.Namespace, value: Any, render: Callable[[Any], str]) -> None:
    if args.json:
        print(json.dumps(_plain(value), ensure_ascii=False, indent=2, default=str))
    else:
        print(render(value))


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# -- commands -------------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> None:
    """Run the MCP server (stdio by default, or streamable HTTP)."""
    from graphmem.server import build_server
    from graphmem.server.http_security import serve_http
    from graphmem.server.stdio_guard import serve_stdio

    overrides = {"db": args.db} if args.db else {}
    settings = Settings.load(**overrides)
    if args.transport == "stdio":
        serve_stdio(build_server(settings))
    else:  # the bind address and token are checked before the server is built
        serve_http(lambda: build_server(settings), settings.http, args.host, args.port,
                   allow_remote=args.allow_remote)


def cmd_store(args: argparse.Namespace) -> None:
    """Store one observation."""
    result = _service(args).store(args.content, kind=args.kind, project=args.project, topic_key=args.topic_key,
                                  tags=args.tag, review_after=args.review_after)
    _emit(args, result, lambda r: f"{'duplicate of' if r.duplicate else 'stored'} {r.id} [{r.kind}] "
                                  f"concepts: {', '.join(r.concepts[:12])}")


def cmd_search(args: argparse.Namespace) -> None:
    """Hybrid search (BM25 + activation)."""
    result = _service(args).search(args.query, project=args.project, kind=args.kind, limit=args.limit,
                                   as_of=args.as_of)
    _emit(args, result, lambda r: "\n".join(
        f"{h.score:.4f}  {h.id}  [{h.kind}] {h.content[:100]}" for h in r.hits) or "no hits")


def cmd_associate(args: argparse.Namespace) -> None:
    """Spreading-activation recall or composition."""
    result = _service(args).associate(args.query, mode=args.mode, project=args.project,
                                      max_results=args.limit, min_coverage=args.min_coverage)
    _emit(args, result, _render_associate)


def _render_associate(result: Any) -> str:
    lines = [f"query concepts: {', '.join(result.query_concepts)}",
             f"seeds: {', '.join(s.name for s in result.seed_nodes)}   unmatched: "
             f"{', '.join(result.unmatched_concepts) or '-'}   activated: {result.activated_count}"]
    lines += [f"{m.activation_score:.4f}  {m.id}  [{m.type}] {m.content[:90]}\n"
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

    service = _service(args)
    lines = Path(args.file).read_text(encoding="utf-8").splitlines()
    with Progress(disable=args.json, transient=True) as progress:
        task = progress.add_task("importing", total=len(lines))
        report = service.import_jsonl(lines, on_progress=lambda done: progress.update(task, completed=done))
    _emit(args, dataclasses.replace(report, ids=()), lambda r: f"imported ({r.format}): "
          + ", ".join(f"{k} {v}" for k, v in r.added.items()) + f"; duplicates {r.duplicates}")


def cmd_export(args: argparse.Namespace) -> None:
    """Export the store (lossless JSONL) or the graph: node-link, GraphML, GEXF, Cypher, CSV, DOT or HTML."""
    service = _service(args)
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
    finally:
        if out is not sys.stdout:
            out.close()
    if args.output != "-":
        print(message, file=sys.stderr)


def cmd_stats(args: argparse.Namespace) -> None:
    """Counts by kind, degree distribution, top concepts, components, orphans and communities."""
    from graphmem.service.export.stats import render_stats

    _emit(args, _service(args).status(), render_stats)


def cmd_demo(args: argparse.Namespace) -> None:
    """Load the bundled sample corpus into a fresh store and run recall and composition queries."""
    from graphmem.demo import run_demo

    run_demo(DATA_DIR, db=args.db, as_json=args.json)


COMMANDS: dict[str, tuple[Callable[[argparse.Namespace], None], str]] = {
    "serve": (cmd_serve, "graphmem serve --transport http --host 127.0.0.1 --port 8765"),
    "store": (cmd_store, 'graphmem store "Use Redis for session storage" --kind decision --project web'),
    "search": (cmd_search, 'graphmem search "session storage" --project web --json'),
    "associate": (cmd_associate, 'graphmem associate "retry webhooks" --mode composition'),
    "import": (cmd_import, "graphmem import data/observations.jsonl"),
    "export": (cmd_export, 'graphmem export --format html --query "retry webhooks" --hops 2 -o graph.html'),
    "stats": (cmd_stats, "graphmem stats --json"),
    "demo": (cmd_demo, "graphmem demo"),
    **LIFECYCLE_COMMANDS,  # touch, forget, restore, correct, history, review, promote, gc, prune, sessions, metrics
    **RELATION_COMMANDS,  # relate, conflicts, fact, chain, capture, lint
}


def _export_arguments(export: argparse.ArgumentParser) -> None:
    """The export command's options (docs/export.md)."""
    formats = ["jsonl", "node-link", "graphml", "gexf", "cypher", "csv", "dot", "html"]
    export.add_argument("--format", default="jsonl", choices=formats)
    export.add_argument("-o", "--output", default="-", help="file, or a directory for csv (default: stdout)")
    export.add_argument("--project", help="only this project's memories")
    export.add_argument("--as-of", help="the time slice: memories valid at this instant")
    export.add_argument("--query", help="the subgraph this query activates (what memory_associate returns)")
    export.add_argument("--hops", type=int, default=1, help="with --query: hops around activated memories")
    export.add_argument("--max-results", type=int, default=10, help="with --query: activated memories")


def _export_scope(args: argparse.Namespace) -> Any:
    from graphmem.errors import InvalidInput
    from graphmem.service.export import ExportScope

    scoped = args.project or args.as_of or args.query
    if args.format == "jsonl" and scoped:
        raise InvalidInput("jsonl is the lossless backup of the whole store; --project/--as-of/--query "
                           "apply to the graph formats")
    if args.format == "csv" and args.output == "-":
        raise InvalidInput("csv writes nodes.csv and edges.csv: name a directory with -o")
    return ExportScope(project=args.project, as_of=args.as_of, query=args.query, hops=args.hops,
                       max_results=args.max_results)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphmem", description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="SQLite path or database URL (default: $GRAPHMEM_DB or .graphmem/memory.db)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    sub = parser.add_subparsers(dest="command", required=True)
    parsers = {name: sub.add_parser(name, help=(fn.__doc__ or "").splitlines()[0],
                                    description=(fn.__doc__ or "").splitlines()[0], epilog=f"example: {example}")
               for name, (fn, example) in COMMANDS.items()}
    serve = parsers["serve"]
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--allow-remote", action="store_true",
                       help="allow a non-loopback --host (also needs GRAPHMEM_HTTP_TOKEN; docs/security.md)")
    serve.add_argument("--port", type=int, default=8765)
    store = parsers["store"]
    store.add_argument("content")
    store.add_argument("--kind", default="note")
    store.add_argument("--project")
    store.add_argument("--topic-key")
    store.add_argument("--tag", action="append", default=[])
    store.add_argument("--review-after")
    for name in ("search", "associate"):
        p = parsers[name]
        p.add_argument("query")
        p.add_argument("--project")
        p.add_argument("--limit", type=int, default=10)
    parsers["search"].add_argument("--kind")
    parsers["search"].add_argument("--as-of")
    parsers["associate"].add_argument("--mode", choices=["recall", "composition"], default="recall")
    parsers["associate"].add_argument("--min-coverage", type=float, default=0.7)
    parsers["import"].add_argument("file")
    _export_arguments(parsers["export"])
    add_lifecycle_arguments(parsers)
    add_relation_arguments(parsers)
    for p in parsers.values():  # accept --json/--db after the subcommand too
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
        p.add_argument("--db", default=argparse.SUPPRESS, help="SQLite path or database URL")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        COMMANDS[args.command][0](args)
    except GraphmemError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as error:  # a missing, unreadable or non-UTF-8 file named on the line
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

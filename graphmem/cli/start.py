"""Getting a memory running: init (create a store), serve (the MCP server) and demo (the sample corpus).

Where the store lives, and why only ``init`` / ``--create`` create one: docs/configuration.md.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from pathlib import Path
from typing import Any

from graphmem.cli.app import Commands, emit, open_service, resume_collector, settings_for

__all__ = ["COMMANDS", "add_arguments", "cmd_demo", "cmd_init", "cmd_serve"]


def cmd_init(args: argparse.Namespace) -> None:
    """Create a new store: --db if given, else .graphmem/memory.db at the git root (or here)."""
    from graphmem.settings import Settings, init_location, store_location

    location = store_location(Settings.load(**({"db": args.db} if args.db else {})))
    if location.source == "user":  # none named and no project store: make the project's, at the git root
        init_location().parent.mkdir(parents=True, exist_ok=True)
        location = store_location(Settings.load())  # found from here on as the project store
    existed = location.exists()
    ignored = location.source == "project" and _ignore_in_git(Path(location.db).parent)
    status = open_service(args, create=True).status(graph=False)
    emit(args, {"database": status["database"], "created": not existed, "gitignore": ignored},
         lambda r: "\n".join([f"{'created' if r['created'] else 'already a store:'} {r['database']}",
                              *([GIT_ADVICE] if r["gitignore"] else [])]))


# The store is a binary SQLite file with WAL side files, rewritten on every write: in git it would conflict on
# every merge. The folder ignores itself, so no one has to edit the project's .gitignore.
GIT_ADVICE = (".graphmem/ stays out of git (.graphmem/.gitignore ignores it): the store is local and binary; "
              "share memories with `graphmem export --format jsonl` and `graphmem import`")


def _ignore_in_git(folder: Path) -> bool:
    """Write ``folder/.gitignore`` ignoring everything in it, unless one is there; ``True`` if written."""
    ignore = folder / ".gitignore"
    if ignore.exists():
        return False
    ignore.write_text("*\n", encoding="utf-8")
    return True


def cmd_serve(args: argparse.Namespace) -> None:
    """Run the MCP server (stdio by default, or streamable HTTP)."""
    from graphmem.errors import StoreMissing
    from graphmem.settings import Settings, project_of, store_location

    try:
        settings, missing = settings_for(args), None
    except StoreMissing as error:  # answer every call with the reason: a client shows an exit as "Connection closed"
        settings, missing = Settings.load(**({"db": args.db} if args.db else {})), str(error)
        print(f"graphmem: {missing}; every tool call answers this until the store exists", file=sys.stderr)
    from graphmem.server.http_security import serve_http
    from graphmem.server.stdio_guard import serve_stdio

    if "project" not in settings.model_fields_set and store_location(settings).source == "user":
        # The per-user store holds every repository's memories: calls that name no project get the repository the
        # server starts in. A project store or a named one is not split: a memory stored or imported there without
        # a project would drop out of every default search (docs/configuration.md, GRAPHMEM_PROJECT).
        settings = settings.model_copy(update={"project": project_of(Path.cwd())})

    def build() -> Any:
        from graphmem.server import build_server
        from graphmem.server.unavailable import build_unavailable_server

        profile = args.tools or settings.tools
        server = build_server(settings, tools=profile, open_service=_open_then_collect) if missing is None else (
            build_unavailable_server(missing, tools=profile))
        if args.transport == "http":  # built once the address and token passed their checks
            print(f"graphmem: serving MCP over streamable HTTP at http://{args.host}:{args.port}/mcp",
                  file=sys.stderr)
        else:  # stdio: the store line is all a client's log shows; failed calls reach the client as tool errors
            logging.getLogger("mcp.server.mcpserver").setLevel(logging.WARNING)
        if missing is not None:
            resume_collector()  # nothing more to import: serving collects garbage as usual
        return server

    if args.transport == "stdio":
        serve_stdio(build())
    else:  # the bind address and token are checked before the server is built
        serve_http(build, settings.http, args.host, args.port, allow_remote=args.allow_remote)


def _open_then_collect(settings: Any) -> Any:
    """The server's service, opened on the server's opening thread (graphmem/server/opening.py); the collector,
    paused since start-up, is on again once the service's modules are imported and its store is open.

    What is alive then (the modules, the tool models, the projection's objects) lives as long as the server, so
    one collection drops start-up's garbage and the rest moves to the permanent generation: a full collection
    walked all of it: two of them took 405 ms in 805 calls, 0.4 ms per call with the younger ones (docs/benchmarks.md,
    section 7c)."""
    from graphmem.service import MemoryService

    try:
        return MemoryService(settings)
    finally:
        gc.collect()
        resume_collector(freeze=True)


def cmd_demo(args: argparse.Namespace) -> None:
    """Load the bundled sample corpus into a fresh store and run recall and composition queries."""
    from graphmem.demo import SAMPLE_DATA, run_demo

    resume_collector()
    run_demo(SAMPLE_DATA, db=args.db, as_json=args.json)


COMMANDS: Commands = {
    "init": (cmd_init, "graphmem init"),
    "serve": (cmd_serve, "graphmem serve --transport http --host 127.0.0.1 --port 8765"),
    "demo": (cmd_demo, "graphmem demo"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of serve (init and demo take only the common options)."""
    serve = parsers["serve"]
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                       help="stdio for a client that starts graphmem; http for streamable HTTP")
    serve.add_argument("--host", default="127.0.0.1", help="http: the address to bind")
    serve.add_argument("--port", type=int, default=8765, help="http: the port to listen on")
    serve.add_argument("--allow-remote", action="store_true",
                       help="allow a non-loopback --host (also needs GRAPHMEM_HTTP_TOKEN; docs/security.md)")
    serve.add_argument("--tools", choices=["core", "full", "kirograph", "kyew", "cortexgraph", "tam", "reference"],
                       help="tool profile (default: GRAPHMEM_TOOLS, else core); see docs/tools.md")

"""Getting a memory running: init (create a store), serve (the MCP server) and demo (the sample corpus).

Where the store lives, and why only ``init`` / ``--create`` create one: docs/configuration.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from graphmem.cli.app import Commands, emit, open_service, settings_for

__all__ = ["COMMANDS", "add_arguments", "cmd_demo", "cmd_init", "cmd_serve"]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


def cmd_init(args: argparse.Namespace) -> None:
    """Create a new store: --db if given, else .graphmem/memory.db at the git root (or here)."""
    from graphmem.settings import Settings, init_location, store_location

    location = store_location(Settings.load(**({"db": args.db} if args.db else {})))
    if location.source != "explicit":  # not named: the project store, at the git root
        location = store_location(Settings.load(db=str(init_location())))
        args.db = location.db
    existed = location.path is None or location.path.exists()
    status = open_service(args, create=True).status()
    emit(args, {"database": status["database"], "created": not existed},
         lambda r: f"{'created' if r['created'] else 'already a store:'} {r['database']}")


def cmd_serve(args: argparse.Namespace) -> None:
    """Run the MCP server (stdio by default, or streamable HTTP)."""
    settings = settings_for(args)
    from graphmem.server import build_server  # after the store check: a wrong path fails before mcp loads
    from graphmem.server.http_security import serve_http
    from graphmem.server.stdio_guard import serve_stdio

    if args.transport == "stdio":
        serve_stdio(build_server(settings, tools=args.tools))
    else:  # the bind address and token are checked before the server is built
        serve_http(lambda: build_server(settings, tools=args.tools), settings.http, args.host, args.port,
                   allow_remote=args.allow_remote)


def cmd_demo(args: argparse.Namespace) -> None:
    """Load the bundled sample corpus into a fresh store and run recall and composition queries."""
    from graphmem.demo import run_demo

    run_demo(DATA_DIR, db=args.db, as_json=args.json)


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

"""``graphmem``: the command line over ``MemoryService``; :data:`DESCRIPTION` is what ``--help`` says.

Every command prints readable text, or JSON with ``--json``. Errors print one line and exit 2.
One module per feature, named as the service's feature it calls: ``memories`` (store, show, capture, history,
touch, correct, forget, restore), ``recall`` (search, associate), ``relations`` (relate, conflicts, fact),
``lifecycle`` (review, promote, prune, gc, metrics), ``sessions``, ``learning`` (clusters, duplicates,
consolidate, skills, brief), ``export`` (import, export, stats), ``maintenance`` (lint, redact, snapshot); and ``start``
(init, serve, demo) and ``hooks`` (the agent client's hooks). They share ``app`` and never import each other.
:data:`ALIASES` names a command by another name (``chain`` is ``history``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from graphmem import __version__
from graphmem.cli import (
    export,
    hooks,
    learning,
    lifecycle,
    maintenance,
    memories,
    recall,
    relations,
    sessions,
    start,
)
from graphmem.cli.app import Commands, HelpFormatter, collector_paused
from graphmem.errors import GraphmemError

__all__ = ["ALIASES", "COMMANDS", "build_parser", "main"]

DESCRIPTION = ("graphmem: a knowledge-graph memory for AI agents. Store observations, find them again by what they "
               "mean (concepts, not only keywords), keep them current, and serve them to agents over MCP.")
_FEATURES = (start, memories, recall, relations, lifecycle, sessions, learning, export, maintenance, hooks)
COMMANDS: Commands = {name: command for feature in _FEATURES for name, command in feature.COMMANDS.items()}
ALIASES: dict[str, str] = dict(memories.ALIASES)  # alias → command


def build_parser() -> argparse.ArgumentParser:
    """The ``graphmem`` parser: the common options, then one subcommand per entry of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(prog="graphmem", description=DESCRIPTION, formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"graphmem {__version__}")
    parser.add_argument("--db", help="SQLite path or database URL (default: $GRAPHMEM_DB, else the nearest "
                                     ".graphmem/ up from here, else ~/.local/share/graphmem/memory.db)")
    parser.add_argument("--create", action="store_true", help="create the store if it does not exist")
    parser.add_argument("--json", action="store_true", help="print JSON")
    sub = parser.add_subparsers(dest="command", required=True)
    aliases: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    parsers = {name: sub.add_parser(name, help=(fn.__doc__ or "").splitlines()[0], formatter_class=HelpFormatter,
                                    description=(fn.__doc__ or "").splitlines()[0], epilog=f"example: {example}",
                                    aliases=aliases.get(name, []))
               for name, (fn, example) in COMMANDS.items()}
    for name, command_parser in parsers.items():
        command_parser.set_defaults(command=name)  # an alias runs its command under the command's own name
    for feature in _FEATURES:
        feature.add_arguments(parsers)
    for p in parsers.values():  # accept the common options after the subcommand too
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
        p.add_argument("--db", default=argparse.SUPPRESS, help="SQLite path or database URL")
        p.add_argument("--create", action="store_true", default=argparse.SUPPRESS,
                       help="create the store if it does not exist")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; ``0`` on success, ``2`` with one ``error:`` line on stderr otherwise."""
    args = build_parser().parse_args(argv)
    try:
        with collector_paused():  # until the command's modules are imported and its service is built
            COMMANDS[args.command][0](args)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`graphmem export | head`): stop quietly, as on SIGPIPE
        _silence_stdout()
        return 141
    except GraphmemError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as error:  # a missing, unreadable or non-UTF-8 file named on the line
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush finds no closed pipe to complain about."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor behind stdout
        pass
    finally:
        os.close(devnull)

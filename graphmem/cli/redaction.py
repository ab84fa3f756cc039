"""``graphmem redact``: find the secrets an existing store still holds, and rewrite them with --apply.

A dry run unless ``--apply`` is given, like gc, prune and promote (cli/lifecycle.py).
"""

from __future__ import annotations

import argparse

from graphmem.cli.app import Commands, emit, open_service

__all__ = ["COMMANDS", "add_arguments"]


def cmd_redact(args: argparse.Namespace) -> None:
    """Redact the secrets already stored (rows, concepts, full-text index); a dry run without --apply."""
    from graphmem.service.maintenance.redaction import redact_store

    service = open_service(args)
    try:
        report = redact_store(service.uow, apply=args.apply)
        emit(args, {**_plain(report), "message": report.message}, lambda _: report.message)
    finally:
        service.close()


def _plain(report: object) -> dict[str, object]:
    fields = ("applied", "rows", "redacted", "columns", "concepts")
    return {name: getattr(report, name) for name in fields}


COMMANDS: Commands = {
    "redact": (cmd_redact, "graphmem redact; graphmem redact --apply"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of ``redact``."""
    parsers["redact"].add_argument("--apply", action="store_true",
                                   help="rewrite the stored secrets (default: report what would change)")

"""The maintenance commands: lint (the store's health, ``--fix`` repairs what is safe), redact (the secrets
an existing store still holds, rewritten with ``--apply``; a dry run otherwise, like gc, prune and promote) and
snapshot (the projection snapshots a server opens from, written ahead of its first read).
"""

from __future__ import annotations

import argparse
from typing import Any

from graphmem.cli.app import Commands, emit, open_service

__all__ = ["COMMANDS", "add_arguments"]


def cmd_lint(args: argparse.Namespace) -> None:
    """Check the store's health; --fix repairs what is safe."""
    report = open_service(args).lint.run(fix=args.fix)
    emit(args, report, lambda r: "\n".join(
        [f"{_state(f)}  {f.check}  {f.subject}: {f.detail}" for f in r.findings]
        + ["ok" if r.ok else f"{len(r.findings)} findings, {r.fixed} fixed"]))


def _state(finding: Any) -> str:
    return "fixed" if finding.fixed else ("fixable" if finding.fixable else "report")


def cmd_redact(args: argparse.Namespace) -> None:
    """Redact the secrets already stored (rows, concepts, full-text index); a dry run without --apply."""
    from graphmem.service.maintenance.redaction import redact_store

    service = open_service(args)
    try:
        report = redact_store(service.uow, apply=args.apply)
        emit(args, {**_plain(report), "message": report.message}, lambda _: report.message)
    finally:
        service.close()


def cmd_snapshot(args: argparse.Namespace) -> None:
    """Write the projection snapshots a server opens from, ahead of its first read.

    The whole store's; with projection.partition = project, each project's (--project, or every project), so
    no server builds a project's projection from the rows on its first query."""
    service = open_service(args, embeds=False)
    try:
        written = service.write_snapshots(args.project or None)
        emit(args, written, _snapshot_lines)
    finally:
        service.close()


def _snapshot_lines(written: list[Any]) -> str:
    lines = []
    for item in written:
        name = "(whole store)" if item.project is None else item.project
        if item.written:
            lines.append(f"{name}: {item.memories:,} memories, loaded from its {item.loaded_from} in "
                         f"{item.load_ms:,.0f} ms, written in {item.save_ms:,.0f} ms "
                         f"({item.file_bytes / 2**20:,.1f} MiB) to {item.path}")
        else:
            lines.append(f"{name}: {item.memories:,} memories, not written: {item.reason}")
    done = sum(item.written for item in written)
    return "\n".join([*lines, f"{done} of {len(written)} snapshots written"])


def _plain(report: object) -> dict[str, object]:
    fields = ("applied", "rows", "redacted", "columns", "concepts")
    return {name: getattr(report, name) for name in fields}


COMMANDS: Commands = {
    "lint": (cmd_lint, "graphmem lint --fix"),
    "redact": (cmd_redact, "graphmem redact; graphmem redact --apply"),
    "snapshot": (cmd_snapshot, "graphmem snapshot"),
}


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of lint, redact and snapshot."""
    parsers["lint"].add_argument("--fix", action="store_true", help="repair what is safe to repair")
    parsers["redact"].add_argument("--apply", action="store_true",
                                   help="rewrite the stored secrets (default: report what would change)")
    parsers["snapshot"].add_argument("--project", action="append", metavar="NAME",
                                     help="with projection.partition = project: this project only (repeatable; "
                                          "default: every project)")

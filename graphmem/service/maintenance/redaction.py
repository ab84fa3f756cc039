"""``graphmem redact``: apply today's redaction rules to what an older store already holds.

Redaction runs on every write (service/scrub.py), but a store written before a rule existed keeps
those secrets. This use case plans the rewrite (a dry run reads only), or applies it in one write:
rows, concepts and full-text index together, then a WAL checkpoint, and every process's projection
rebuilds from the rows (``Write.rewrote``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from graphmem.service.validation import normalize_content
from graphmem.store import purge
from graphmem.store.redaction_pass import RedactionPlan, apply_plan, plan_redaction

__all__ = ["RedactionReport", "redact_store"]


@dataclass(frozen=True, slots=True)
class RedactionReport:
    """What was (or, in a dry run, would be) rewritten: counts only, never a secret."""

    applied: bool
    rows: int
    redacted: dict[str, int]  # kind → secrets replaced
    columns: dict[str, int]  # table.column → rows changed
    concepts: int  # concepts made from a secret, dropped with their mentions

    @property
    def message(self) -> str:
        """One readable line for the CLI."""
        if not self.rows and not self.concepts:
            return "no stored secret found: nothing to rewrite"
        verb = "rewrote" if self.applied else "would rewrite (dry run; --apply rewrites)"
        kinds = ", ".join(f"{kind} {count}" for kind, count in self.redacted.items())
        return f"{verb} {self.rows} rows, {self.concepts} concepts made from secrets; secrets: {kinds}"


def _content_hash(content: str) -> str:
    return hashlib.sha256(normalize_content(content).encode()).hexdigest()  # as service/memories/drafts.py


def _report(plan: RedactionPlan, applied: bool) -> RedactionReport:
    return RedactionReport(applied, len(plan.rewrites), dict(sorted(plan.counts.items())),
                           dict(sorted(plan.columns.items())), plan.concepts)


def redact_store(uow: Any, *, apply: bool = False) -> RedactionReport:
    """Plan the rewrite of every stored secret; with ``apply``, rewrite them in one transaction."""
    if not apply:
        with uow.read() as session:
            return _report(plan_redaction(session, _content_hash), applied=False)
    with uow.write() as write:
        plan = plan_redaction(write.session, _content_hash)
        if plan.rewrites or plan.concepts:
            apply_plan(write.session, plan)
            write.rewrote("redact")
    if plan.rewrites or plan.concepts:
        purge.checkpoint(uow.engine)
    return _report(plan, applied=True)

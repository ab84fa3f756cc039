"""Output model of lint: counts per check and the top findings."""

from __future__ import annotations

from pydantic import Field

from graphmem.server.models.base import Out

__all__ = ["LintFindingOut", "LintOut"]


class LintFindingOut(Out):
    check: str
    subject: str
    detail: str
    fixable: bool


class LintOut(Out):
    ok: bool
    counts: dict[str, int] = Field(description="findings per check")
    total_findings: int
    findings: list[LintFindingOut] = Field(description="the first findings of each check, up to max_findings")
    fixed: int
    fix: bool

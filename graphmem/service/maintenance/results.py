"""Result values of lint (mirrored in Pydantic by the MCP layer)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LintFinding",
    "LintReport",
]


@dataclass(frozen=True, slots=True)
class LintFinding:
    """One problem: which check, what it concerns (ids or keys), and whether ``fix`` repaired it."""

    check: str
    subject: str
    detail: str
    fixable: bool
    fixed: bool = False


@dataclass(frozen=True, slots=True)
class LintReport:
    findings: tuple[LintFinding, ...]
    counts: dict[str, int]  # findings per check
    fixed: int
    fix: bool
    ok: bool

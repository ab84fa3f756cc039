"""Store health for agents: ``memory_lint`` reports counts and the first findings. Repairs
(``graphmem lint --fix``) stay in the CLI."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.common import READ_ONLY, reply, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.models.maintenance import LintFindingOut, LintOut
from graphmem.service.maintenance.results import LintReport

__all__ = ["TOOLS", "lint_out"]

Ctx = Context[AppContext, Any]


def lint_out(report: LintReport, max_findings: int) -> LintOut:
    """Counts per check and the first findings of each check in turn, up to ``max_findings``."""
    by_check: dict[str, list[Any]] = {}
    for finding in report.findings:
        by_check.setdefault(finding.check, []).append(finding)
    shown: list[Any] = []
    depth = 0
    while len(shown) < max_findings and any(depth < len(found) for found in by_check.values()):
        shown += [found[depth] for found in by_check.values() if depth < len(found)]
        depth += 1
    return LintOut(ok=report.ok, counts=dict(report.counts), total_findings=len(report.findings),
                   findings=[LintFindingOut.model_validate(f) for f in shown[:max_findings]], fixed=report.fixed,
                   fix=report.fix)


def memory_lint(
    ctx: Ctx,
    max_findings: Annotated[int, Field(ge=0, le=1000, description="Findings to list; counts cover all")] = 10,
) -> Annotated[CallToolResult, LintOut]:
    """Store health: orphan concepts, dangling relations and edges, memories without concepts, duplicate
    concepts, stale sessions, a full-text index or graph out of sync. Repair with graphmem lint --fix."""
    with tool_errors():
        report = service_of(ctx).lint.run(fix=False)
    return reply(lint_out(report, max_findings))


TOOLS = {"memory_lint": (memory_lint, READ_ONLY)}

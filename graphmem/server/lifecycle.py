"""Lifecycle tools an agent uses in a session: the review queue, mark reviewed, promote, metrics.

gc, prune and resetting metrics are admin jobs and stay in the CLI (``graphmem gc``, ``graphmem
prune``, ``graphmem metrics --reset``)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.common import READ_ONLY, WRITE, Instant, ProjectFilter, Ref, reply, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.models.lifecycle import LifecycleOut

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]


def memory_review(
    ctx: Ctx,
    project: ProjectFilter = None,
    limit: Annotated[int, Field(ge=1, le=500, description="Memories to list, most overdue first")] = 20,
) -> Annotated[CallToolResult, LifecycleOut]:
    """Memories past their review date, with days overdue: re-check each, then correct, forget or
    memory_mark_reviewed it."""
    with tool_errors():
        report = service_of(ctx).lifecycle.review_queue(project, limit)
    return reply(LifecycleOut.model_validate(report))


def memory_mark_reviewed(
    ctx: Ctx,
    id: Ref,
    reschedule: Annotated[bool, Field(description="Review again after a growing interval instead of never")
                          ] = False,
    review_after: Annotated[Instant, Field(description="Review again at this instant")] = None,
) -> Annotated[CallToolResult, LifecycleOut]:
    """Mark a memory reviewed: its review date is cleared, or rescheduled."""
    with tool_errors():
        report = service_of(ctx).lifecycle.mark_reviewed(id, reschedule=reschedule, review_after=review_after)
    return reply(LifecycleOut.model_validate(report))


def memory_promote(
    ctx: Ctx,
    ids: Annotated[list[str], Field(max_length=100, description=(
        "Memories to promote; empty = the candidates that meet the criteria (high score or frequent use)"))
    ] = [],  # noqa: B006 - the schema shows [] as default
    dry_run: Annotated[bool, Field(description="Only report what would be promoted")] = True,
    force: Annotated[bool, Field(description="Promote the named ids even if they miss the criteria")] = False,
    export: Annotated[bool, Field(description="Also write them as Markdown notes to the vault")] = False,
    folder: Annotated[str | None, Field(description="Folder inside the vault")] = None,
    project: ProjectFilter = None,
    limit: Annotated[int, Field(ge=1, le=10_000, description="Most candidates to consider")] = 100,
) -> Annotated[CallToolResult, LifecycleOut]:
    """Promote memories to long-term memory (they stop decaying). A dry run unless dry_run=false."""
    with tool_errors():
        report = service_of(ctx).lifecycle.promote(ids, dry_run=dry_run, force=force, export=export,
                                                   folder=folder, project=project, limit=limit)
    return reply(LifecycleOut.model_validate(report))


def memory_metrics(ctx: Ctx) -> Annotated[CallToolResult, LifecycleOut]:
    """Per-operation call counts, errors and latency (p50, p95, max) of this store."""
    with tool_errors():
        report = service_of(ctx).lifecycle.metrics_report()
    return reply(LifecycleOut.model_validate(report))


TOOLS = {
    "memory_review": (memory_review, READ_ONLY),
    "memory_mark_reviewed": (memory_mark_reviewed, WRITE),
    "memory_promote": (memory_promote, WRITE),
    "memory_metrics": (memory_metrics, READ_ONLY),
}

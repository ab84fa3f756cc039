"""Learning tools: clusters, duplicates, consolidation (preview, apply and undo), learn + skills, briefs.

One intent per tool, so each tool's read-only/destructive hints are true for every call: previewing a
consolidation reads, applying it writes. Every parameter is described, and every tool answers through
the common ``reply()`` (structured content plus one compact text block), like the other tool modules.
Registered in the ``full`` profile (``server/profiles.py``); nothing registers at import.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.client_roots import ClientRoots, declared_roots
from graphmem.server.common import (
    DESTRUCTIVE_EACH_TIME,
    READ_ONLY,
    WRITE,
    Kind,
    Project,
    reply,
    service_of,
    tool_errors,
)
from graphmem.server.context import AppContext
from graphmem.server.learn_params import OutcomeValue, TaskTypeValue, ToolsValue
from graphmem.server.models.learning import (
    BriefOut,
    BriefStatusOut,
    ClustersOut,
    ConsolidateOut,
    DuplicatesOut,
    LearnOut,
    SkillListOut,
    SkillOut,
)

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]
Threshold = Annotated[float | None, Field(ge=0.05, le=1.0, description="similarity threshold (default measured)")]
Actor = Annotated[str, Field(description="who makes the change (recorded in the audit)")]
Reason = Annotated[str | None, Field(description="why (recorded in the audit)")]
SkillId = Annotated[str, Field(description="The skill's id (skill_…)")]
ClusterId = Annotated[str | None, Field(description="A cluster id from memory_clusters (clu_…)")]
AutoDetect = Annotated[bool, Field(description="Every merge cluster at or above cohesion_threshold")]
Cohesion = Annotated[float, Field(ge=0.0, le=1.0, description="With auto_detect: the lowest cohesion merged")]
MemoryIds = Annotated[list[str] | None, Field(description="Instead of a cluster: the memories to merge")]


def memory_clusters(
    ctx: Ctx,
    project: Project = None,
    threshold: Threshold = None,
    max_cluster_size: Annotated[int, Field(ge=2, le=100, description=(
        "Most memories in one cluster (links that would exceed it are not made)"))] = 12,
    limit: Annotated[int, Field(ge=1, le=1000, description="Clusters returned")] = 50,
) -> Annotated[CallToolResult, ClustersOut]:
    """Clusters of memories sharing specific (rare) concepts: stable id, cohesion, shared concepts and a
    suggested action (merge, link, keep). Pass an id to memory_consolidate_preview."""
    with tool_errors():
        found = service_of(ctx).learning.clusters.clusters(project, threshold, max_cluster_size, limit)
    return reply(ClustersOut.model_validate(found))


def memory_duplicates(
    ctx: Ctx,
    project: Project = None,
    threshold: Threshold = None,
    limit: Annotated[int, Field(ge=1, le=10000, description="Pairs returned, best first")] = 100,
) -> Annotated[CallToolResult, DuplicatesOut]:
    """Near-duplicate pairs (the same statement in other words, same kind and project) with a score."""
    with tool_errors():
        pairs = service_of(ctx).learning.duplicates.find(project, threshold, limit)
    return reply(DuplicatesOut.model_validate(pairs))


def memory_consolidate_preview(
    ctx: Ctx,
    cluster_id: ClusterId = None,
    auto_detect: AutoDetect = False,
    cohesion_threshold: Cohesion = 0.75,
    memory_ids: MemoryIds = None,
    project: Project = None,
) -> Annotated[CallToolResult, ConsolidateOut]:
    """Show what merging a cluster into one memory would write: the merged text and fields. Nothing is
    written; memory_consolidate_apply writes it."""
    with tool_errors():
        preview = service_of(ctx).learning.consolidation.preview(
            cluster_id, auto_detect=auto_detect, cohesion_threshold=cohesion_threshold, memory_ids=memory_ids,
            project=project)
    return reply(ConsolidateOut.model_validate(preview))


def memory_consolidate_apply(
    ctx: Ctx,
    cluster_id: ClusterId = None,
    auto_detect: AutoDetect = False,
    cohesion_threshold: Cohesion = 0.75,
    memory_ids: MemoryIds = None,
    project: Project = None,
) -> Annotated[CallToolResult, ConsolidateOut]:
    """Merge a cluster into one memory with consolidated_from edges and archive the originals (never
    deleted; memory_consolidate_undo restores them)."""
    with tool_errors():
        applied = service_of(ctx).learning.consolidation.apply(
            cluster_id, auto_detect=auto_detect, cohesion_threshold=cohesion_threshold, memory_ids=memory_ids,
            project=project)
    return reply(ConsolidateOut.model_validate(applied))


def memory_consolidate_undo(
    ctx: Ctx,
    merged_id: Annotated[str, Field(description="The merged memory's id (merged_id of the apply)")],
) -> Annotated[CallToolResult, ConsolidateOut]:
    """Undo a consolidation: the originals are active again, the merged memory is archived."""
    with tool_errors():
        undone = service_of(ctx).learning.consolidation.undo(merged_id)
    return reply(ConsolidateOut.model_validate(undone))


def memory_learn(
    ctx: Ctx,
    observation: Annotated[str, Field(description="What was learned, in a sentence or a few")],
    domain: Project = None,
    kind: Annotated[Kind, Field(description="What the memory is")] = "note",
    tags: Annotated[list[str], Field(max_length=50, description="Labels to filter by")] = [],  # noqa: B006
    outcome: OutcomeValue = None,
    task_type: TaskTypeValue = None,
    tools_used: ToolsValue = [],  # noqa: B006
) -> Annotated[CallToolResult, LearnOut]:
    """Store an observation and detect its pattern: "2 related memories found — 1 more before a skill
    draft"; at 3 related memories a draft skill is made from them."""
    with tool_errors():
        stored, notice = service_of(ctx).learning.skills.learn(observation, domain, kind=kind, tags=tags,
                                                                outcome=outcome, task_type=task_type,
                                                                tools_used=tools_used)
    return reply(LearnOut(id=stored.id, duplicate=stored.duplicate, related_ids=list(notice.related_ids),
                          threshold=notice.threshold, message=notice.message, skill_id=notice.skill_id))


def memory_skills(
    ctx: Ctx,
    project: Project = None,
    status: Annotated[Literal["draft", "active", "deprecated", "rejected"] | None, Field(
        description="Only skills in this status")] = None,
    skill_id: Annotated[str | None, Field(description="one skill, with its version history")] = None,
) -> Annotated[CallToolResult, SkillListOut]:
    """List skills (by project and status), or one skill with every version and its audit entry."""
    skills = service_of(ctx).learning.skills
    with tool_errors():
        if skill_id:
            return reply(SkillListOut(skills=[SkillOut.model_validate(skills.get(skill_id))]))
        listed = skills.list(project, status)
    return reply(SkillListOut.model_validate(listed))


def memory_skill_transition(
    ctx: Ctx,
    skill_id: SkillId,
    status: Annotated[Literal["active", "deprecated", "rejected"], Field(
        description="The status to move to (draft → active → deprecated; draft → rejected)")],
    actor: Actor = "agent",
    reason: Reason = None,
    successor_id: Annotated[str | None, Field(description="With deprecated: the skill that replaces it")] = None,
) -> Annotated[CallToolResult, SkillOut]:
    """Move a skill through its lifecycle (draft → active → deprecated, draft → rejected); a new version."""
    with tool_errors():
        moved = service_of(ctx).learning.skills.move(skill_id, status, actor, reason, successor_id)
    return reply(SkillOut.model_validate(moved))


def memory_skill_rollback(
    ctx: Ctx,
    skill_id: SkillId,
    version: Annotated[int, Field(ge=1, description="The version whose fields come back")],
    actor: Actor = "agent",
    reason: Reason = None,
) -> Annotated[CallToolResult, SkillOut]:
    """Restore a skill's fields as they were at ``version`` (recorded as a new version)."""
    with tool_errors():
        restored = service_of(ctx).learning.skills.rollback(skill_id, version, actor, reason)
    return reply(SkillOut.model_validate(restored))


def memory_skill_outcome(
    ctx: Ctx,
    skill_id: SkillId,
    outcome: Annotated[Literal["success", "failure", "partial", "unknown"], Field(
        description="How using the skill went (success and failure are counted)")],
    actor: Actor = "agent",
    note: Annotated[str | None, Field(description="What happened (recorded in the audit)")] = None,
) -> Annotated[CallToolResult, SkillOut]:
    """Record the outcome of using a skill (success and failure are counted)."""
    with tool_errors():
        counted = service_of(ctx).learning.skills.record_outcome(skill_id, outcome, actor, note)
    return reply(SkillOut.model_validate(counted))


def memory_brief_status(ctx: Ctx, project: Project = None) -> Annotated[CallToolResult, BriefStatusOut]:
    """Observations since the last brief, the threshold, and the files the next brief writes."""
    with tool_errors():
        status = service_of(ctx).learning.briefs.status(project)
    return reply(BriefStatusOut.model_validate(status))


def memory_brief_synthesize(
    ctx: Ctx,
    root: Annotated[str, Field(description="project root, inside the project's folder or a root the client "
                                           "declared; targets are written inside it")],
    roots: ClientRoots,
    project: Project = None,
    force: Annotated[bool, Field(description="Write even below the observation threshold")] = False,
) -> Annotated[CallToolResult, BriefOut]:
    """Write the extractive project brief (decisions, errors and fixes, patterns, architecture, active
    skills; every line with its memory id) between graphmem markers in the target files."""
    with tool_errors():
        brief = service_of(ctx).learning.briefs.synthesize(root, project, force=force,
                                                           client_roots=declared_roots(roots))
    return reply(BriefOut.model_validate(brief))


def memory_brief_reset(ctx: Ctx, project: Project = None) -> Annotated[CallToolResult, BriefStatusOut]:
    """Set the brief counter to zero without writing a brief."""
    with tool_errors():
        status = service_of(ctx).learning.briefs.reset(project)
    return reply(BriefStatusOut.model_validate(status))


# Applying a consolidation archives memories and a brief rewrites files: destructive, and a repeat is
# not a no-op (DESTRUCTIVE_EACH_TIME in server/common.py).
TOOLS = {
    "memory_clusters": (memory_clusters, READ_ONLY),
    "memory_duplicates": (memory_duplicates, READ_ONLY),
    "memory_consolidate_preview": (memory_consolidate_preview, READ_ONLY),
    "memory_consolidate_apply": (memory_consolidate_apply, DESTRUCTIVE_EACH_TIME),
    "memory_consolidate_undo": (memory_consolidate_undo, DESTRUCTIVE_EACH_TIME),
    "memory_learn": (memory_learn, WRITE),
    "memory_skills": (memory_skills, READ_ONLY),
    "memory_skill_transition": (memory_skill_transition, WRITE),
    "memory_skill_rollback": (memory_skill_rollback, WRITE),
    "memory_skill_outcome": (memory_skill_outcome, WRITE),
    "memory_brief_status": (memory_brief_status, READ_ONLY),
    "memory_brief_synthesize": (memory_brief_synthesize, DESTRUCTIVE_EACH_TIME),
    "memory_brief_reset": (memory_brief_reset, WRITE),
}

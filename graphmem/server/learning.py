"""Learning tools: clusters, duplicates, consolidation (and its undo), learn + skills, briefs.

One intent per tool, so each tool's read-only/destructive hints are true for every call. Registered
in the ``full`` profile (``server/profiles.py``); nothing registers at import.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.server.client_roots import ClientRoots, declared_roots
from graphmem.server.common import READ_ONLY, WRITE, Kind, Project, service_of, tool_errors
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

Threshold = Annotated[float | None, Field(ge=0.05, le=1.0, description="similarity threshold (default measured)")]
Actor = Annotated[str, Field(description="who makes the change (recorded in the audit)")]


def memory_clusters(ctx: Context[AppContext, Any], project: Project = None, threshold: Threshold = None,
                    max_cluster_size: Annotated[int, Field(ge=2, le=100)] = 12,
                    limit: Annotated[int, Field(ge=1, le=1000)] = 50) -> ClustersOut:
    """Clusters of memories sharing specific (rare) concepts: stable id, cohesion, shared concepts and a
    suggested action (merge, link, keep). Pass an id to memory_consolidate."""
    with tool_errors():
        return ClustersOut.model_validate(service_of(ctx).learning.clusters.clusters(
            project, threshold, max_cluster_size, limit))


def memory_duplicates(ctx: Context[AppContext, Any], project: Project = None, threshold: Threshold = None,
                      limit: Annotated[int, Field(ge=1, le=10000)] = 100) -> DuplicatesOut:
    """Near-duplicate pairs (the same statement in other words, same kind and project) with a score."""
    with tool_errors():
        return DuplicatesOut.model_validate(service_of(ctx).learning.duplicates.find(project, threshold, limit))


def memory_consolidate(ctx: Context[AppContext, Any], cluster_id: str | None = None,
                       mode: Literal["preview", "apply"] = "preview", auto_detect: bool = False,
                       cohesion_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.75,
                       memory_ids: list[str] | None = None, project: Project = None) -> ConsolidateOut:
    """Merge a cluster into one memory: preview shows the merged text and fields; apply writes it with
    consolidated_from edges and archives the originals (never deleted); auto_detect takes every merge
    cluster at or above cohesion_threshold."""
    with tool_errors():
        return ConsolidateOut.model_validate(service_of(ctx).learning.consolidation.consolidate(
            cluster_id, mode, auto_detect=auto_detect, cohesion_threshold=cohesion_threshold,
            memory_ids=memory_ids, project=project))


def memory_consolidate_undo(ctx: Context[AppContext, Any], merged_id: str) -> ConsolidateOut:
    """Undo a consolidation: the originals are active again, the merged memory is archived."""
    with tool_errors():
        return ConsolidateOut.model_validate(service_of(ctx).learning.consolidation.undo(merged_id))


def memory_learn(ctx: Context[AppContext, Any], observation: str, domain: Project = None, kind: Kind = "note",
                 tags: Annotated[list[str], Field(max_length=50)] = [],  # noqa: B006
                 outcome: OutcomeValue = None, task_type: TaskTypeValue = None,
                 tools_used: ToolsValue = []) -> LearnOut:  # noqa: B006
    """Store an observation and detect its pattern: "2 related memories found — 1 more before a skill
    draft"; at 3 related memories a draft skill is made from them."""
    with tool_errors():
        stored, notice = service_of(ctx).learning.skills.learn(observation, domain, kind=kind, tags=tags,
                                                                outcome=outcome, task_type=task_type,
                                                                tools_used=tools_used)
    return LearnOut(id=stored.id, duplicate=stored.duplicate, related_ids=list(notice.related_ids),
                    threshold=notice.threshold, message=notice.message, skill_id=notice.skill_id)


def memory_skills(ctx: Context[AppContext, Any], project: Project = None,
                  status: Literal["draft", "active", "deprecated", "rejected"] | None = None,
                  skill_id: Annotated[str | None, Field(description="one skill, with its version history")] = None,
                  ) -> SkillListOut:
    """List skills (by project and status), or one skill with every version and its audit entry."""
    skills = service_of(ctx).learning.skills
    with tool_errors():
        if skill_id:
            return SkillListOut(skills=[SkillOut.model_validate(skills.get(skill_id))])
        return SkillListOut.model_validate(skills.list(project, status))


def memory_skill_transition(ctx: Context[AppContext, Any], skill_id: str,
                            status: Annotated[Literal["active", "deprecated", "rejected"], Field(
                                description="The status to move to (draft → active → deprecated; draft → rejected)")],
                            actor: Actor = "agent", reason: str | None = None,
                            successor_id: str | None = None) -> SkillOut:
    """Move a skill through its lifecycle (draft → active → deprecated, draft → rejected); a new version."""
    action = {"active": "activate", "deprecated": "deprecate", "rejected": "reject"}[status]
    with tool_errors():
        return SkillOut.model_validate(service_of(ctx).learning.skills.transition(
            skill_id, action, actor, reason, successor_id))


def memory_skill_rollback(ctx: Context[AppContext, Any], skill_id: str, version: Annotated[int, Field(ge=1)],
                          actor: Actor = "agent", reason: str | None = None) -> SkillOut:
    """Restore a skill's fields as they were at ``version`` (recorded as a new version)."""
    with tool_errors():
        return SkillOut.model_validate(service_of(ctx).learning.skills.rollback(skill_id, version, actor, reason))


def memory_skill_outcome(ctx: Context[AppContext, Any], skill_id: str,
                         outcome: Literal["success", "failure", "partial", "unknown"], actor: Actor = "agent",
                         note: str | None = None) -> SkillOut:
    """Record the outcome of using a skill (success and failure are counted)."""
    with tool_errors():
        return SkillOut.model_validate(service_of(ctx).learning.skills.record_outcome(skill_id, outcome, actor, note))


def memory_brief_status(ctx: Context[AppContext, Any], project: Project = None) -> BriefStatusOut:
    """Observations since the last brief, the threshold, and the files the next brief writes."""
    with tool_errors():
        return BriefStatusOut.model_validate(service_of(ctx).learning.briefs.status(project))


def memory_brief_synthesize(ctx: Context[AppContext, Any], root: Annotated[str, Field(
        description="project root, inside the project's folder or a root the client declared; targets are "
                    "written inside it")], roots: ClientRoots, project: Project = None,
        force: bool = False) -> BriefOut:
    """Write the extractive project brief (decisions, errors and fixes, patterns, architecture, active
    skills; every line with its memory id) between graphmem markers in the target files."""
    with tool_errors():
        return BriefOut.model_validate(service_of(ctx).learning.briefs.synthesize(
            root, project, force=force, client_roots=declared_roots(roots)))


def memory_brief_reset(ctx: Context[AppContext, Any], project: Project = None) -> BriefStatusOut:
    """Set the brief counter to zero without writing a brief."""
    with tool_errors():
        return BriefStatusOut.model_validate(service_of(ctx).learning.briefs.reset(project))


# Consolidation archives memories and a brief rewrites files: destructive, and not idempotent.
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                              open_world_hint=False)
TOOLS = {
    "memory_clusters": (memory_clusters, READ_ONLY),
    "memory_duplicates": (memory_duplicates, READ_ONLY),
    "memory_consolidate": (memory_consolidate, DESTRUCTIVE),
    "memory_consolidate_undo": (memory_consolidate_undo, DESTRUCTIVE),
    "memory_learn": (memory_learn, WRITE),
    "memory_skills": (memory_skills, READ_ONLY),
    "memory_skill_transition": (memory_skill_transition, WRITE),
    "memory_skill_rollback": (memory_skill_rollback, WRITE),
    "memory_skill_outcome": (memory_skill_outcome, WRITE),
    "memory_brief_status": (memory_brief_status, READ_ONLY),
    "memory_brief_synthesize": (memory_brief_synthesize, DESTRUCTIVE),
    "memory_brief_reset": (memory_brief_reset, WRITE),
}

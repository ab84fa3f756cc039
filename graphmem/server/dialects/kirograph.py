"""The KiroGraph dialect: the 16 ``kirograph_mem_*`` and 3 ``kirograph_watchmen_*`` tools with their
parameter names (camelCase) and defaults; ``kirograph_mem_store`` answers in KiroGraph's text.

``projectPath`` (KiroGraph's per-project database) is graphmem's project: the last component of the
path, by default the server's working directory as KiroGraph's is. Watchmen is graphmem's brief, counted
since the last ``kind: 'summary'`` (:mod:`.kirograph_watchmen`); synthesis writes inside ``projectPath``.
Counts, conflict lists and prune see the one project (:mod:`.kirograph_scope`).

KiroGraph's verified defects are not repeated: ``asOf`` really filters (validity and supersession are
written), a judged ``supersedes`` hides the older observation, review dates may be epoch ms or ISO and
both become due, search and review output carry the ids compare, judge and mark_reviewed need,
re-comparing a judged pair leaves it judged, relation types are validated, prune archives (never
hard-deletes) and has a dry run, and the Watchmen signal is a readable sentence, not "[object Object]".
"""

# KiroGraph's parameter names are camelCase (topicKey, projectPath): its contract.
# ruff: noqa: N803
from __future__ import annotations

import os
from pathlib import PurePath
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from graphmem.server.client_roots import ClientRoots, declared_roots
from graphmem.server.common import DESTRUCTIVE, READ_ONLY, REVERSIBLE, WRITE, Kind, reply, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.dialects import kirograph_scope as scope
from graphmem.server.dialects import kirograph_watchmen as watchmen
from graphmem.server.dialects.kirograph_watchmen import WatchmenOut, WatchmenStatusOut
from graphmem.server.maintenance import lint_out
from graphmem.server.models.lifecycle import LifecycleOut
from graphmem.server.models.memories import CaptureOut, TopicKeyOut
from graphmem.server.models.relations import PendingOut, RelationOutcomeOut
from graphmem.server.models.sessions import SessionOut
from graphmem.server.recall import search_out
from graphmem.server.relations import scan_out
from graphmem.service import MemoryService
from graphmem.service.memories.results import StoreResult
from graphmem.service.recall.results import SearchResult

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]
KiroKind = Literal["decision", "error", "pattern", "architecture", "summary", "note"]
KiroRelation = Literal["supersedes", "conflicts_with", "compatible", "scoped", "related", "not_conflict"]
ProjectPath = Annotated[str | None, Field(description=(
    "Project root path (default: cwd); its last component is the graphmem project"))]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, description="Confidence score from 0.0 to 1.0")]
Reason = Annotated[str | None, Field(description="Explanation for the relation")]
Evidence = Annotated[str | None, Field(description="Supporting evidence text")]
RelationId = Annotated[str, Field(description="Relation ID from kirograph_mem_compare or "
                                  "kirograph_mem_conflicts_list")]


def _project(project_path: str | None) -> str | None:
    """The graphmem project of a project root: its last path component (KiroGraph's default root is the
    server's working directory)."""
    root = project_path.strip() if project_path and project_path.strip() else os.getcwd()
    name = PurePath(root.rstrip("/\\")).name
    return name or None


def kirograph_mem_store(
    ctx: Ctx,
    content: Annotated[str, Field(description="Observation text. Should be factual and specific.")],
    kind: Annotated[KiroKind, Field(description="Observation kind")] = "note",
    topicKey: Annotated[str | None, Field(description=(
        'Stable semantic key for this observation (e.g. "architecture/auth-model")'))] = None,
    reviewAfter: Annotated[int | str | None, Field(description=(
        "Epoch millisecond timestamp (or ISO 8601 date) after which this observation should be reviewed"))] = None,
    projectPath: ProjectPath = None,
) -> str:
    """Store an observation in project memory. Duplicate content is ignored: re-storing the same text
    returns "Observation already exists (duplicate content).\""""
    service = service_of(ctx)
    project = _project(projectPath)
    if kind == "summary":  # a summary restarts the Watchmen count, as in KiroGraph
        stored = watchmen.store_summary(service, content, project)
    else:
        stored = _store(service, content, kind, project, topicKey, reviewAfter)
    with tool_errors():
        status = service.learning.briefs.status(project)
    if stored.duplicate:
        return f"Observation already exists (duplicate content). Existing observation: {stored.id} [{stored.kind}]"
    text = f"Stored observation {stored.id} [{stored.kind}]"
    if status.ready:
        text += (f"\nWatchmen ready: {status.count} observations since the last summary (threshold "
                 f"{status.threshold}); run kirograph_watchmen_synthesize.")
    return text


def _store(service: MemoryService, content: str, kind: str, project: str | None, topic_key: str | None,
           review_after: int | str | None) -> StoreResult:
    """A plain store; a pattern also goes through skill detection (recurring procedures become skills)."""
    with tool_errors():
        fields: dict[str, Any] = {"topic_key": topic_key, "review_after": review_after, "source": "kirograph"}
        if kind == "pattern":
            stored: StoreResult = service.learning.skills.learn(content, project, kind=kind, **fields)[0]
            return stored
        return service.store(content, kind, project, **fields)


def kirograph_mem_search(
    ctx: Ctx,
    query: Annotated[str, Field(description="Natural language search query.")],
    kind: Annotated[KiroKind | None, Field(description="Filter by observation kind")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Maximum results to return.")] = 10,
    sessionId: Annotated[str | None, Field(description="Filter observations to a specific session.")] = None,
    asOf: Annotated[int | str | None, Field(description=(
        "Query facts valid at this timestamp (epoch ms or ISO 8601); expired or superseded ones are left out"))
    ] = None,
    projectPath: ProjectPath = None,
) -> CallToolResult:
    """Search project memory for past decisions, errors, patterns and context, ranked by keyword and
    associative relevance; each hit has its id and notes (superseded, contradicted, pending conflict)."""
    service = service_of(ctx)
    project = _project(projectPath)
    with tool_errors():
        if sessionId:  # before the cut: graphmem's search has no session filter, so its ranking is paged
            result: SearchResult = scope.search_in_session(service, query, project, kind, limit, asOf, sessionId)
        else:
            result = service.search(query, project=project, kind=kind, limit=limit, as_of=asOf, notes=True)
        out = search_out(result, "compact")
    return reply(out)


def kirograph_mem_timeline(
    ctx: Ctx,
    limit: Annotated[int, Field(ge=1, le=100, description="Number of sessions to show.")] = 5,
    sessionId: Annotated[str | None, Field(description="Show observations for a specific session only.")] = None,
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, SessionOut]:
    """List recent sessions and their observations chronologically, to reconstruct previous sessions."""
    with tool_errors():
        report = service_of(ctx).sessions.timeline(limit, sessionId, _project(projectPath))
    return reply(SessionOut.model_validate(report))


def kirograph_mem_status(ctx: Ctx, projectPath: ProjectPath = None) -> dict[str, Any]:
    """Memory health: session count, total observations, embedding coverage, model mismatch, relation count
    and pending conflicts."""
    service = service_of(ctx)
    project = _project(projectPath)
    counts = scope.project_counts(service, project)
    pending = scope.pending_in(service, project, 1).total
    with tool_errors():
        watchmen = service.learning.briefs.status(project)
    return {"project": project, "sessions": counts["sessions"], "observations": counts["memories"],
            "by_kind": counts["by_kind"],
            "by_status": counts["by_status"], "embeddings": {"enabled": False, "coverage": 0.0,
                                                             "model_mismatch": False},
            "nlp_model": service.settings.nlp_model, "relations": counts["relations"],
            "pending_conflicts": pending, "watchmen": {"pending": watchmen.count, "threshold": watchmen.threshold,
                                                       "ready": watchmen.ready}}


def kirograph_mem_capture(
    ctx: Ctx,
    content: Annotated[str, Field(description=(
        "Text with ## Key Learnings, ## Learnings, ## Patterns, ## Key Changes, ## Observations, ## Decisions "
        "or ## Errors sections of bullet points"))],
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, CaptureOut]:
    """Extract and store structured learnings from a text block: each bullet under a known heading becomes
    one typed observation. Pure structural parser, no LLM."""
    with tool_errors():
        captured = service_of(ctx).capture.markdown(content, project=_project(projectPath))
    out = CaptureOut.model_validate(captured)
    out.ids = [item.id for item in out.items if item.id]
    return reply(out)


def kirograph_mem_save_prompt(
    ctx: Ctx, content: Annotated[str, Field(description="Prompt content to save.")],
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, SessionOut]:
    """Save the current user prompt to session memory for context reconstruction in future sessions."""
    with tool_errors():
        # client None: the prompt joins the session the project's stores already opened, whichever client
        report = service_of(ctx).sessions.save_prompt(content, project=_project(projectPath))
    return reply(SessionOut.model_validate(report))


def kirograph_mem_review(
    ctx: Ctx, limit: Annotated[int, Field(ge=1, le=500, description="Maximum results to return.")] = 20,
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, LifecycleOut]:
    """List observations past their review date, with their ids and how many days overdue each is."""
    with tool_errors():
        report = service_of(ctx).lifecycle.review_queue(_project(projectPath), limit)
    return reply(LifecycleOut.model_validate(report))


def kirograph_mem_mark_reviewed(
    ctx: Ctx, id: Annotated[str, Field(description="Observation ID to mark as reviewed.")],
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, LifecycleOut]:
    """Mark an observation as reviewed: clears its review date, removing it from the review queue."""
    with tool_errors():
        report = service_of(ctx).lifecycle.mark_reviewed(id)
    return reply(LifecycleOut.model_validate(report))


def kirograph_mem_prune(
    ctx: Ctx,
    olderThan: Annotated[str, Field(description='Duration: h, d, w or m, e.g. "30d", "6m", "2w".')] = "90d",
    projectPath: ProjectPath = None,
    dryRun: Annotated[bool, Field(description="Only report what would be pruned")] = False,
    protectKinds: Annotated[list[KiroKind], Field(max_length=6, description=(
        'Kinds never pruned, e.g. ["decision", "architecture"] (default: none, as in KiroGraph)'))] = [],  # noqa: B006
    since: Annotated[Literal["created", "used"], Field(description=(
        "Age from creation (KiroGraph) or from the last use (keeps what is still read)"))] = "created",
) -> Annotated[CallToolResult, LifecycleOut]:
    """Remove memory observations older than a given duration (graphmem forgets them: hidden from search,
    restorable). protectKinds keeps some kinds; since="used" measures age from the last use."""
    report = scope.prune(service_of(ctx), olderThan, _project(projectPath), dryRun, list(protectKinds), since)
    return reply(LifecycleOut.model_validate(report))


def kirograph_mem_lint(
    ctx: Ctx, fix: Annotated[bool, Field(description="When true, repair what can be repaired")] = False,
    projectPath: ProjectPath = None,
) -> CallToolResult:
    """Memory health check: orphan concepts, dangling relations, stale sessions, an index or graph out of
    sync; counts per check and the first findings. fix=true repairs them."""
    with tool_errors():
        report = service_of(ctx).lint.run(fix=fix)
    return reply(lint_out(report, 10))


def kirograph_mem_suggest_topic_key(
    ctx: Ctx, kind: Annotated[Kind, Field(description="Observation kind")],
    title: Annotated[str, Field(description="Short title or first sentence of the observation.")],
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, TopicKeyOut]:
    """Suggest a stable, deterministic topic_key (kind/slug) for an observation."""
    with tool_errors():
        key = service_of(ctx).suggest_topic_key(kind, title)
    return reply(TopicKeyOut(topic_key=key), key)


def kirograph_mem_conflicts_scan(
    ctx: Ctx, limit: Annotated[int, Field(ge=1, le=500, description="Maximum observations to scan.")] = 50,
    projectPath: ProjectPath = None,
) -> CallToolResult:
    """Scan recent observations for potential conflicts; returns candidate pairs (with ids and a suggested
    relation) to establish with kirograph_mem_compare."""
    with tool_errors():
        result = service_of(ctx).conflicts.scan(limit, _project(projectPath), max_candidates=20)
    return reply(scan_out(result, 20))


def kirograph_mem_compare(
    ctx: Ctx,
    observationA: Annotated[str, Field(description="First observation ID or topic_key.")],
    observationB: Annotated[str, Field(description="Second observation ID or topic_key.")],
    relation: Annotated[KiroRelation, Field(description="Relation type")],
    confidence: Confidence = 1.0, reason: Reason = None, evidence: Evidence = None,
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Establish a typed relation between two observations as a pending relation for kirograph_mem_judge.
    A pair already judged or ignored is left as it is."""
    with tool_errors():
        outcome = service_of(ctx).relations.compare(observationA, observationB, relation, confidence=confidence,
                                                    reason=reason, evidence=evidence)
    return reply(RelationOutcomeOut.model_validate(outcome))


def kirograph_mem_conflicts_list(
    ctx: Ctx, limit: Annotated[int, Field(ge=1, le=500, description="Maximum results to return.")] = 20,
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, PendingOut]:
    """List pending relations that need resolution: relation id, type, both observations and the reason."""
    page = scope.pending_in(service_of(ctx), _project(projectPath), limit)
    return reply(PendingOut.model_validate(page))


def kirograph_mem_judge(
    ctx: Ctx, relationId: RelationId,
    relation: Annotated[KiroRelation, Field(description="Final relation type after judgment.")],
    confidence: Annotated[float, Field(ge=0.0, le=1.0, description="Final confidence score (0.0-1.0).")],
    reason: Annotated[str | None, Field(description="Reasoning for the judgment.")] = None,
    evidence: Evidence = None, projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Finalize a pending relation: confirm, revise or reclassify it (pending → judged). A judged supersedes
    hides the older observation from search."""
    with tool_errors():
        outcome = service_of(ctx).relations.judge(relationId, relation, confidence=confidence, reason=reason,
                                                  evidence=evidence)
    return reply(RelationOutcomeOut.model_validate(outcome))


def kirograph_mem_conflicts_ignore(
    ctx: Ctx, relationId: Annotated[str, Field(description="Relation ID to dismiss.")],
    projectPath: ProjectPath = None,
) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Dismiss a pending relation as not relevant; it no longer appears in kirograph_mem_conflicts_list."""
    with tool_errors():
        outcome = service_of(ctx).relations.ignore(relationId)
    return reply(RelationOutcomeOut.model_validate(outcome))


def kirograph_watchmen_status(ctx: Ctx, projectPath: ProjectPath = None) -> WatchmenStatusOut:
    """Watchmen status: observations since the last summary, the threshold, and the brief and skill files
    the next synthesis writes."""
    return watchmen.status(service_of(ctx), _project(projectPath))


def kirograph_watchmen_synthesize(
    ctx: Ctx, roots: ClientRoots,
    force: Annotated[bool, Field(description="Run even if the pending count is below the threshold.")] = False,
    projectPath: ProjectPath = None,
) -> WatchmenOut:
    """Synthesize the workspace brief now (decisions, errors and fixes, patterns, architecture, active
    skills; each line with its observation id) between markers in the target files under projectPath, one
    file per skill, and store a kind: 'summary' observation of it (the count restarts)."""
    return watchmen.synthesize(service_of(ctx), projectPath, _project(projectPath), force, declared_roots(roots))


def kirograph_watchmen_reset(ctx: Ctx, projectPath: ProjectPath = None) -> WatchmenStatusOut:
    """Reset the Watchmen synthesis counter by storing a kind: 'summary' observation, without running full
    synthesis (after writing the brief by hand)."""
    return watchmen.reset(service_of(ctx), _project(projectPath))


# A brief rewrites files and a lint fix repairs rows: destructive, and not idempotent.
_REWRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                            open_world_hint=False)
TOOLS: dict[str, tuple[Any, ToolAnnotations]] = {
    "kirograph_mem_store": (kirograph_mem_store, WRITE),
    "kirograph_mem_search": (kirograph_mem_search, READ_ONLY),
    "kirograph_mem_timeline": (kirograph_mem_timeline, READ_ONLY),
    "kirograph_mem_status": (kirograph_mem_status, READ_ONLY),
    "kirograph_mem_capture": (kirograph_mem_capture, WRITE),
    "kirograph_mem_save_prompt": (kirograph_mem_save_prompt, WRITE),
    "kirograph_mem_review": (kirograph_mem_review, READ_ONLY),
    "kirograph_mem_mark_reviewed": (kirograph_mem_mark_reviewed, WRITE),
    "kirograph_mem_prune": (kirograph_mem_prune, DESTRUCTIVE),
    "kirograph_mem_lint": (kirograph_mem_lint, _REWRITES),
    "kirograph_mem_suggest_topic_key": (kirograph_mem_suggest_topic_key, READ_ONLY),
    "kirograph_mem_conflicts_scan": (kirograph_mem_conflicts_scan, READ_ONLY),
    "kirograph_mem_compare": (kirograph_mem_compare, WRITE),
    "kirograph_mem_conflicts_list": (kirograph_mem_conflicts_list, READ_ONLY),
    "kirograph_mem_judge": (kirograph_mem_judge, WRITE),
    "kirograph_mem_conflicts_ignore": (kirograph_mem_conflicts_ignore, WRITE),
    "kirograph_watchmen_status": (kirograph_watchmen_status, READ_ONLY),
    "kirograph_watchmen_synthesize": (kirograph_watchmen_synthesize, _REWRITES),
    "kirograph_watchmen_reset": (kirograph_watchmen_reset, REVERSIBLE),
}

"""The Kyew dialect: the ``memory`` tool (learn, recall, forget, correct) and its legacy aliases
``remember``, ``recall``, ``forget`` and ``correct``, answering in Kyew's text replies.

Kyew's ``domain`` is graphmem's project; ``task_type``, ``tools_used`` and ``outcome`` are kept in the
memory's meta (and the outcome as a tag) so recall can show them. ``include`` of skills lists the
domain's active and draft skills (``service.learning.skills``) at the ``skill_detail`` level.
``memory`` is one tool with four actions because that is Kyew's contract; its hints are those of its
most consequential action (forget).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphmem.server.common import DESTRUCTIVE, READ_ONLY, REVERSIBLE, WRITE, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.service import MemoryService

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]
Outcome = Literal["success", "failure", "partial", "unknown"]
_RELATED_FOR_SKILL = 3  # Kyew proposes a skill once a pattern has three related memories


def _learn(service: MemoryService, observation: str | None, domain: str | None, task_type: str | None,
           tools_used: list[str] | None, outcome: str | None, tags: list[str] | None) -> str:
    if not observation:
        raise ToolError("learn needs observation")
    meta = {k: v for k, v in (("task_type", task_type), ("tools_used", tools_used), ("outcome", outcome)) if v}
    labels = [*(tags or []), *([outcome] if outcome else [])]
    with tool_errors():
        stored = service.store(observation, "note", domain, tags=labels, meta=meta, source="kyew")
        related = [m for m in service.associate(observation, project=domain, max_results=10).memories
                   if m.id != stored.id and m.direct]
    found = len(related) + 1
    missing = max(0, _RELATED_FOR_SKILL - found)
    pattern = (f"{found} related memories found — {missing} more before skill generation." if missing
               else f"{found} related memories found — enough for a skill (the full profile's memory_learn drafts it).")
    where = f" Domain: {domain}." if domain else ""
    duplicate = " (already stored)" if stored.duplicate else ""
    return f"Memory saved (id: {stored.id}){duplicate}.{where} Pattern detection: {pattern}"


def _line(number: int, memory: Any) -> str:
    meta = getattr(memory, "meta", None) or {}
    labels = ", ".join(x for x in (memory.project, meta.get("outcome")) if x)
    return f"{number}. [{memory.id}] {memory.content}" + (f" ({labels})" if labels else "")


def _recall(service: MemoryService, query: str | None, memory_id: str | None, domain: str | None, include: str,
            limit: int, offset: int, summarize: bool, skill_detail: str | None = None) -> str:
    if not query and not memory_id:
        raise ToolError("recall needs query or memory_id")
    with tool_errors():
        if memory_id:
            memories = list(service.open([memory_id]).memories)
        else:
            hits = service.search(query or "", project=domain, limit=limit, offset=offset).hits
            found = service.repository.memories_by_id([h.id for h in hits])
            memories = [found[h.id] for h in hits if h.id in found]
    if include == "skills":
        memories = []
    lines = [_line(n, m) for n, m in enumerate(memories, start=offset + 1)]
    head = f"Found {len(memories)} memories"
    skills = _skills(service, domain, skill_detail) if include in {"skills", "all"} else ""
    if summarize or not memories:
        return f"{head}." + (f"\n\n{skills}" if skills and not summarize else "")
    return f"{head}:\n\n" + "\n".join(lines) + (f"\n\n{skills}" if skills else "")


def _skills(service: MemoryService, domain: str | None, detail: str | None) -> str:
    """The domain's active and draft skills, at Kyew's skill_detail level (default summary)."""
    with tool_errors():
        found = [s for s in service.learning.skills.list(domain).skills if s.status in {"active", "draft"}]
    if not found:
        return "Found 0 skills."
    lines = []
    for skill in found:
        line = f"- [{skill.id}] {skill.name} ({skill.status}, v{skill.version})"
        if detail != "name_only":
            line += f": {skill.trigger}"
        if detail == "full":
            line += "".join(f"\n  {n}. {step}" for n, step in enumerate(skill.steps, start=1))
        lines.append(line)
    return f"Found {len(found)} skills:\n" + "\n".join(lines)


def _forget(service: MemoryService, memory_id: str | None, superseded_by: str | None) -> str:
    if not memory_id:
        raise ToolError("forget needs memory_id")
    with tool_errors():
        service.lifecycle.forget(memory_id, superseded_by=superseded_by)
    return f"Memory {memory_id} forgotten." + (f" Superseded by {superseded_by}." if superseded_by else "")


def _correct(service: MemoryService, memory_id: str | None, correction: str | None) -> str:
    if not memory_id or not correction:
        raise ToolError("correct needs memory_id and correction")
    with tool_errors():
        report = service.lifecycle.correct(memory_id, correction)
    return f"Memory {memory_id} corrected. Previous version preserved in lineage (new id: {report.created_id})."


Observation = Annotated[str | None, Field(description="What happened. Used with learn.")]
Domain = Annotated[str | None, Field(description="Domain or project name.")]
TaskType = Annotated[str | None, Field(description="Type of task. Used with learn. Omit for pure memories.")]
ToolsUsed = Annotated[list[str] | None, Field(description="Tools used. Used with learn.")]
OutcomeParam = Annotated[Outcome | None, Field(description="Used with learn.")]
Tags = Annotated[list[str] | None, Field(description="Tags for categorization.")]
Query = Annotated[str | None, Field(description="Search query. Used with recall.")]
MemoryId = Annotated[str | None, Field(description="Memory ID. Used with recall (by ID), forget, correct.")]
Include = Annotated[Literal["memories", "skills", "all"], Field(description="Used with recall.")]
Limit = Annotated[int, Field(ge=1, le=100, description="Maximum number of results.")]
Offset = Annotated[int, Field(ge=0, description="Pagination offset.")]
Format = Annotated[Literal["full", "compact"] | None, Field(description="Result format.")]
SkillDetail = Annotated[Literal["full", "summary", "name_only"] | None, Field(
    description="Controls skill detail level in recall.")]
Summarize = Annotated[bool, Field(description="Condense results into a summary. Used with recall.")]
Correction = Annotated[str | None, Field(description="Corrected text. Used with correct.")]
SupersededBy = Annotated[str | None, Field(description="Replacement memory ID. Used with forget.")]


def memory(ctx: Ctx, action: Annotated[Literal["learn", "recall", "forget", "correct"], Field(
               description="One of learn, recall, forget, correct.")],
           observation: Observation = None, domain: Domain = None, task_type: TaskType = None,
           tools_used: ToolsUsed = None, outcome: OutcomeParam = None, tags: Tags = None, query: Query = None,
           memory_id: MemoryId = None, include: Include = "memories", limit: Limit = 10, offset: Offset = 0,
           format: Format = None, skill_detail: SkillDetail = None, summarize: Summarize = False,
           correction: Correction = None, superseded_by: SupersededBy = None) -> str:
    """Manage memories. Actions: learn (store observation with auto-pattern detection), recall (search
    memories and skills), forget (soft-delete), correct (update with lineage tracking)."""
    service = service_of(ctx)
    if action == "learn":
        return _learn(service, observation, domain, task_type, tools_used, outcome, tags)
    if action == "recall":
        return _recall(service, query, memory_id, domain, include, limit, offset, summarize, skill_detail)
    if action == "forget":
        return _forget(service, memory_id, superseded_by)
    return _correct(service, memory_id, correction)


def remember(ctx: Ctx, observation: Annotated[str, Field(description="What happened.")], domain: Domain = None,
             task_type: TaskType = None, tools_used: ToolsUsed = None, outcome: OutcomeParam = None,
             tags: Tags = None) -> str:
    """Alias of memory(action="learn")."""
    return _learn(service_of(ctx), observation, domain, task_type, tools_used, outcome, tags)


def recall(ctx: Ctx, query: Query = None, memory_id: MemoryId = None, domain: Domain = None,
           include: Include = "memories", limit: Limit = 10, offset: Offset = 0, summarize: Summarize = False
           ) -> str:
    """Alias of memory(action="recall")."""
    return _recall(service_of(ctx), query, memory_id, domain, include, limit, offset, summarize)


def forget(ctx: Ctx, memory_id: Annotated[str, Field(description="Memory ID.")],
           superseded_by: SupersededBy = None) -> str:
    """Alias of memory(action="forget")."""
    return _forget(service_of(ctx), memory_id, superseded_by)


def correct(ctx: Ctx, memory_id: Annotated[str, Field(description="Memory ID.")],
            correction: Annotated[str, Field(description="Corrected text.")]) -> str:
    """Alias of memory(action="correct")."""
    return _correct(service_of(ctx), memory_id, correction)


TOOLS = {
    "memory": (memory, DESTRUCTIVE.model_copy(update={"idempotent_hint": False})),
    "remember": (remember, WRITE),
    "recall": (recall, READ_ONLY),
    "forget": (forget, DESTRUCTIVE),
    "correct": (correct, REVERSIBLE),
}

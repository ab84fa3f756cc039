"""The Kyew dialect: the ``memory`` tool (learn, recall, forget, correct) and its legacy aliases
``remember``, ``recall``, ``forget`` and ``correct``, answering in Kyew's text replies.

Kyew's ``domain`` is graphmem's project; ``task_type``, ``tools_used`` and ``outcome`` are the memory's
own fields, so graphmem's ``outcome``/``task_type`` filters see them. ``learn`` is graphmem's skills
from patterns (``service.learning.skills.learn``): at three related memories it drafts a skill, and
``memory_skill_transition`` (graphmem's, in this profile) activates it; Kyew's hosted service names no
tool for that. ``recall`` finds skills by the query (``include``, ``skill_detail``), and ``format`` and
``summarize`` shape the text. ``correct`` writes a new version (graphmem keeps the wrong text in
lineage, never overwritten), and the id the agent holds keeps working: recall, forget and correct by it
reach the current version, and the reply says it was corrected.
``memory`` is one tool with four actions because that is Kyew's contract; its hints are those of its
most consequential action (forget).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphmem.core.values import Memory
from graphmem.server import learning
from graphmem.server.common import DESTRUCTIVE, READ_ONLY, REVERSIBLE, WRITE, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.service import MemoryService
from graphmem.service.recall.skills import SkillHit

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]
Outcome = Literal["success", "failure", "partial", "unknown"]
_MAX_CORRECTIONS = 100  # a correction chain longer than this is a loop, not history
_COMPACT_CHARS = 100  # format=compact: one short line per memory


def _current(service: MemoryService, memory_id: str) -> tuple[Memory, list[str]]:
    """The memory an id names now: corrections are followed to the newest version (with the ids passed)."""
    with tool_errors():
        memory = service.open([memory_id], include_relations=False).memories
    if not memory:
        raise ToolError(f"Memory {memory_id} not found")
    current, passed = memory[0], list[str]()
    while current.superseded_by and len(passed) < _MAX_CORRECTIONS:
        newer = service.repository.memories_by_id([current.superseded_by]).get(current.superseded_by)
        if newer is None:
            break
        passed.append(current.id)
        current = newer
    return current, passed


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") else f"{count} {word}s"


def _learn(service: MemoryService, observation: str | None, domain: str | None, task_type: str | None,
           tools_used: list[str] | None, outcome: str | None, tags: list[str] | None) -> str:
    if not observation:
        raise ToolError("learn needs observation")
    with tool_errors():
        stored, notice = service.learning.skills.learn(
            observation, domain, tags=tags or [], source="kyew", outcome=outcome, task_type=task_type,
            tools_used=tools_used or [])
    found = len(notice.related_ids)
    if notice.skill_id is None:
        pattern = f"{found} related memories found — {max(0, notice.threshold - found)} more before skill generation."
    else:
        with tool_errors():
            skill = service.learning.skills.get(notice.skill_id)
        pattern = (f"{found} related memories found — skill generated: {skill.name} ({skill.id}, {skill.status}, "
                   f"v{skill.version}). Activate it with memory_skill_transition(status=\"active\").")
    where = f" Domain: {domain}." if domain else ""
    duplicate = " (already stored)" if stored.duplicate else ""
    return f"Memory saved (id: {stored.id}){duplicate}.{where} Pattern detection: {pattern}"


def _line(number: int, memory: Memory, format: str | None, corrected: Sequence[str] = ()) -> str:
    """One memory: the seed's line by default; compact cuts it short, full adds its fields."""
    content = memory.content
    if format == "compact":
        short = content if len(content) <= _COMPACT_CHARS else content[:_COMPACT_CHARS - 1] + "…"
        return f"{number}. [{memory.id}] {short}"
    labels = ", ".join(x for x in (memory.project, memory.outcome) if x)
    line = f"{number}. [{memory.id}] {content}" + (f" ({labels})" if labels else "")
    if corrected:
        line += f" — corrected version of {', '.join(corrected)} (previous text kept in lineage)"
    if format == "full":
        fields = [f"kind: {memory.kind}", f"created: {memory.created_at.date().isoformat()}"]
        fields += [f"task_type: {memory.task_type}"] if memory.task_type else []
        fields += [f"tools_used: {', '.join(memory.tools_used)}"] if memory.tools_used else []
        fields += [f"tags: {', '.join(memory.tags)}"] if memory.tags else []
        line += "\n   " + " · ".join(fields)
    return line


def _skill_line(skill: SkillHit, detail: str | None) -> str:
    """Kyew's "Skill: Deploy Checklist (skill_x1y2z3, active) — 3-step …" at the skill_detail level."""
    line = f"Skill: {skill.name} ({skill.id}, {skill.status})"
    if detail == "name_only":
        return line
    line += f" — {skill.step_count or len(skill.steps)}-step: {skill.trigger}"
    if detail == "full":
        line += f" (v{skill.version}; {skill.successes or 0} successes, {skill.failures or 0} failures)"
        line += "".join(f"\n  {n}. {step}" for n, step in enumerate(skill.steps, start=1))
    return line


def _summary(memories: Sequence[Memory], concepts: Counter[str], skills: Sequence[SkillHit]) -> str:
    """summarize=true: what the results have in common, not the results themselves."""
    parts = []
    outcomes = Counter(m.outcome for m in memories if m.outcome)
    if outcomes:
        parts.append("Outcomes: " + ", ".join(f"{n} {o}" for o, n in outcomes.most_common()) + ".")
    domains = Counter(m.project for m in memories if m.project)
    if domains:
        parts.append("Domains: " + ", ".join(f"{d} ({n})" for d, n in domains.most_common(3)) + ".")
    if concepts:
        parts.append("Common themes: " + ", ".join(c for c, _ in concepts.most_common(5)) + ".")
    if memories:
        first = memories[0].content
        parts.append(f"Most relevant: [{memories[0].id}] {first[:80] + ('…' if len(first) > 80 else '')}")
    parts += [f"Skill: {s.name} ({s.id}, {s.status})" for s in skills]
    return " ".join(parts)


def _recall(service: MemoryService, query: str | None, memory_id: str | None, domain: str | None, include: str,
            limit: int, offset: int, summarize: bool, skill_detail: str | None = None,
            format: str | None = None) -> str:
    if not query and not memory_id:
        raise ToolError("recall needs query or memory_id")
    corrected: dict[str, list[str]] = {}
    concepts: Counter[str] = Counter()
    skills: Sequence[SkillHit] = ()
    if memory_id:
        memory, passed = _current(service, memory_id)
        memories = [memory]
        corrected[memory.id] = passed
    else:
        with tool_errors():
            result = service.search(query or "", project=domain, limit=limit, offset=offset, include=include,
                                    skill_detail="full" if skill_detail == "full" else "summary")
            found = service.repository.memories_by_id([h.id for h in result.hits])
        memories = [found[h.id] for h in result.hits if h.id in found]
        concepts.update(c for h in result.hits for c in h.concepts)
        skills = result.skills
    head = _head(len(memories), len(skills), include if not memory_id else "memories")
    if summarize:
        return f"{head}. {_summary(memories, concepts, skills)}".rstrip()
    lines = [_line(n, m, format, corrected.get(m.id, ())) for n, m in enumerate(memories, start=offset + 1)]
    blocks = ["\n".join(lines)] if lines else []
    blocks += ["\n".join(_skill_line(s, skill_detail) for s in skills)] if skills else []
    return f"{head}:\n\n" + "\n\n".join(blocks) if blocks else f"{head}."


def _head(memories: int, skills: int, include: str) -> str:
    if include == "skills":
        return f"Found {_plural(skills, 'skill')}"
    if include == "all":
        return f"Found {_plural(memories, 'memory')} and {_plural(skills, 'skill')}"
    return f"Found {_plural(memories, 'memory')}"


def _forget(service: MemoryService, memory_id: str | None, superseded_by: str | None) -> str:
    if not memory_id:
        raise ToolError("forget needs memory_id")
    current, passed = _current(service, memory_id)
    with tool_errors():
        service.edits.forget(current.id, superseded_by=superseded_by)
    version = f" (its current version {current.id})" if passed else ""
    return f"Memory {memory_id}{version} forgotten." + (f" Superseded by {superseded_by}." if superseded_by else "")


def _correct(service: MemoryService, memory_id: str | None, correction: str | None) -> str:
    if not memory_id or not correction:
        raise ToolError("correct needs memory_id and correction")
    current, _ = _current(service, memory_id)
    with tool_errors():
        report = service.edits.correct(current.id, correction)
    return (f"Memory {memory_id} corrected. Previous version preserved in lineage (current version: "
            f"{report.created_id}; recall, forget and correct by {memory_id} reach it).")


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
Format = Annotated[Literal["full", "compact"] | None, Field(
    description="Result format: compact cuts each memory to one short line, full adds its fields.")]
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
        return _recall(service, query, memory_id, domain, include, limit, offset, summarize, skill_detail, format)
    if action == "forget":
        return _forget(service, memory_id, superseded_by)
    return _correct(service, memory_id, correction)


def remember(ctx: Ctx, observation: Annotated[str, Field(description="What happened.")], domain: Domain = None,
             task_type: TaskType = None, tools_used: ToolsUsed = None, outcome: OutcomeParam = None,
             tags: Tags = None) -> str:
    """Alias of memory(action="learn")."""
    return _learn(service_of(ctx), observation, domain, task_type, tools_used, outcome, tags)


def recall(ctx: Ctx, query: Query = None, memory_id: MemoryId = None, domain: Domain = None,
           include: Include = "memories", limit: Limit = 10, offset: Offset = 0, summarize: Summarize = False,
           format: Format = None, skill_detail: SkillDetail = None) -> str:
    """Alias of memory(action="recall")."""
    return _recall(service_of(ctx), query, memory_id, domain, include, limit, offset, summarize, skill_detail,
                   format)


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
    # Kyew's skills go draft → active → deprecated; its hosted service names no tool for it, so graphmem's.
    "memory_skill_transition": learning.TOOLS["memory_skill_transition"],
}

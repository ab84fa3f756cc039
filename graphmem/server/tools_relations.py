"""Relation-area tools: ``memory_relation`` (relate, compare, pending, judge, ignore, scan, history,
suggest_key), ``memory_fact`` (add, invalidate, at, timeline), ``memory_capture`` and ``memory_lint``.

The judgment workflow is one tool with an ``action`` so an agent sees one entry point for it; facts,
capture and lint are different enough in shape to be their own tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.core.relations import valid_relation_types
from graphmem.errors import InvalidInput
from graphmem.server.context import AppContext
from graphmem.server.relation_models import (
    CaptureOut,
    FactListOut,
    FactResultOut,
    FactToolOut,
    LintOut,
    RelationToolOut,
)
from graphmem.server.tools import WRITE, Instant, Kind, Project, service_of, tool_errors
from graphmem.service import MemoryService

__all__ = ["register"]

# The Literal is built from the semantics table, so the schema's enum and the table never disagree.
RelationType = Literal[valid_relation_types()]  # type: ignore[valid-type]
RelationAction = Literal["relate", "compare", "pending", "judge", "ignore", "scan", "history", "suggest_key"]
FactAction = Literal["add", "invalidate", "at", "timeline"]
Ref = Annotated[str | None, Field(description="Memory id or topic key")]
LINT = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                       open_world_hint=False)


def _need(action: str, **values: Any) -> None:
    missing = [name for name, value in values.items() if value in (None, "")]
    if missing:
        raise InvalidInput(f"action {action!r} needs {', '.join(missing)}")


def memory_relation(
    ctx: Context[AppContext, Any],
    *,
    action: Annotated[RelationAction, Field(description=(
        "relate = assert a relation now (judged); compare = propose one for judgment (pending); "
        "pending = list pending relations with every id; judge = confirm or revise a relation (type, "
        "confidence, stronger side); ignore = dismiss it; scan = find contradiction candidates among "
        "recent memories; history = what replaced what for a memory or topic key; "
        "suggest_key = a topic key for a title"))],
    source: Annotated[str | None, Field(description="relate/compare: memory id or topic key of the source "
                                        "(the side that supersedes, causes, supports...)")] = None,
    target: Ref = None,
    relation: Annotated[RelationType | None, Field(description="relate/compare: the relation type; "
                                                   "judge: a revised type")] = None,
    relation_id: Annotated[str | None, Field(description="judge/ignore: rel_… id (compare, pending)")] = None,
    confidence: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
    reason: str | None = None,
    evidence: str | None = None,
    meta: dict[str, Any] | None = None,
    stronger: Annotated[str | None, Field(description="judge: id of the side that wins a conflict")] = None,
    ref: Annotated[str | None, Field(description="history: memory id or topic key; pending: only relations "
                                     "touching this memory")] = None,
    project: Project = None,
    limit: Annotated[int, Field(ge=1, le=500, description="pending: page size; scan: newest memories")] = 20,
    offset: Annotated[int, Field(ge=0)] = 0,
    min_score: Annotated[float, Field(ge=0.0, le=1.0, description="scan: drop weaker candidates")] = 0.0,
    kind: Annotated[Kind | None, Field(description="suggest_key: the memory kind")] = None,
    title: Annotated[str | None, Field(description="suggest_key: title or first sentence")] = None,
) -> RelationToolOut:
    """Typed relations between memories and the conflict workflow: scan → compare → pending → judge or
    ignore. A judged supersedes hides the older memory from recall (as_of still shows it); contradicts /
    conflicts_with surface in composition. Memories are addressed by id or topic key."""
    arguments = {"source": source, "target": target, "relation": relation, "relation_id": relation_id,
                 "confidence": confidence, "reason": reason, "evidence": evidence, "meta": meta,
                 "stronger": stronger, "ref": ref, "project": project, "limit": limit, "offset": offset,
                 "min_score": min_score, "kind": kind, "title": title}
    with tool_errors():
        result = _RELATION_ACTIONS[action](service_of(ctx), arguments)
    return RelationToolOut.model_validate(result | {"action": action})


Handler = Callable[[MemoryService, dict[str, Any]], dict[str, Any]]


def _write(pending: bool) -> Handler:
    def run(service: MemoryService, a: dict[str, Any]) -> dict[str, Any]:
        _need("compare" if pending else "relate", source=a["source"], target=a["target"],
              relation=a["relation"])
        write = service.relations.compare if pending else service.relations.relate
        confidence = 1.0 if a["confidence"] is None else a["confidence"]
        return {"outcome": write(a["source"], a["target"], a["relation"], confidence=confidence,
                                 reason=a["reason"], evidence=a["evidence"], meta=a["meta"])}
    return run


def _judge(service: MemoryService, a: dict[str, Any]) -> dict[str, Any]:
    _need("judge", relation_id=a["relation_id"])
    return {"outcome": service.relations.judge(a["relation_id"], a["relation"], confidence=a["confidence"],
                                               reason=a["reason"], evidence=a["evidence"],
                                               stronger=a["stronger"])}


def _ignore(service: MemoryService, a: dict[str, Any]) -> dict[str, Any]:
    _need("ignore", relation_id=a["relation_id"])
    return {"outcome": service.relations.ignore(a["relation_id"], a["reason"])}


def _scan(service: MemoryService, a: dict[str, Any]) -> dict[str, Any]:
    return {"scan": service.conflicts.scan(a["limit"], a["project"], min_score=a["min_score"])}


def _history(service: MemoryService, a: dict[str, Any]) -> dict[str, Any]:
    _need("history", ref=a["ref"])
    return {"history": service.history.of(a["ref"], a["project"])}


def _suggest(service: MemoryService, a: dict[str, Any]) -> dict[str, Any]:
    _need("suggest_key", kind=a["kind"], title=a["title"])
    return {"topic_key": service.relations.suggest_topic_key(a["kind"], a["title"])}


_RELATION_ACTIONS: dict[str, Handler] = {
    "relate": _write(pending=False),
    "compare": _write(pending=True),
    "pending": lambda s, a: {"pending": s.relations.pending(a["limit"], a["offset"], a["ref"])},
    "judge": _judge,
    "ignore": _ignore,
    "scan": _scan,
    "history": _history,
    "suggest_key": _suggest,
}


def memory_fact(
    ctx: Context[AppContext, Any],
    *,
    action: Annotated[FactAction, Field(description=(
        "add = subject predicate object holds from valid_from (closes the fact with another object for the "
        "same subject and predicate); invalidate = close fact_id at `at`; at = facts holding at `at`; "
        "timeline = every fact about subject, in time order"))],
    subject: str | None = None,
    predicate: str | None = None,
    object: str | None = None,
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0,
    valid_from: Instant = None,
    at: Instant = None,
    invalidate_previous: Annotated[bool, Field(description="add: close the previous object of (subject, "
                                               "predicate); false for many-valued predicates")] = True,
    fact_id: Annotated[str | None, Field(description="invalidate: fact_… id")] = None,
    reason: str | None = None,
    source: Annotated[str | None, Field(description="add: id or topic key of its memory")] = None,
) -> FactToolOut:
    """Temporal facts (subject, predicate, object) in the concept graph: add, invalidate, state at an
    instant, timeline of a subject. Subjects and objects are concept nodes, so recall flows through facts."""
    facts = service_of(ctx).facts
    with tool_errors():
        if action == "add":
            _need("add", subject=subject, predicate=predicate, object=object)
            result = facts.add(subject or "", predicate or "", object or "", confidence=confidence,
                               valid_from=valid_from, invalidate_previous=invalidate_previous, reason=reason,
                               source=source)
            return FactToolOut(action=action, result=FactResultOut.model_validate(result))
        if action == "invalidate":
            _need("invalidate", fact_id=fact_id)
            result = facts.invalidate(fact_id or "", at, reason)
            return FactToolOut(action=action, result=FactResultOut.model_validate(result))
        if action == "timeline":
            _need("timeline", subject=subject)
            return FactToolOut(action=action, facts=FactListOut.model_validate(facts.timeline(subject or "")))
        listed = facts.at(at, subject, predicate, object)
        return FactToolOut(action=action, facts=FactListOut.model_validate(listed))


def memory_capture(
    ctx: Context[AppContext, Any],
    *,
    content: Annotated[str, Field(description="Markdown with ## Decisions, ## Key Learnings, ## Learnings, "
                                  "## Patterns, ## Key Changes, ## Observations or ## Errors bullets")],
    project: Project = None,
    session_id: str | None = None,
    tags: Annotated[list[str], Field(max_length=50)] = [],  # noqa: B006 - the schema shows [] as default
    dry_run: Annotated[bool, Field(description="parse and report only; store nothing")] = False,
) -> CaptureOut:
    """Capture a session note: every bullet or numbered item under a known heading becomes one typed
    observation (decision, pattern, note, error), stored in one batch. Skipped lines come with a reason."""
    with tool_errors():
        result = service_of(ctx).capture.markdown(content, project=project, session_id=session_id,
                                                            tags=tags, dry_run=dry_run)
    return CaptureOut.model_validate(result)


def memory_lint(
    ctx: Context[AppContext, Any],
    *,
    fix: Annotated[bool, Field(description="repair what is safe: dangling rows, orphan and case-duplicate "
                               "concepts, stale sessions, the full-text index, the graph")] = False,
) -> LintOut:
    """Store health: orphan concepts, dangling relations and edges, memories without concepts, duplicate
    concepts, stale sessions, full-text index or graph projection out of sync with the rows."""
    with tool_errors():
        return LintOut.model_validate(service_of(ctx).lint.run(fix=fix))


_TOOLS: tuple[tuple[Callable[..., Any], ToolAnnotations], ...] = (
    (memory_relation, WRITE),
    (memory_fact, WRITE),
    (memory_capture, WRITE),
    (memory_lint, LINT),
)


def register(server: MCPServer[Any]) -> None:
    """Add the relation-area tools to ``server``."""
    for function, hints in _TOOLS:
        server.add_tool(function, annotations=hints)

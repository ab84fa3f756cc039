"""Temporal fact tools: add, invalidate, facts at an instant, timeline of a subject. Subjects and
objects are concept nodes, so recall flows through facts."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.common import READ_ONLY, WRITE, Instant, reply, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.models.facts import FactListOut, FactResultOut

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]
Subject = Annotated[str, Field(description="What the fact is about, e.g. billing-service")]


def memory_fact_add(
    ctx: Ctx,
    subject: Subject,
    predicate: Annotated[str, Field(description="The property or link, e.g. uses_database")],
    object: Annotated[str, Field(description="Its value, e.g. PostgreSQL 16")],
    confidence: Annotated[float, Field(ge=0.0, le=1.0, description="How sure, 0 to 1")] = 1.0,
    valid_from: Annotated[Instant, Field(description="When it became true; default now")] = None,
    invalidate_previous: Annotated[bool, Field(description=(
        "Close the previous object of (subject, predicate); false for many-valued predicates"))] = True,
    reason: Annotated[str | None, Field(description="Why it changed, kept on the closed fact")] = None,
    source: Annotated[str | None, Field(description="Id or topic key of the memory it comes from")] = None,
) -> Annotated[CallToolResult, FactResultOut]:
    """Record that subject predicate object holds from valid_from; a new object for the same subject and
    predicate closes the old one (listed in closed)."""
    with tool_errors():
        result = service_of(ctx).facts.add(subject, predicate, object, confidence=confidence,
                                           valid_from=valid_from, invalidate_previous=invalidate_previous,
                                           reason=reason, source=source)
    return reply(FactResultOut.model_validate(result))


def memory_fact_invalidate(
    ctx: Ctx,
    fact_id: Annotated[str, Field(description="The fact_… id")],
    at: Annotated[Instant, Field(description="When it stopped holding; default now")] = None,
    reason: Annotated[str | None, Field(description="Why it stopped holding")] = None,
) -> Annotated[CallToolResult, FactResultOut]:
    """Close a fact at an instant: the past keeps it, the state after that instant does not."""
    with tool_errors():
        result = service_of(ctx).facts.invalidate(fact_id, at, reason)
    return reply(FactResultOut.model_validate(result))


def memory_facts_at(
    ctx: Ctx,
    at: Annotated[Instant, Field(description="The instant; default now")] = None,
    subject: Annotated[str | None, Field(description="Only facts about this subject")] = None,
    predicate: Annotated[str | None, Field(description="Only this predicate")] = None,
    object: Annotated[str | None, Field(description="Only this object")] = None,
) -> Annotated[CallToolResult, FactListOut]:
    """The facts that held at an instant, filtered by subject, predicate or object."""
    with tool_errors():
        listed = service_of(ctx).facts.at(at, subject, predicate, object)
    return reply(FactListOut.model_validate(listed))


def memory_fact_timeline(ctx: Ctx, subject: Subject) -> Annotated[CallToolResult, FactListOut]:
    """Every fact about a subject (as subject or object) in the order they began, closed ones too."""
    with tool_errors():
        listed = service_of(ctx).facts.timeline(subject)
    return reply(FactListOut.model_validate(listed))


TOOLS = {
    "memory_fact_add": (memory_fact_add, WRITE),
    "memory_fact_invalidate": (memory_fact_invalidate, WRITE),
    "memory_facts_at": (memory_facts_at, READ_ONLY),
    "memory_fact_timeline": (memory_fact_timeline, READ_ONLY),
}

"""Memory tools: store, open, correct, forget, restore, touch, history, capture and suggest a topic key.
One intent each."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.common import (
    DESTRUCTIVE,
    READ_ONLY,
    REVERSIBLE,
    WRITE,
    Instant,
    Kind,
    Project,
    Ref,
    reply,
    service_of,
    tool_errors,
)
from graphmem.server.context import AppContext
from graphmem.server.learn_params import OutcomeValue, TaskTypeValue, ToolsValue
from graphmem.server.models.memories import CaptureOut, ChangeOut, HistoryOut, OpenOut, StoreOut, TopicKeyOut

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]


def memory_store(
    ctx: Ctx,
    content: Annotated[str, Field(description="A factual, specific observation (max 50,000 chars)")],
    kind: Annotated[Kind, Field(description="What it is")] = "note",
    project: Project = None,
    topic_key: Annotated[str | None, Field(description=(
        "Stable key (architecture/session-storage) of the current answer on a topic; a newer memory "
        "with the key supersedes it"))] = None,
    tags: Annotated[list[str], Field(max_length=50, description="Labels to filter by later")] = [],  # noqa: B006
    entities: Annotated[list[str], Field(max_length=100, description=(
        "Things it is about that the text does not name"))] = [],  # noqa: B006
    source: Annotated[str | None, Field(description="Where it came from (agent, user, file, URL)")] = None,
    context: Annotated[str | None, Field(description="The situation, if the text lacks it")] = None,
    meta: Annotated[dict[str, Any], Field(description="Extra JSON data")] = {},  # noqa: B006
    session_id: Annotated[str | None, Field(description="Default: the project's live session")] = None,
    review_after: Annotated[Instant, Field(description="When to re-check a fact that may go stale")] = None,
    valid_from: Annotated[Instant, Field(description="When it became true, if before now")] = None,
    outcome: OutcomeValue = None,
    task_type: TaskTypeValue = None,
    tools_used: ToolsValue = [],  # noqa: B006
) -> Annotated[CallToolResult, StoreOut]:
    """Store an observation; the same content in a project returns the existing id (duplicate)."""
    with tool_errors():
        stored = service_of(ctx).store(content, kind, project, topic_key, tags, entities, source, context, meta,
                                       session_id, review_after, valid_from, outcome=outcome,
                                       task_type=task_type, tools_used=tools_used)
    return reply(StoreOut.model_validate(stored))


def memory_open(
    ctx: Ctx,
    ids: Annotated[list[str], Field(min_length=1, max_length=100, description="Memory ids or topic keys")],
    include_relations: Annotated[bool, Field(description="Also their typed relations")] = True,
    as_of: Annotated[Instant, Field(description="As they were then (ISO 8601 or epoch ms)")] = None,
) -> Annotated[CallToolResult, OpenOut]:
    """Read full memories by id or topic key, with relations and concepts."""
    with tool_errors():
        opened = service_of(ctx).open(ids, include_relations, as_of)
    return reply(OpenOut.model_validate(opened))


def memory_correct(
    ctx: Ctx,
    id: Ref,
    content: Annotated[str, Field(description="The complete corrected text")],
    reason: Annotated[str | None, Field(description="Why it was wrong")] = None,
) -> Annotated[CallToolResult, ChangeOut]:
    """Correct a wrong memory: a new version (created_id) supersedes it; the original stays in history."""
    with tool_errors():
        report = service_of(ctx).edits.correct(id, content, reason=reason)
    return reply(ChangeOut.of(report))


def memory_forget(
    ctx: Ctx,
    id: Ref,
    superseded_by: Annotated[str | None, Field(description="The memory replacing it, if any")] = None,
    reason: Annotated[str | None, Field(description="Why it no longer holds")] = None,
) -> Annotated[CallToolResult, ChangeOut]:
    """Forget a memory that no longer holds: recall hides it; as_of before now still shows it."""
    with tool_errors():
        report = service_of(ctx).edits.forget(id, superseded_by=superseded_by, reason=reason)
    return reply(ChangeOut.of(report))


def memory_restore(ctx: Ctx, id: Ref) -> Annotated[CallToolResult, ChangeOut]:
    """Undo a forget or an archive: the memory is active and recalled again."""
    with tool_errors():
        report = service_of(ctx).edits.restore(id)
    return reply(ChangeOut.of(report))


def memory_touch(
    ctx: Ctx,
    ids: Annotated[list[str], Field(min_length=1, max_length=100, description="Memory ids or topic keys "
                                    "that proved useful")],
    boost: Annotated[bool, Field(description="Also raise their strength (capped), for memories that "
                                 "must not fade")] = False,
) -> Annotated[CallToolResult, ChangeOut]:
    """Reinforce memories that helped: use count + 1 and last used = now, so they decay slower."""
    with tool_errors():
        report = service_of(ctx).edits.touch(ids, boost=boost)
    return reply(ChangeOut.of(report))


def memory_history(
    ctx: Ctx,
    ref: Ref,
    project: Annotated[str | None, Field(description="For a topic key used by several projects")] = None,
) -> Annotated[CallToolResult, HistoryOut]:
    """What replaced what for a memory or topic key (corrections, supersedes, forgets with a successor),
    oldest first; current_ids are the versions recall shows now."""
    with tool_errors():
        history = service_of(ctx).history.of(ref, project)
    return reply(HistoryOut.model_validate(history))


def memory_capture(
    ctx: Ctx,
    content: Annotated[str, Field(description="Markdown with ## Decisions, ## Key Learnings, ## Learnings, "
                                  "## Patterns, ## Key Changes, ## Observations or ## Errors bullets")],
    project: Project = None,
    session_id: Annotated[str | None, Field(description="Only to file them under another session")] = None,
    tags: Annotated[list[str], Field(max_length=50, description="Tags for every captured memory")] = [],  # noqa: B006
    dry_run: Annotated[bool, Field(description="Parse and report only; store nothing")] = False,
) -> Annotated[CallToolResult, CaptureOut]:
    """Capture a session note: every bullet under a known heading becomes one typed memory (decision,
    pattern, note, error), stored in one batch. Skipped lines come with a reason."""
    with tool_errors():
        captured = service_of(ctx).capture.markdown(content, project=project, session_id=session_id, tags=tags,
                                                    dry_run=dry_run)
    out = CaptureOut.model_validate(captured)
    out.ids = [item.id for item in out.items if item.id]
    return reply(out)


def memory_suggest_key(
    ctx: Ctx,
    kind: Annotated[Kind, Field(description="The memory's kind")],
    title: Annotated[str, Field(description="A short title or the first sentence")],
) -> Annotated[CallToolResult, TopicKeyOut]:
    """A stable topic key (kind/slug) for a memory, to store it with topic_key and address it later."""
    with tool_errors():
        key = service_of(ctx).suggest_topic_key(kind, title)
    return reply(TopicKeyOut(topic_key=key))


TOOLS = {
    "memory_store": (memory_store, WRITE),
    "memory_open": (memory_open, READ_ONLY),
    "memory_correct": (memory_correct, REVERSIBLE),
    "memory_forget": (memory_forget, DESTRUCTIVE),
    "memory_restore": (memory_restore, WRITE),
    "memory_touch": (memory_touch, REVERSIBLE),
    "memory_history": (memory_history, READ_ONLY),
    "memory_capture": (memory_capture, WRITE),
    "memory_suggest_key": (memory_suggest_key, READ_ONLY),
}

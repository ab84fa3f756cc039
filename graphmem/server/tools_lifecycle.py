"""The lifecycle tools: ``memory_lifecycle`` (reinforce, forget, correct, review, promote, gc, prune,
metrics) and ``memory_session`` (start, end, save_prompt, timeline). Two tools with an ``action``
argument keep the default tool list small; each call is one thin service call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.errors import InvalidInput
from graphmem.server.context import AppContext
from graphmem.server.models_lifecycle import LifecycleItemOut, LifecycleOut, SessionOut
from graphmem.server.tools import Instant, Project, service_of, tool_errors
from graphmem.service.lifecycle.results import LifecycleReport
from graphmem.service.lifecycle.service import LifecycleService
from graphmem.service.memories.results import HistoryResult

__all__ = ["LIFECYCLE", "SESSION", "memory_lifecycle", "memory_session", "register"]

# gc/prune with mode="delete" hard-delete: the tool as a whole is destructive.
LIFECYCLE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                            open_world_hint=False)
SESSION = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                          open_world_hint=False)

LifecycleAction = Literal["touch", "forget", "restore", "correct", "history", "review", "mark_reviewed",
                          "promote", "gc", "prune", "metrics", "reset_metrics"]
_ONE_ID = frozenset({"forget", "restore", "correct", "history", "mark_reviewed"})


def memory_lifecycle(
    ctx: Context[AppContext, Any],
    *,
    action: Annotated[LifecycleAction, Field(description=(
        "touch: reinforce ids (use_count+1, last_used=now; boost adds strength). "
        "forget: soft-forget one id (optional superseded_by). restore: undo forget/archive. "
        "correct: new version of one id with `content`; the original stays in history. "
        "history: every version of one id. review: memories past review_after. "
        "mark_reviewed: clear or reschedule one id's review. promote: ids or auto-detected candidates "
        "to long-term memory. gc: archive memories whose decay score fell below the threshold. "
        "prune: archive memories idle longer than older_than. metrics / reset_metrics: per-operation "
        "timings."))],
    ids: Annotated[list[str], Field(max_length=100, description="Memory ids or topic keys")] = [],  # noqa: B006
    content: Annotated[str | None, Field(description="correct: the corrected text")] = None,
    superseded_by: Annotated[str | None, Field(description="forget: the memory that replaces it")] = None,
    reason: Annotated[str | None, Field(description="forget / correct: why")] = None,
    boost: Annotated[bool, Field(description="touch: also raise strength (capped)")] = False,
    reschedule: Annotated[bool, Field(
        description="mark_reviewed: next review after a growing interval")] = False,
    review_after: Instant = None,
    dry_run: Annotated[bool, Field(description="gc / prune / promote: only report what would change")] = True,
    mode: Annotated[Literal["archive", "delete"], Field(
        description="gc / prune: archive (reversible) or delete (permanent)")] = "archive",
    older_than: Annotated[str, Field(description="prune: idle age such as 90d, 2w, 6m, 12h")] = "90d",
    protect: Annotated[list[str] | None, Field(
        description="prune: kinds never pruned (default: decision, architecture)")] = None,
    force: Annotated[bool, Field(description="promote: named ids even if the criteria are not met")] = False,
    export: Annotated[bool, Field(description="promote: also write Markdown notes to the vault")] = False,
    folder: Annotated[str | None, Field(description="promote: folder inside the vault")] = None,
    project: Project = None,
    limit: Annotated[int | None, Field(ge=1, le=10_000, description="Maximum items (default: per action)")
                     ] = None,
) -> LifecycleOut:
    """Memory lifecycle: reinforce, forget, correct with lineage, review, promote, gc, prune, metrics.
    Every item carries its memory id. gc, prune and promote are dry runs unless dry_run=false."""
    arguments = {"ids": ids, "content": content, "superseded_by": superseded_by, "reason": reason,
                 "boost": boost, "reschedule": reschedule, "review_after": review_after, "dry_run": dry_run,
                 "mode": mode, "older_than": older_than, "protect": protect, "force": force, "export": export,
                 "folder": folder, "project": project, "limit": limit}
    with tool_errors():
        if action == "history":  # the one history of a memory is service.history (issue 13, item 8)
            return _history_out(service_of(ctx).history.of(_single(action, ids)))
        report = run_lifecycle_action(service_of(ctx).lifecycle, action, arguments)
    return LifecycleOut.model_validate(report)


def _single(action: str, ids: list[str]) -> str:
    if len(ids) != 1:
        raise InvalidInput(f"{action} takes exactly one id in ids, got {len(ids)}")
    return ids[0]


def _history_out(history: HistoryResult) -> LifecycleOut:
    items = [LifecycleItemOut.model_validate(version) for version in history.memories]
    return LifecycleOut(action="history", items=items, dry_run=False, count=len(items), total=len(items),
                        message=history.message)


def run_lifecycle_action(lifecycle: LifecycleService, action: str, a: dict[str, Any]) -> LifecycleReport:
    """Dispatch one ``memory_lifecycle`` action to the service."""
    if action in _ONE_ID and len(a["ids"]) != 1:
        raise InvalidInput(f"{action} takes exactly one id in ids, got {len(a['ids'])}")
    one = a["ids"][0] if a["ids"] else ""
    limit = a["limit"]
    table: dict[str, Callable[[], LifecycleReport]] = {
        "touch": lambda: lifecycle.touch(a["ids"], boost=a["boost"]),
        "forget": lambda: lifecycle.forget(one, superseded_by=a["superseded_by"], reason=a["reason"]),
        "restore": lambda: lifecycle.restore(one),
        "correct": lambda: lifecycle.correct(one, _required(a["content"]), reason=a["reason"]),
        "review": lambda: lifecycle.review_queue(a["project"], limit or 20),
        "mark_reviewed": lambda: lifecycle.mark_reviewed(one, reschedule=a["reschedule"],
                                                         review_after=a["review_after"]),
        "promote": lambda: lifecycle.promote(a["ids"], dry_run=a["dry_run"], force=a["force"],
                                             export=a["export"], folder=a["folder"], project=a["project"],
                                             limit=limit or 100),
        "gc": lambda: lifecycle.gc(dry_run=a["dry_run"], mode=a["mode"], limit=limit or 1000,
                                   project=a["project"]),
        "prune": lambda: lifecycle.prune(a["older_than"], dry_run=a["dry_run"], mode=a["mode"],
                                         protect=a["protect"], project=a["project"], limit=limit or 10_000),
        "metrics": lifecycle.metrics_report,
        "reset_metrics": lambda: lifecycle.metrics_report(reset=True),
    }
    if action not in table:
        raise InvalidInput(f"action {action!r} is not one of: {', '.join(table)}")
    return table[action]()


def memory_session(
    ctx: Context[AppContext, Any],
    *,
    action: Annotated[Literal["start", "end", "save_prompt", "timeline"], Field(description=(
        "start: resume the live session of this project and client (or open one) and get recent memories, "
        "due reviews, open conflicts and active skills. end: close it. save_prompt: keep the user's prompt "
        "(`content`) in the session. timeline: recent sessions with their observations and prompts."))],
    project: Project = None,
    client: Annotated[str | None, Field(description="Client name; defaults to the MCP client's name")] = None,
    session_id: Annotated[str | None, Field(description="end / save_prompt / timeline: one session")] = None,
    timeout_minutes: Annotated[int | None, Field(ge=1, le=10_080, description="start: idle timeout")] = None,
    new: Annotated[bool, Field(description="start: always open a new session")] = False,
    content: Annotated[str | None, Field(description="save_prompt: the prompt text")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="timeline: sessions to show")] = 5,
) -> SessionOut:
    """Sessions: start (with what an agent needs to begin), end, save_prompt and timeline. Memories
    stored without a session_id join the project's live session automatically."""
    sessions = service_of(ctx).sessions
    who = client or _client_name(ctx)
    timeout_s = None if timeout_minutes is None else timeout_minutes * 60
    with tool_errors():
        if action == "start":
            report = sessions.start(project, who, timeout_s=timeout_s, new=new)
        elif action == "end":
            report = sessions.end(session_id, project, client)
        elif action == "save_prompt":
            report = sessions.save_prompt(_required(content), session_id, project, who)
        else:
            report = sessions.timeline(limit, session_id, project)
    return SessionOut.model_validate(report)


def _required(content: str | None) -> str:
    if content is None:
        raise InvalidInput("content is required for this action")
    return content


def _client_name(ctx: Context[AppContext, Any]) -> str | None:
    """The connecting client's declared name (``clientInfo.name``), if it sent one."""
    try:
        params = ctx.session.client_params
    except (AttributeError, LookupError, ValueError):
        return None
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return name if isinstance(name, str) and name.strip() else None


def register(server: MCPServer[Any]) -> None:
    """Add the lifecycle and session tools to ``server``."""
    server.add_tool(memory_lifecycle, annotations=LIFECYCLE)
    server.add_tool(memory_session, annotations=SESSION)

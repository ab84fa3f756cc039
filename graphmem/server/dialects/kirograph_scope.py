"""KiroGraph's per-project reads and prune, over graphmem's store-wide use cases.

KiroGraph keeps one database per project, so its status counts, its conflict list and its prune see one
project. graphmem holds every project in one store; these helpers narrow each answer to the project the
``projectPath`` names (the server's working directory by default), and page through a ranking with a
filter graphmem's search has no column for (a session) so the filter applies before the cut.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from graphmem.core.timespan import parse_duration_hours
from graphmem.server.common import tool_errors
from graphmem.server.dialects.unit import one_unit
from graphmem.server.recall import noted
from graphmem.service import MemoryService
from graphmem.service.memories.reports import LifecycleItem, LifecycleReport
from graphmem.service.recall.results import NotedSearchResult
from graphmem.service.relations.results import PendingPage
from graphmem.store.convert import from_ms

__all__ = ["pending_in", "project_counts", "prune", "search_in_session"]

_MS_PER_HOUR = 3_600_000
_LIVE = ("active", "promoted", "archived", "forgotten")


def search_in_session(service: MemoryService, query: str, project: str | None, kind: str | None, limit: int,
                      as_of: Any, session_id: str) -> NotedSearchResult:
    """The best ``limit`` hits of one session, with their notes: the whole ranking is paged through, a page
    at a time, so a session's memories are found however many other memories rank above them."""
    page = service.settings.limits.max_results
    kept: list[Any] = []
    notes: dict[str, tuple[str, ...]] = {}
    offset = 0
    with tool_errors():
        while True:
            result = noted(service.search(query, project=project, kind=kind, limit=page, offset=offset,
                                          as_of=as_of, min_relevance=0.0, notes=True), NotedSearchResult)
            found = service.repository.memories_by_id([hit.id for hit in result.hits])
            kept += [hit for hit in result.hits if hit.id in found and found[hit.id].session_id == session_id]
            notes.update(result.notes)
            offset += page
            # the session filter reads the whole ranking; total_candidates counts only up to the page
            if len(kept) >= limit or len(result.hits) < page:
                break
    hits = tuple(kept[:limit])
    return dataclasses.replace(result, hits=hits, offset=0, limit=limit,
                               notes={hit.id: notes[hit.id] for hit in hits if hit.id in notes})


def project_counts(service: MemoryService, project: str | None) -> dict[str, Any]:
    """Observation, relation and session counts of one project (of the store when ``project`` is None)."""
    if project is None:
        counts = service.repository.counts()
        return {key: counts[key] for key in ("sessions", "memories", "by_kind", "by_status", "relations")}
    with tool_errors():
        rows = service.lifecycle.life_rows(_LIVE, project)
        sessions = service.sessions.timeline(100, project=project, per_session=1).timeline
    ids = [row.id for row in rows]
    relations = {r.id for r in service.repository.relations_touching(ids)} if ids else set()
    return {"sessions": len(sessions), "memories": len(rows), "by_kind": dict(Counter(r.kind for r in rows)),
            "by_status": dict(Counter(r.status for r in rows)), "relations": len(relations)}


def pending_in(service: MemoryService, project: str | None, limit: int) -> PendingPage:
    """Pending relations with an end in ``project``, oldest first (all of them when ``project`` is None)."""
    with tool_errors():
        if project is None:
            return service.relations.pending(limit, 0)
        items, offset = [], 0
        while True:
            page = service.relations.pending(500, offset)
            items += [i for i in page.items if project in (i.source.project, i.target.project)]
            offset += len(page.items)
            if not page.has_more or not page.items:
                break
    return PendingPage(items=tuple(items[:limit]), total=len(items), offset=0, limit=limit,
                       has_more=len(items) > limit)


def prune(service: MemoryService, older_than: str, project: str | None, dry_run: bool, protect: list[str],
          since: str) -> LifecycleReport:
    """KiroGraph's "remove observations older than X": age from creation (``since="created"``) or from
    the last use, every kind unless ``protect`` names some; removal is graphmem's forget (restorable)."""
    try:
        cutoff = service.clock.now_ms() - int(parse_duration_hours(older_than) * _MS_PER_HOUR)
    except ValueError as error:
        raise ToolError(str(error)) from None
    with tool_errors():
        rows = service.lifecycle.life_rows(("active", "promoted"), project, exclude_kinds=tuple(protect),
                                           used_before_ms=cutoff if since == "used" else None)
    chosen = sorted((r for r in rows if since == "used" or r.created_at < cutoff), key=lambda r: (r.created_at, r.id))
    if not dry_run:
        with one_unit(service), tool_errors():
            for row in chosen:
                service.edits.forget(row.id, reason=f"pruned: {since} more than {older_than} ago")
    items = tuple(LifecycleItem(id=r.id, kind=r.kind, project=r.project, status=r.status if dry_run else "forgotten",
                                created_at=from_ms(r.created_at).isoformat(),
                                last_used_at=from_ms(r.last_used_at).isoformat()) for r in chosen)
    verb = "would remove" if dry_run else "removed (forgotten, restorable)"
    kept = f"; kinds kept: {', '.join(protect)}" if protect else ""
    return LifecycleReport("prune", items, dry_run=dry_run, count=len(chosen), total=len(chosen),
                           message=f"{verb} {len(chosen)} observations {since} more than {older_than} ago{kept}")


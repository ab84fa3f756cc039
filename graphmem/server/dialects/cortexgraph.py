"""The cortexgraph dialect: the 13 tools cortexgraph 1.2.1 lists, with its parameter names, defaults and
result shapes (``{"success": true, ...}`` dictionaries, 1-indexed pagination, epoch-second times).

The engine is graphmem's, so cortexgraph's verified defects are not repeated: the configured decay curve
is the one scored (power law by default), search ranks every memory matching the query (not the 3·top_k
most recently used), cluster ids are stable across runs so ``consolidate_memories(cluster_id)`` finds
the cluster the user saw, consolidation archives the originals behind ``consolidated_from`` edges
(never deleted, never dangling), and a save of the same content returns the existing id. Short-term
memory is graphmem's active memories, long-term memory its promoted ones (they stop decaying); the
Obsidian vault export stays the CLI's (``graphmem promote --export``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from graphmem.core.values import Memory
from graphmem.server.common import DESTRUCTIVE, READ_ONLY, REVERSIBLE, WRITE, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.dialects.unit import one_unit
from graphmem.service import MemoryService
from graphmem.service.learning.results import ConsolidationPreview
from graphmem.service.lifecycle.decay_scores import memory_score
from graphmem.store.convert import to_ms

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]
CortexRelation = Literal["related", "causes", "supports", "contradicts", "has_decision", "consolidated_from"]
Status = Literal["active", "promoted", "archived", "all"]
Page = Annotated[int, Field(ge=1, description="Page number to retrieve (1-indexed)")]
PageSize = Annotated[int, Field(ge=1, le=100, description="Number of memories per page (max 100)")]
Tags = Annotated[list[str] | None, Field(max_length=50, description="Filter by tags (max 50 tags)")]
_MS_PER_DAY = 86_400_000
_TAG_SCAN = 500  # memories read per round of a tag-only search


def _pagination(total: int, page: int, page_size: int) -> dict[str, Any]:
    pages = max(1, math.ceil(total / page_size))
    return {"page": page, "page_size": page_size, "total_count": total, "total_pages": pages,
            "has_more": page < pages}


def _page(items: list[Any], page: int, page_size: int) -> list[Any]:
    return items[(page - 1) * page_size: page * page_size]


def _memory(service: MemoryService, memory: Memory, include_scores: bool = True,
            preview_length: int | None = None) -> dict[str, Any]:
    content = memory.content
    if preview_length and len(content) > preview_length:
        content = content[:preview_length] + "..."
    out: dict[str, Any] = {
        "id": memory.id, "content": content, "tags": list(memory.tags), "entities": list(memory.entities),
        "source": memory.source, "context": memory.context, "meta": dict(memory.meta),
        "created_at": to_ms(memory.created_at) // 1000, "last_used": to_ms(memory.last_used_at) // 1000,
        "use_count": memory.use_count, "strength": memory.strength, "status": memory.status}
    if include_scores:
        now = service.clock.now_ms()
        out["score"] = round(memory_score(memory, service.lifecycle.params, now), 4)
        out["age_days"] = round((now - to_ms(memory.created_at)) / _MS_PER_DAY, 1)
    return out


def _fetch(service: MemoryService, ids: list[str]) -> dict[str, Memory]:
    return service.repository.memories_by_id(ids)


def save_memory(
    ctx: Ctx,
    content: Annotated[str, Field(max_length=50_000, description="The content to remember (max 50,000 chars)")],
    tags: Annotated[list[str] | None, Field(max_length=50, description="Tags for categorization")] = None,
    entities: Annotated[list[str] | None, Field(max_length=100, description="Named entities in this memory")
                        ] = None,
    source: Annotated[str | None, Field(max_length=500, description="Source of the memory")] = None,
    context: Annotated[str | None, Field(max_length=1_000, description="Context when memory was created")] = None,
    meta: Annotated[dict[str, Any] | None, Field(description="Additional custom metadata")] = None,
    strength: Annotated[float | None, Field(ge=1.0, le=2.0, description=(
        "Base strength 1.0-2.0 (higher decays slower); default 1.0"))] = None,
) -> dict[str, Any]:
    """Save a new memory to short-term storage. The memory will have temporal decay applied and will be
    forgotten if not used regularly; frequently used memories can be promoted to long-term storage. The
    same content saved again returns the existing id."""
    service = service_of(ctx)
    with one_unit(service), tool_errors():
        stored = service.store(content, tags=tags, entities=entities, source=source, context=context, meta=meta)
        if strength is not None and strength != 1.0 and not stored.duplicate:  # a weight, not uses
            service.edits.set_strength(stored.id, strength)
    message = (f"Memory already exists with ID: {stored.id}" if stored.duplicate
               else f"Memory saved with ID: {stored.id}")
    return {"success": True, "memory_id": stored.id, "duplicate": stored.duplicate, "message": message,
            "has_embedding": False}


@dataclass(frozen=True, slots=True)
class _TagHit:
    """A memory found by its tags alone: no query, so its relevance is its decay score (cortexgraph's)."""

    id: str
    score: float
    decay_score: float
    review_candidate: bool = False


def _tagged(service: MemoryService, tags: list[str], status: str) -> list[_TagHit]:
    """Memories holding every tag, strongest first: cortexgraph filters by tags without a query."""
    statuses = ("active", "promoted", "archived") if status == "all" else (status,)
    wanted = {t.strip().casefold() for t in tags if t.strip()}
    now = service.clock.now_ms()
    with tool_errors():
        ids = [row.id for row in service.lifecycle.life_rows(statuses)]
    found = []
    for start in range(0, len(ids), _TAG_SCAN):
        for memory in _fetch(service, ids[start:start + _TAG_SCAN]).values():
            if wanted <= {t.casefold() for t in memory.tags} and memory.superseded_by is None:
                score = round(memory_score(memory, service.lifecycle.params, now), 6)
                found.append(_TagHit(memory.id, score, score))
    return sorted(found, key=lambda h: (-h.score, h.id))


def _search(service: MemoryService, query: str | None, tags: list[str] | None, top_k: int,
            window_days: int | None, min_score: float | None, status: str) -> list[tuple[Any, Memory]]:
    hits: Sequence[Any]
    filtered = window_days is not None or min_score is not None or status != "active"
    if query:  # the filters graphmem's search has no column for apply to a deeper ranking, then the cut
        depth = max(top_k, service.settings.limits.max_results) if filtered else top_k
        with tool_errors():
            hits = service.search(query, tags=tags, limit=depth).hits
    else:
        hits = _tagged(service, tags or [], status)
    found = _fetch(service, [h.id for h in hits])
    now = service.clock.now_ms()
    kept = []
    for hit in hits:
        memory = found.get(hit.id)
        if memory is None or status not in ("all", memory.status):
            continue
        if window_days is not None and now - to_ms(memory.last_used_at) > window_days * _MS_PER_DAY:
            continue
        if min_score is not None and (hit.decay_score or 0.0) < min_score:
            continue
        kept.append((hit, memory))
    return kept[:top_k]


def search_memory(
    ctx: Ctx,
    query: Annotated[str | None, Field(max_length=50_000, description="Text query to search for")] = None,
    tags: Tags = None,
    top_k: Annotated[int, Field(ge=1, le=100, description="Maximum number of results before pagination")] = 10,
    window_days: Annotated[int | None, Field(ge=1, le=3650, description=(
        "Only search memories used in the last N days"))] = None,
    min_score: Annotated[float | None, Field(ge=0.0, le=1.0, description="Minimum decay score threshold")] = None,
    use_embeddings: Annotated[bool, Field(description=(
        "Accepted for compatibility; graphmem always ranks keyword + associative"))] = False,
    include_review_candidates: Annotated[bool, Field(description=(
        "Blend in memories due for review (marked review_candidate)"))] = True,
    status: Annotated[Status, Field(description="Only memories with this status")] = "active",
    preview_length: Annotated[int | None, Field(ge=1, description="Cut content to this many characters")] = None,
    page: Page = 1,
    page_size: PageSize = 10,
) -> dict[str, Any]:
    """Search for memories with optional filters and scoring. Memories due for review are blended into
    relevant results (natural spaced repetition). Results are paginated: increment page to see more."""
    service = service_of(ctx)
    if not query and not tags:
        raise ToolError("search_memory needs a query or tags")
    kept = _search(service, query, tags, top_k, window_days, min_score, status)
    if not include_review_candidates:
        kept = [(h, m) for h, m in kept if not h.review_candidate]
    results = [{**_memory(service, m, preview_length=preview_length), "score": round(h.decay_score or 0.0, 4),
                "relevance": h.score, "review_candidate": h.review_candidate} for h, m in kept]
    shown = _page(results, page, page_size)
    return {"success": True, "count": len(shown), "results": shown,
            "pagination": _pagination(len(results), page, page_size)}


def search_unified(
    ctx: Ctx,
    query: Annotated[str | None, Field(max_length=50_000, description="Text query to search for")] = None,
    tags: Tags = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Maximum total results before pagination")] = 10,
    stm_weight: Annotated[float, Field(ge=0.0, le=2.0, description="Weight multiplier for STM results")] = 1.0,
    ltm_weight: Annotated[float, Field(ge=0.0, le=2.0, description="Weight multiplier for LTM results")] = 0.7,
    window_days: Annotated[int | None, Field(ge=1, le=3650, description=(
        "Only include STM memories used in the last N days"))] = None,
    min_score: Annotated[float | None, Field(ge=0.0, le=1.0, description=(
        "Minimum decay score for STM memories"))] = None,
    status: Annotated[Status, Field(description="Only memories with this status")] = "all",
    preview_length: Annotated[int | None, Field(ge=1, description="Cut content to this many characters")] = None,
    page: Page = 1,
    page_size: PageSize = 10,
) -> dict[str, Any]:
    """Search across short-term (active) and long-term (promoted) memory with unified ranking: each hit's
    relevance is weighted by stm_weight or ltm_weight. Results are paginated."""
    service = service_of(ctx)
    if not query and not tags:
        raise ToolError("search_unified needs a query or tags")
    kept = _search(service, query, tags, min(100, 2 * limit), None, None, status)
    now = service.clock.now_ms()
    results = []
    for hit, memory in kept:
        ltm = memory.status == "promoted"
        if not ltm and window_days is not None and now - to_ms(memory.last_used_at) > window_days * _MS_PER_DAY:
            continue
        if not ltm and min_score is not None and (hit.decay_score or 0.0) < min_score:
            continue
        content = memory.content if not preview_length or len(memory.content) <= preview_length \
            else memory.content[:preview_length] + "..."
        results.append({"memory_id": memory.id, "content": content, "tags": list(memory.tags),
                        "source": "ltm" if ltm else "stm",
                        "score": round(hit.score * (ltm_weight if ltm else stm_weight), 6),
                        "created_at": to_ms(memory.created_at) // 1000})
    results = sorted(results, key=lambda r: -r["score"])[:limit]
    shown = _page(results, page, page_size)
    return {"success": True, "count": len(shown), "results": shown,
            "pagination": _pagination(len(results), page, page_size)}


def touch_memory(ctx: Ctx, memory_id: Annotated[str, Field(description="ID of the memory to reinforce")],
                 boost_strength: Annotated[bool, Field(description="Whether to boost the base strength")] = False,
                 ) -> dict[str, Any]:
    """Reinforce a memory by updating its last accessed time and use count. This resets the temporal decay
    and increases its resistance to being forgotten; optionally boosts its base strength."""
    service = service_of(ctx)
    with tool_errors():
        report = service.edits.touch([memory_id], boost=boost_strength)
    item = report.items[0]
    old = float(item.reasons[0].split(":")[1]) if item.reasons else None
    return {"success": True, "memory_id": item.id, "old_score": old, "new_score": item.score,
            "use_count": item.use_count, "strength": item.strength,
            "message": f"Memory reinforced. Score: {old} -> {item.score}"}


def gc(ctx: Ctx, dry_run: Annotated[bool, Field(description="Preview what would be removed")] = False,
       archive_instead: Annotated[bool, Field(description="Archive memories instead of deleting")] = False,
       limit: Annotated[int | None, Field(ge=1, le=10_000, description="Maximum memories to process")] = None,
       ) -> dict[str, Any]:
    """Perform garbage collection on low-scoring memories: remove (or archive) memories whose decay score
    fell below the forget threshold."""
    with tool_errors():
        report = service_of(ctx).lifecycle.gc(dry_run=dry_run, mode="archive" if archive_instead else "delete",
                                              limit=limit or 10_000)
    ids = [item.id for item in report.items]
    removed = 0 if archive_instead else report.count
    archived = report.count if archive_instead else 0
    freed = round(sum(item.score or 0.0 for item in report.items), 4)
    verb = "Would remove" if dry_run else ("Archived" if archive_instead else "Removed")
    return {"success": True, "dry_run": dry_run, "removed_count": removed, "archived_count": archived,
            "freed_score_sum": freed, "memory_ids": ids, "total_affected": report.count,
            "message": f"{verb} {report.count} low-scoring memories (threshold: "
                       f"{service_of(ctx).settings.decay.forget_threshold})"}


def promote_memory(
    ctx: Ctx,
    memory_id: Annotated[str | None, Field(description="Specific memory ID to promote")] = None,
    auto_detect: Annotated[bool, Field(description="Automatically detect promotion candidates")] = False,
    dry_run: Annotated[bool, Field(description="Preview what would be promoted without promoting")] = False,
    target: Annotated[Literal["obsidian"], Field(description=(
        "Long-term storage: a note in the Obsidian vault (GRAPHMEM_LIFECYCLE__VAULT_PATH); promoted memories "
        "stop decaying"))] = "obsidian",
    force: Annotated[bool, Field(description="Force promotion even if criteria not met")] = False,
) -> dict[str, Any]:
    """Promote high-value memories (high score, or frequent use within 14 days) to long-term storage,
    where they stop decaying; each is written as a note to the configured Obsidian vault."""
    if not memory_id and not auto_detect:
        raise ToolError("promote_memory needs memory_id or auto_detect=true")
    service = service_of(ctx)
    vault = service.settings.lifecycle.vault_path is not None  # cortexgraph's LTM is the Obsidian vault
    with tool_errors():
        report = service.lifecycle.promote([memory_id] if memory_id else [], dry_run=dry_run, force=force,
                                           export=vault)
    candidates = [{"id": i.id, "content_preview": (i.content or "")[:100], "score": i.score,
                   "use_count": i.use_count, "eligible": i.eligible, "reasons": list(i.reasons),
                   "vault_path": i.vault_path} for i in report.items]
    promoted = [] if dry_run else [c["id"] for c in candidates if c["eligible"] is not False or force]
    notes = [c["vault_path"] for c in candidates if c["vault_path"] and c["id"] in promoted]
    message = report.message if vault else (
        f"{report.message}; no vault note written: set GRAPHMEM_LIFECYCLE__VAULT_PATH to the Obsidian vault")
    return {"success": True, "dry_run": dry_run, "candidates_found": len(candidates),
            "promoted_count": len(promoted) if not dry_run else 0, "promoted_ids": promoted,
            "candidates": candidates, "target": target, "vault_notes": notes, "message": message}


def cluster_memories(
    ctx: Ctx,
    strategy: Annotated[Literal["similarity"], Field(description="Clustering strategy")] = "similarity",
    threshold: Annotated[float | None, Field(ge=0.0, le=1.0, description=(
        "Similarity threshold for linking (default: measured)"))] = None,
    max_cluster_size: Annotated[int | None, Field(ge=1, le=100, description="Maximum memories per cluster")
                                ] = None,
    find_duplicates: Annotated[bool, Field(description="Find likely duplicate pairs instead of clustering")
                               ] = False,
    duplicate_threshold: Annotated[float | None, Field(ge=0.0, le=1.0, description=(
        "Similarity threshold for duplicates (default: measured)"))] = None,
) -> dict[str, Any]:
    """Cluster similar memories for potential consolidation, or find duplicates. Cluster ids are stable:
    pass one to consolidate_memories."""
    learning = service_of(ctx).learning
    with tool_errors():
        if find_duplicates:
            found = learning.duplicates.find(None, max(0.05, duplicate_threshold) if duplicate_threshold
                                             is not None else None)
            pairs = [{"id1": p.left_id, "id2": p.right_id, "content1": p.left_preview,
                      "content2": p.right_preview, "similarity": p.score} for p in found.pairs]
            return {"success": True, "duplicates_found": len(pairs), "duplicates": pairs,
                    "threshold": found.threshold,
                    "message": f"Found {len(pairs)} potential duplicate pairs"}
        report = learning.clusters.clusters(None, max(0.05, threshold) if threshold is not None else None,
                                            max(2, max_cluster_size or 12))
    clusters = [{"id": c.id, "size": len(c.memory_ids), "cohesion": c.cohesion,
                 "suggested_action": c.action, "memory_ids": list(c.memory_ids),
                 "shared_concepts": list(c.shared_concepts), "content_previews": list(c.previews)}
                for c in report.clusters]
    return {"success": True, "strategy": strategy, "threshold": report.link_threshold,
            "max_cluster_size": report.max_cluster_size, "clusters_found": len(clusters), "clusters": clusters}


def consolidate_memories(
    ctx: Ctx,
    cluster_id: Annotated[str | None, Field(description="Cluster ID from cluster_memories (required for apply "
                                            "unless auto_detect)")] = None,
    mode: Annotated[Literal["preview", "apply"], Field(description="preview or apply")] = "preview",
    auto_detect: Annotated[bool, Field(description="Automatically find high-cohesion clusters")] = False,
    cohesion_threshold: Annotated[float, Field(ge=0.0, le=1.0, description=(
        "Minimum cohesion for auto-detection"))] = 0.75,
) -> dict[str, Any]:
    """Consolidate similar memories by merging: unique content kept, tags and entities united, strength
    from cohesion, earliest valid_from, summed uses. Apply archives the originals behind consolidated_from
    relations (never deleted)."""
    if not cluster_id and not auto_detect:
        raise ToolError("consolidate_memories needs cluster_id or auto_detect=true")
    service = service_of(ctx)
    with one_unit(service), tool_errors():
        result = service.learning.consolidation.consolidate(
            cluster_id, mode, auto_detect=auto_detect, cohesion_threshold=cohesion_threshold)
        strengths = {p.cluster_id: _merged_strength(service, p) for p in result.previews}
        if result.merged_id is not None and result.previews:
            service.edits.set_strength(result.merged_id, strengths[result.previews[0].cluster_id])
    previews = [{"cluster_id": p.cluster_id, "cohesion": p.cohesion, "memory_ids": list(p.memory_ids),
                 "merged_content": p.content, "merged_tags": list(p.tags), "merged_entities": list(p.entities),
                 "strength": strengths[p.cluster_id], "use_count": p.use_count, "valid_from": p.valid_from}
                for p in result.previews]
    return {"success": True, "mode": mode, "action": result.action, "new_memory_id": result.merged_id,
            "archived_ids": list(result.archived), "relation_ids": list(result.relation_ids),
            "previews": previews, "message": result.message}


def _merged_strength(service: MemoryService, preview: ConsolidationPreview) -> float:
    """cortexgraph's merged strength: the strongest original plus a cohesion bonus of at most 0.5,
    ``min(2, max + min(0.5, 0.1 · cohesion · n))`` (capped at graphmem's max_strength)."""
    bonus = min(0.5, 0.1 * preview.cohesion * len(preview.memory_ids))
    return round(min(2.0, service.settings.decay.max_strength, preview.strength + bonus), 6)


def create_relation(
    ctx: Ctx,
    from_memory_id: Annotated[str, Field(description="Source memory ID")],
    to_memory_id: Annotated[str, Field(description="Target memory ID")],
    relation_type: Annotated[CortexRelation, Field(description="Type of relation")],
    strength: Annotated[float, Field(ge=0.0, le=1.0, description="Strength of the relation (0.0-1.0)")] = 1.0,
    metadata: Annotated[dict[str, Any] | None, Field(description="Additional metadata about the relation")
                        ] = None,
) -> dict[str, Any]:
    """Create an explicit relation between two memories. A relation that already exists is refused."""
    service = service_of(ctx)
    with tool_errors():
        ids = service.resolve([from_memory_id, to_memory_id])
        existing = [r for r in service.repository.relations_touching([ids[from_memory_id]])
                    if r.type == relation_type and r.status != "ignored"
                    and {r.source_id, r.target_id} == {ids[from_memory_id], ids[to_memory_id]}
                    and (r.source_id == ids[from_memory_id] or relation_type in {"related", "contradicts"})]
        if existing:
            raise ToolError(f"Relation already exists: {existing[0].id} ({relation_type} from {from_memory_id} "
                            f"to {to_memory_id})")
        outcome = service.relations.relate(from_memory_id, to_memory_id, relation_type, confidence=strength,
                                           meta=metadata)
    relation = outcome.relation
    return {"success": True, "relation_id": relation.id, "from": relation.source_id, "to": relation.target_id,
            "type": relation.type, "strength": relation.confidence,
            "message": f"Relation created: {relation.source_id} --[{relation.type}]--> {relation.target_id}"}


def _relation(relation: Any) -> dict[str, Any]:
    return {"id": relation.id, "from": relation.source_id, "to": relation.target_id, "type": relation.type,
            "strength": relation.confidence, "status": relation.status,
            "created_at": to_ms(relation.created_at) // 1000, "metadata": dict(relation.meta)}


def open_memories(
    ctx: Ctx,
    memory_ids: Annotated[str | list[str], Field(description="Single memory ID or list of IDs (max 100)")],
    include_relations: Annotated[bool, Field(description="Include relations from/to these memories")] = True,
    include_scores: Annotated[bool, Field(description="Include decay scores and age")] = True,
    page: Page = 1,
    page_size: PageSize = 10,
) -> dict[str, Any]:
    """Retrieve specific memories by their IDs, with their relations, paginated (like the reference
    server's open_nodes)."""
    wanted = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
    if not wanted or len(wanted) > 100:
        raise ToolError("memory_ids must name 1 to 100 memories")
    service = service_of(ctx)
    with tool_errors():
        resolved = service.resolve(wanted, strict=False)
    found = _fetch(service, list(resolved.values()))
    present = [found[resolved[i]] for i in wanted if i in resolved and resolved[i] in found]
    not_found = [i for i in wanted if i not in resolved or resolved[i] not in found]
    shown = _page(present, page, page_size)
    memories = []
    for memory in shown:
        out = _memory(service, memory, include_scores)
        if include_relations:
            out["relations"] = [_relation(r) for r in service.repository.relations_touching([memory.id])
                                if r.status != "ignored"]
        memories.append(out)
    return {"success": True, "count": len(memories), "memories": memories, "not_found": not_found,
            "pagination": _pagination(len(present), page, page_size)}


def read_graph(
    ctx: Ctx,
    status: Annotated[Status, Field(description="Filter memories by status")] = "active",
    include_scores: Annotated[bool, Field(description="Include decay scores and age")] = True,
    limit: Annotated[int | None, Field(ge=1, le=10_000, description="Maximum number of memories")] = None,
    page: Page = 1,
    page_size: PageSize = 10,
) -> dict[str, Any]:
    """Read the knowledge graph of memories and relations, paginated: memories of the page, every relation
    among the memories of the status (on every page), and graph statistics."""
    service = service_of(ctx)
    statuses = ("active", "promoted", "archived") if status == "all" else (status,)
    with tool_errors():
        rows = service.lifecycle.life_rows(statuses)
    ids = [row.id for row in rows][: limit or None]
    shown_ids = _page(ids, page, page_size)
    found = _fetch(service, shown_ids)
    memories = [_memory(service, found[i], include_scores) for i in shown_ids if i in found]
    # cortexgraph returns every relation of the graph on each page, not only the page's: an agent follows
    # an edge to a memory on another page. "Every" is the relations among the memories read_graph lists.
    listed = set(ids)
    relations = [_relation(r) for r in service.repository.relations_touching(ids) if r.status != "ignored"
                 and r.source_id in listed and r.target_id in listed]
    counts = service.repository.counts()
    stats = {"total_memories": len(ids), "total_relations": counts["relations"], "by_status": counts["by_status"]}
    return {"success": True, "memories": memories, "relations": relations, "stats": stats,
            "pagination": _pagination(len(ids), page, page_size)}


def get_performance_metrics(ctx: Ctx) -> dict[str, Any]:
    """Get current performance metrics and statistics: per-operation calls, errors and latency."""
    with tool_errors():
        report = service_of(ctx).lifecycle.metrics_report()
    metrics = {m.operation: {"calls": m.calls, "errors": m.errors, "mean_ms": m.mean_ms, "p50_ms": m.p50_ms,
                             "p95_ms": m.p95_ms, "max_ms": m.max_ms, "total_ms": m.total_ms}
               for m in report.metrics}
    return {"success": True, "metrics": metrics}


def reset_performance_metrics(ctx: Ctx) -> dict[str, Any]:
    """Reset all performance metrics and return confirmation."""
    with tool_errors():
        service_of(ctx).lifecycle.metrics_report(reset=True)
    return {"success": True, "message": "Performance metrics reset"}


TOOLS: dict[str, tuple[Any, ToolAnnotations]] = {
    "save_memory": (save_memory, WRITE),
    "search_memory": (search_memory, READ_ONLY),
    "search_unified": (search_unified, READ_ONLY),
    "touch_memory": (touch_memory, REVERSIBLE),
    "gc": (gc, DESTRUCTIVE),
    "promote_memory": (promote_memory, WRITE),
    "cluster_memories": (cluster_memories, READ_ONLY),
    "consolidate_memories": (consolidate_memories, DESTRUCTIVE.model_copy(update={"idempotent_hint": False})),
    "create_relation": (create_relation, WRITE),
    "open_memories": (open_memories, READ_ONLY),
    "read_graph": (read_graph, READ_ONLY),
    "get_performance_metrics": (get_performance_metrics, READ_ONLY),
    "reset_performance_metrics": (reset_performance_metrics, DESTRUCTIVE),
}

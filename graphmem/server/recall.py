"""Recall tools: search (the default), associate (activation and composition), graph and status.

Hits are compact unless ``detail="full"``, and carry the notes the recall service attached when a hit
is superseded, contradicted or waiting in a pending relation (``graphmem.service.recall.notes``):
the adapter only shapes the answer, it reads nothing itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.server.bounds import CONCEPTS_SHOWN, CONFLICTS_SHOWN, ECHO_SHOWN, NOTES_SHOWN, REASON_CHARS, Cuts
from graphmem.server.common import (
    READ_ONLY,
    Detail,
    Instant,
    Kind,
    ProjectFilter,
    reply,
    service_of,
    tool_errors,
)
from graphmem.server.context import AppContext
from graphmem.server.learn_params import OutcomeFilter, TaskTypeFilter, ToolsFilter
from graphmem.server.models.recall import (
    AssociateOut,
    CompositionOut,
    GraphOut,
    MemoryHitOut,
    SearchHitOut,
    SearchOut,
    SeedNodeOut,
    SkillHitOut,
    StatusOut,
)

if TYPE_CHECKING:  # the recall results load with the service (numpy, the projection), not with the tool list
    from graphmem.service.recall.results import AssociateResult, NotedAssociateResult, NotedSearchResult, SearchResult

__all__ = ["DEFAULT_MIN_RELEVANCE", "TOOLS", "associate_out", "noted", "search_out"]

_Noted = TypeVar("_Noted", "NotedSearchResult", "NotedAssociateResult")
# The schema's default of min_relevance: the recall service's DEFAULT_MIN_RELEVANCE (service/recall/relevance.py),
# which imports numpy and the projection; a test checks that the two agree.
DEFAULT_MIN_RELEVANCE = 0.005

Ctx = Context[AppContext, Any]
_COMPACT_CONCEPTS = 3  # the strongest few say why it matched; detail="full" lists them all
DetailParam = Annotated[Detail, Field(description="full adds project, key, tags, dates, ranks")]
AsOf = Annotated[Instant, Field(description="Recall as of that instant (ISO 8601 or epoch ms)")]
IncludeSuperseded = Annotated[bool, Field(description="Also show replaced memories (noted)")]
Include = Annotated[Literal["memories", "skills", "all"], Field(description=(
    "memories (default), skills the query matches, or all"))]
SkillDetail = Annotated[Literal["name_only", "summary", "full"], Field(description=(
    "With skills: name_only, summary (trigger, step count, outcomes) or full (steps, sources)"))]
MinRelevance = Annotated[float, Field(ge=0.0, le=1.0, description="Hide hits below this relevance")]


def search_out(result: SearchResult, detail: str) -> SearchOut:
    """The search result as the tool returns it, with the notes the search read (``notes=True``, the
    one call the standard tool and the dialects make)."""
    from graphmem.service.recall.results import NotedSearchResult

    result = noted(result, NotedSearchResult)
    cuts = Cuts(len(result.hits))
    hits = []
    for hit in result.hits:
        content = cuts.content(hit.content)  # the cuts in this order: they name themselves in `truncated` so
        notes = cuts.per_hit(result.notes.get(hit.id, ()), NOTES_SHOWN, "notes")
        if detail == "compact":  # the compact fields only, read once (not the whole hit, then a copy)
            out = SearchHitOut(id=hit.id, score=hit.score, relevance=hit.relevance, kind=hit.kind, content=content,
                               concepts=list(hit.concepts[:_COMPACT_CONCEPTS]), notes=notes)
        else:
            out = SearchHitOut.model_validate(hit)
            out.content, out.notes = content, notes
            out.concepts = cuts.per_hit(out.concepts, CONCEPTS_SHOWN, "concepts")
        hits.append(out)
    return SearchOut(query=result.query, hits=hits, total_candidates=result.total_candidates,
                     offset=result.offset,
                     unmatched_concepts=cuts.echo(result.unmatched_concepts, ECHO_SHOWN, "unmatched_concepts"),
                     skills=[SkillHitOut.model_validate(skill) for skill in result.skills], truncated=cuts.notes())


def associate_out(result: AssociateResult, detail: str) -> AssociateOut:
    """The associate result with its notes (``notes=True``); in composition mode ``memories`` holds the
    sources (once, in plan order) and the composition names them by id."""
    from graphmem.service.recall.results import NotedAssociateResult

    result = noted(result, NotedAssociateResult)
    memories = list(result.memories)
    if result.composition is not None:
        memories = list(result.composition.sources)
    cuts = Cuts(len(memories))
    out = AssociateOut(mode=result.mode, query_concepts=cuts.echo(result.query_concepts, ECHO_SHOWN, "query_concepts"),
                       seed_nodes=[_seed(s, detail) for s in cuts.echo(result.seed_nodes, ECHO_SHOWN, "seed_nodes")],
                       unmatched_concepts=cuts.echo(result.unmatched_concepts, ECHO_SHOWN, "unmatched_concepts"),
                       activated_count=result.activated_count,
                       memories=[_hit(m, result.notes.get(m.id, ()), detail, cuts) for m in memories],
                       skills=[SkillHitOut.model_validate(skill) for skill in result.skills])
    if result.composition is not None:
        composition = result.composition
        cuts.also(composition.truncated)
        conflicts = cuts.echo(composition.conflicts, CONFLICTS_SHOWN, "composition.conflicts")
        out.composition = CompositionOut.model_validate(
            {**{f: getattr(composition, f) for f in CompositionOut.model_fields
                if f not in {"source_ids", "covered_by", "conflicts"}},
             "source_ids": [s.id for s in composition.sources],
             "conflicts": [dataclasses.replace(c, reason=cuts.text(c.reason, REASON_CHARS, "conflict reasons"))
                           for c in conflicts],
             "covered_by": {c.need: c.concept for c in composition.covered_by}})
    out.truncated = cuts.notes()
    return out


def noted(result: Any, shape: type[_Noted]) -> _Noted:
    """``result``, which the tool asked with its notes: the adapter reads nothing itself, so a call that
    forgot ``notes=True`` is a bug to fix where it was made, never a second read here."""
    if not isinstance(result, shape):
        raise TypeError(f"{shape.__name__} expected: ask for notes=True in the call that ranked the hits")
    return result


def _seed(seed: Any, detail: str) -> SeedNodeOut:
    out = SeedNodeOut.model_validate(seed)
    return out if detail == "full" else SeedNodeOut(id=out.id, name=out.name)


def _hit(hit: Any, notes: Sequence[str], detail: str, cuts: Cuts) -> MemoryHitOut:
    out = MemoryHitOut.model_validate(hit)
    out.content = cuts.content(out.content)
    out.notes = cuts.per_hit(notes, NOTES_SHOWN, "notes")
    if detail == "compact":
        out.concepts = out.concepts[:_COMPACT_CONCEPTS]
        out.created_at, out.topic_key, out.tags = None, None, []
    else:
        out.concepts = cuts.per_hit(out.concepts, CONCEPTS_SHOWN, "concepts")
    return out


def memory_search(
    ctx: Ctx,
    query: Annotated[str, Field(description="Keywords or a question")],
    project: ProjectFilter = None,
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    tags: Annotated[list[str] | None, Field(description="Only memories with all these tags")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Hits per page")] = 10,
    offset: Annotated[int, Field(ge=0, description="Hits to skip (paging)")] = 0,
    as_of: AsOf = None,
    include_superseded: IncludeSuperseded = False,
    detail: DetailParam = "compact",
    outcome: OutcomeFilter = None,
    task_type: TaskTypeFilter = None,
    tools_used: ToolsFilter = None,
    include: Include = "memories",
    skill_detail: SkillDetail = "summary",
    min_relevance: MinRelevance = DEFAULT_MIN_RELEVANCE,
) -> Annotated[CallToolResult, SearchOut]:
    """Default retrieval: keywords fused with concept-graph activation. Hits note superseded,
    contradicted or pending-conflict memories."""
    service = service_of(ctx)
    with tool_errors():
        result = service.search(query, project, kind, tags, limit, offset, as_of, include_superseded,
                                outcome=outcome, task_type=task_type, tools_used=tools_used, include=include,
                                skill_detail=skill_detail, notes=True, min_relevance=min_relevance)
    return reply(search_out(result, detail))


def memory_associate(
    ctx: Ctx,
    query: Annotated[str, Field(description="The task or question")],
    mode: Annotated[Literal["recall", "composition"], Field(description=(
        "recall = related memories; composition = fewest memories covering the task, with gaps, "
        "conflicts and a plan"))] = "recall",
    project: ProjectFilter = None,
    max_results: Annotated[int, Field(ge=1, le=100, description="Memories (composition: most sources)")] = 10,
    min_coverage: Annotated[float, Field(ge=0.0, le=1.0, description=(
        "Composition: coverage to reach"))] = 0.7,
    as_of: AsOf = None,
    include_superseded: IncludeSuperseded = False,
    detail: DetailParam = "compact",
    outcome: OutcomeFilter = None,
    task_type: TaskTypeFilter = None,
    tools_used: ToolsFilter = None,
    include: Include = "memories",
    skill_detail: SkillDetail = "summary",
    min_relevance: MinRelevance = DEFAULT_MIN_RELEVANCE,
) -> Annotated[CallToolResult, AssociateOut]:
    """Spreading activation from the query's concepts, and meaning where the words differ: finds memories
    keywords miss, and explains each hit."""
    service = service_of(ctx)
    with tool_errors():
        result = service.associate(query, mode, project, max_results, min_coverage, as_of=as_of,
                                   include_superseded=include_superseded, outcome=outcome,
                                   task_type=task_type, tools_used=tools_used, include=include,
                                   skill_detail=skill_detail, notes=True, min_relevance=min_relevance)
    return reply(associate_out(result, detail))


def memory_graph(
    ctx: Ctx,
    node: Annotated[str | None, Field(description=(
        "Centre: a memory id, topic key or concept:<name>; omit for pages of memories with their concepts"))
    ] = None,
    depth: Annotated[int, Field(ge=0, le=4, description="Hops around the centre")] = 1,
    project: ProjectFilter = None,
    offset: Annotated[int, Field(ge=0, description="Nodes to skip, for the next page")] = 0,
    limit: Annotated[int, Field(ge=1, le=500, description="Nodes per page")] = 50,
    as_of: Annotated[Instant, Field(description="The graph as it was then")] = None,
) -> Annotated[CallToolResult, GraphOut]:
    """A page of the memory graph: the neighbourhood of a node, or memories with their concepts. Edges
    are typed: mention, cooccurrence or a relation type."""
    with tool_errors():
        view = service_of(ctx).graph(node, depth, project, offset, limit, as_of)
    return reply(GraphOut.model_validate(view))


def memory_status(
    ctx: Ctx,
    graph: Annotated[bool, Field(description="Also the graph's shape: degrees, top concepts, components")
                     ] = False,
) -> Annotated[CallToolResult, StatusOut]:
    """Counts of memories by kind and status, concepts, edges, relations and sessions, and the store in use."""
    with tool_errors():
        status = StatusOut.model_validate(service_of(ctx).status(graph=graph))
    status.default_project = service_of(ctx).settings.project
    return reply(status)


TOOLS = {
    "memory_search": (memory_search, READ_ONLY),
    "memory_associate": (memory_associate, READ_ONLY),
    "memory_graph": (memory_graph, READ_ONLY),
    "memory_status": (memory_status, READ_ONLY),
}

"""The total-agent-memory dialect: ``memory_associate`` with its documented result shape, and its
companions ``kg_add_fact``, ``kg_invalidate_fact``, ``kg_at``, ``kg_timeline``, ``memory_graph``,
``memory_graph_stats`` and ``memory_concepts``.

``memory_save`` is the server's own save tool, with its public source's name, parameters and reply
(``{"saved": true, "id", "deduplicated"}``): without it an agent of that server could recall but never
write. Its ``type`` maps onto graphmem's kinds (fact → note, lesson and convention → pattern, the type
itself kept as a tag and in meta), ``importance`` critical and high become a base strength (1.5, 1.2:
they decay slower), ``branch`` is kept in meta; ``filter`` and ``coref`` are accepted and have no effect
(graphmem runs no output filters and no LLM).

The shapes are the seed's, the engine is graphmem's: two-hop activation reaches memories, seeds are
matched on word boundaries (never raw substrings), ``min_coverage`` is enforced and reported, the project
filter applies before the cut, and unmatched query concepts are reported, not dropped.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from graphmem.server.common import READ_ONLY, WRITE, Instant, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.dialects.unit import one_unit
from graphmem.server.models.facts import FactListOut, FactResultOut
from graphmem.server.models.recall import GraphOut
from graphmem.server.recall import associate_out

__all__ = ["TOOLS"]

Ctx = Context[AppContext, Any]


def memory_associate(
    ctx: Ctx,
    query: Annotated[str, Field(description="Natural language query")],
    mode: Annotated[Literal["recall", "composition"], Field(
        description="recall=find related, composition=build solution from parts")] = "recall",
    project: Annotated[str | None, Field(description="Filter by project")] = None,
    max_results: Annotated[int, Field(ge=1, le=100)] = 10,
    min_coverage: Annotated[float, Field(ge=0.0, le=1.0, description=(
        "Min coverage for composition mode (0.0-1.0)"))] = 0.7,
) -> dict[str, Any]:
    """Associative recall — spreading activation through the knowledge graph. Finds memories through
    concept resonance, not keyword search. In 'composition' mode, finds minimum set of memories covering
    all needed concepts."""
    service = service_of(ctx)
    with tool_errors():
        result = service.associate(query, mode, project, max_results, min_coverage, notes=True)
    out = associate_out(result, "compact").model_dump(mode="json", exclude={"mode"})
    for memory in out["memories"]:
        memory.setdefault("project", None)
    if result.composition is not None:  # the seed's composition lists its sources in full
        out["composition"]["sources"] = [m for m in out["memories"]
                                         if m["id"] in out["composition"]["source_ids"]]
    return out


TamType = Literal["decision", "fact", "solution", "lesson", "convention"]
_KINDS = {"decision": "decision", "fact": "note", "solution": "solution", "lesson": "pattern",
          "convention": "pattern"}
_STRENGTH = {"critical": 1.5, "high": 1.2}  # the server's recall boosts; medium and low keep 1.0


def memory_save(
    ctx: Ctx,
    content: Annotated[str, Field(description="The knowledge to save")],
    type: Annotated[TamType, Field(description="decision (include WHY in context), fact, solution, lesson or "
                                   "convention")],
    project: Annotated[str, Field(description="Project")] = "general",
    tags: Annotated[list[str] | None, Field(max_length=50, description="Tags")] = None,
    context: Annotated[str | None, Field(description="Additional context, WHY for decisions")] = None,
    branch: Annotated[str | None, Field(description="Git branch this knowledge relates to")] = None,
    filter: Annotated[str | None, Field(description="Accepted; graphmem applies no output filter")] = None,
    importance: Annotated[Literal["critical", "high", "medium", "low"], Field(description=(
        "critical and high decay slower (base strength 1.5 and 1.2)"))] = "medium",
    coref: Annotated[bool | None, Field(description="Accepted; graphmem runs no coreference rewrite")] = None,
) -> dict[str, Any]:
    """Save knowledge explicitly. Types: decision (MUST include WHY in context), solution, lesson, fact,
    convention. The same content in the same project returns the existing id (deduplicated)."""
    service = service_of(ctx)
    meta = {key: value for key, value in (("type", type), ("branch", branch), ("importance", importance)) if value}
    with one_unit(service), tool_errors():
        stored = service.store(content, _KINDS[type], project, tags=[*(tags or []), type], context=context,
                               meta=meta, source="total-agent-memory")
        if importance in _STRENGTH and not stored.duplicate:
            service.edits.set_strength(stored.id, _STRENGTH[importance])
    out: dict[str, Any] = {"saved": True, "id": stored.id, "deduplicated": stored.duplicate}
    if stored.redacted:
        out["privacy_redacted"] = True
    return out


def kg_add_fact(ctx: Ctx, subject: str, predicate: str, object: str,
                confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0, valid_from: Instant = None,
                invalidate_previous: bool = True) -> FactResultOut:
    """Add a temporal fact; a new object for the same subject and predicate closes the old assertion."""
    with tool_errors():
        result = service_of(ctx).facts.add(subject, predicate, object, confidence=confidence,
                                           valid_from=valid_from, invalidate_previous=invalidate_previous)
    return FactResultOut.model_validate(result)


def kg_invalidate_fact(ctx: Ctx, fact_id: str, at: Instant = None, reason: str | None = None) -> FactResultOut:
    """Close a fact at an instant (default now)."""
    with tool_errors():
        return FactResultOut.model_validate(service_of(ctx).facts.invalidate(fact_id, at, reason))


def kg_at(ctx: Ctx, timestamp: Instant = None, subject: str | None = None, predicate: str | None = None,
          object: str | None = None) -> FactListOut:
    """The facts valid at a timestamp, filtered by subject, predicate or object."""
    with tool_errors():
        return FactListOut.model_validate(service_of(ctx).facts.at(timestamp, subject, predicate, object))


def kg_timeline(ctx: Ctx, subject: str) -> FactListOut:
    """Every fact about a subject in time order."""
    with tool_errors():
        return FactListOut.model_validate(service_of(ctx).facts.timeline(subject))


def memory_graph(ctx: Ctx, node: Annotated[str, Field(description="Memory id, topic key or concept:<name>")],
                 depth: Annotated[int, Field(ge=0, le=4)] = 1,
                 types: Annotated[list[str] | None, Field(description="Only edges of these types")] = None,
                 ) -> GraphOut:
    """The neighbourhood subgraph of a node."""
    with tool_errors():
        view = GraphOut.model_validate(service_of(ctx).graph(node, depth, limit=500))
    if types:
        view.edges = [edge for edge in view.edges if edge.get("type") in set(types)]
    return view


def memory_graph_stats(ctx: Ctx) -> dict[str, Any]:
    """Nodes, edges, orphans, top concepts (importance) and communities of the graph."""
    with tool_errors():
        return dataclasses.asdict(service_of(ctx).exports.stats())


def memory_concepts(ctx: Ctx, query: Annotated[str, Field(description="Text whose concepts to match")]
                    ) -> dict[str, Any]:
    """The graph concepts a query maps to, and the query concepts that match none."""
    service = service_of(ctx)
    with tool_errors():
        result = service.associate(query, max_results=1)
    return {"query_concepts": list(result.query_concepts),
            "matched": [{"id": s.id, "name": s.name, "match": s.match, "weight": s.weight}
                        for s in result.seed_nodes],
            "unmatched_concepts": list(result.unmatched_concepts)}


TOOLS = {
    "memory_save": (memory_save, WRITE),
    "memory_associate": (memory_associate, READ_ONLY),
    "kg_add_fact": (kg_add_fact, WRITE),
    "kg_invalidate_fact": (kg_invalidate_fact, WRITE),
    "kg_at": (kg_at, READ_ONLY),
    "kg_timeline": (kg_timeline, READ_ONLY),
    "memory_graph": (memory_graph, READ_ONLY),
    "memory_graph_stats": (memory_graph_stats, READ_ONLY),
    "memory_concepts": (memory_concepts, READ_ONLY),
}

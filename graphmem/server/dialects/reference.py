"""The reference dialect: a drop-in replacement for ``@modelcontextprotocol/server-memory``.

Its nine tools (create_entities, create_relations, add_observations, delete_entities,
delete_observations, delete_relations, read_graph, search_nodes, open_nodes) take the reference
server's parameters and answer in its shapes: the text block is the JSON the reference server sends,
the structured content its newer wrapper (``{"entities": [...]}``, ``{"success": true, ...}``).

Entities map onto memories exactly as ``graphmem import`` maps the reference server's memory file
(:mod:`graphmem.service.export.memory_file`): each observation is one memory ``"<entity>: <text>"``
with the entity in ``entities`` and ``tags``, its type as a tag and both in ``meta``; an entity
without observations is one memory naming it. So a memory file imported earlier is the same graph
here, and graphmem's search and associate see every entity. A relation is a ``related`` relation
between the two entities' memories with the reference triples (``from``, ``to``, ``relationType``)
in its meta, so two relation types between one pair of entities both survive.

Deletes are soft: a deleted observation or entity is forgotten (history and ``as_of`` keep it) and a
deleted relation is ignored. Every input is checked before anything is written. Unlike the reference
server, a relation must name entities that exist (no dangling relations), and search ranks entities
with graphmem's search besides the reference server's case-insensitive substring match.
"""

# The reference server's parameter and field names are camelCase (entityType, entityNames): its contract.
# ruff: noqa: N803, N815
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field

from graphmem.core.values import Memory, Relation
from graphmem.server.common import DESTRUCTIVE, READ_ONLY, WRITE, service_of, tool_errors
from graphmem.server.context import AppContext
from graphmem.server.dialects.unit import one_unit
from graphmem.service import MemoryService
from graphmem.service.export.memory_file import SOURCE

__all__ = ["RESOURCE_URI", "TOOLS", "EntityGraph", "register_resources"]

Ctx = Context[AppContext, Any]
_MAX_ITEMS = 1_000  # entities, relations or names in one call


class EntityIn(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=300, description="The name of the entity")]
    entityType: Annotated[str, Field(min_length=1, max_length=100, description="The type of the entity")]
    observations: Annotated[list[str], Field(max_length=1_000, description=(
        "An array of observation contents associated with the entity"))]


class RelationIn(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    from_: Annotated[str, Field(alias="from", min_length=1, max_length=300, description=(
        "The name of the entity where the relation starts"))]
    to: Annotated[str, Field(min_length=1, max_length=300, description=(
        "The name of the entity where the relation ends"))]
    relationType: Annotated[str, Field(min_length=1, max_length=200, description="The type of the relation")]


class ObservationsIn(BaseModel):
    entityName: Annotated[str, Field(min_length=1, max_length=300, description=(
        "The name of the entity to add the observations to"))]
    contents: Annotated[list[str], Field(max_length=1_000, description="An array of observation contents to add")]


class DeletionIn(BaseModel):
    entityName: Annotated[str, Field(min_length=1, max_length=300, description=(
        "The name of the entity containing the observations"))]
    observations: Annotated[list[str], Field(max_length=1_000, description="An array of observations to delete")]


class EntityOut(BaseModel):
    name: str
    entityType: str
    observations: list[str]


class RelationOut(RelationIn):
    pass


class GraphOut(BaseModel):
    entities: list[EntityOut]
    relations: list[RelationOut]


class EntitiesOut(BaseModel):
    entities: list[EntityOut]


class RelationsOut(BaseModel):
    relations: list[RelationOut]


class AddedOut(BaseModel):
    entityName: str
    addedObservations: list[str]


class AddResultsOut(BaseModel):
    results: list[AddedOut]


class DoneOut(BaseModel):
    success: bool
    message: str


# -- the entity view over graphmem memories ---------------------------------------------------------
Triple = tuple[str, str, str]


@dataclass(slots=True)
class _Entity:
    name: str
    entity_type: str
    memories: list[Memory] = field(default_factory=list)  # active ones, oldest first

    def observation(self, memory: Memory) -> str | None:
        prefix = f"{self.name}: "
        return memory.content[len(prefix):] if memory.content.startswith(prefix) else None

    @property
    def observations(self) -> list[str]:
        return [text for text in map(self.observation, self.memories) if text is not None]

    def out(self) -> EntityOut:
        return EntityOut(name=self.name, entityType=self.entity_type, observations=self.observations)


def _triples(relation: Relation) -> list[Triple]:
    """The reference relations a graphmem relation carries (the importer writes one, this dialect a list)."""
    meta = relation.meta
    listed = meta.get("relations")
    if isinstance(listed, list):
        return [(str(r[0]), str(r[1]), str(r[2])) for r in listed if isinstance(r, list) and len(r) == 3]
    if all(isinstance(meta.get(k), str) for k in ("from", "to", "relation_type")):
        return [(meta["from"], meta["to"], meta["relation_type"])]
    return []


class EntityGraph:
    """The reference server's graph as graphmem holds it: read once per call, changed through the service."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        everything = service.repository.memories_from_source(SOURCE)
        self.entities: dict[str, _Entity] = {}
        self.forgotten: dict[str, Memory] = {}  # content → a forgotten memory (to restore, not duplicate)
        for memory in everything:
            name = memory.meta.get("entity")
            if not isinstance(name, str):
                continue
            if memory.status != "active" or memory.superseded_by is not None:
                self.forgotten.setdefault(memory.content, memory)
                continue
            entity = self.entities.setdefault(name, _Entity(name, str(memory.meta.get("entity_type") or "")))
            entity.memories.append(memory)
        self.rows: list[tuple[Relation, list[Triple]]] = []
        for relation in service.repository.relations_touching([m.id for m in everything]):
            if relation.status == "judged" and relation.meta.get("source_format") == SOURCE:
                self.rows.append((relation, _triples(relation)))

    # -- reads ----------------------------------------------------------------------------------
    def relations(self, names: set[str] | None = None) -> list[RelationOut]:
        """The reference relations among existing entities; with ``names``, every one touching a name
        (as the reference server answers open_nodes and search_nodes: a node's connections to nodes
        outside the result are what an agent opens it to find)."""
        seen: dict[Triple, None] = {}
        for _, triples in self.rows:
            for triple in triples:
                ends = {triple[0], triple[1]}
                if all(end in self.entities for end in ends) and (names is None or ends & names):
                    seen.setdefault(triple)
        return [RelationOut(from_=a, to=b, relationType=t) for a, b, t in seen]

    def graph(self, names: Iterable[str] | None = None) -> GraphOut:
        if names is None:
            return GraphOut(entities=[e.out() for e in self.entities.values()], relations=self.relations())
        wanted = [n for n in dict.fromkeys(names) if n in self.entities]
        return GraphOut(entities=[self.entities[n].out() for n in wanted], relations=self.relations(set(wanted)))

    def search(self, query: str) -> GraphOut:
        """The reference server's case-insensitive substring match, and also entities holding every word of
        the query in any order ("spanish john" finds John_Smith, who speaks Spanish)."""
        needle = query.lower()
        words = needle.split()
        names = []
        for entity in self.entities.values():
            texts = [entity.name.lower(), entity.entity_type.lower(), *(t.lower() for t in entity.observations)]
            if any(needle in text for text in texts) or (words and all(any(w in t for t in texts) for w in words)):
                names.append(entity.name)
        return self.graph(names)

    # -- writes ---------------------------------------------------------------------------------
    def add(self, entities: Sequence[tuple[str, str, list[str]]]) -> None:
        """Write observations (or a naming memory) for entities, in one transaction, as the importer does;
        a forgotten memory with the same content is restored instead of reported as a duplicate."""
        records = [(n, {"type": "entity", "name": name, "entityType": entity_type, "observations": texts})
                   for n, (name, entity_type, texts) in enumerate(entities, start=1)]
        if not records:
            return
        with tool_errors():
            report = self.service.exports.import_memory_file(records)
            for memory in self.service.repository.memories_by_id(report.ids).values():
                if memory.status in {"forgotten", "archived"}:
                    self.service.edits.restore(memory.id)

    def relate(self, by_pair: dict[tuple[str, str], list[Triple]]) -> None:
        """One ``related`` row per pair of memories, carrying the pair's earlier triples and the new ones."""
        with tool_errors():
            for (source, target), added in by_pair.items():
                carried = [t for row, triples in self.rows if {row.source_id, row.target_id} == {source, target}
                           for t in triples]
                a, b, kind = added[0]
                self.service.relations.relate(source, target, "related", reason=f"{a} {kind} {b}", meta={
                    "relation_type": kind, "from": a, "to": b, "source_format": SOURCE,
                    "relations": [list(t) for t in dict.fromkeys([*carried, *added])]})

    def forget(self, memories: Iterable[Memory], reason: str) -> None:
        with tool_errors():
            for memory in memories:
                self.service.edits.forget(memory.id, reason=reason)

    def drop_triples(self, doomed: set[Triple] | None = None, entities: set[str] | None = None) -> None:
        """Remove reference relations: a row left with none is ignored, else its list is rewritten."""
        with tool_errors():
            for relation, triples in self.rows:
                kept = [t for t in triples if (doomed is None or t not in doomed)
                        and (entities is None or not {t[0], t[1]} & entities)]
                if len(kept) == len(triples):
                    continue
                if kept:
                    self.service.relations.relate(relation.source_id, relation.target_id, "related",
                                                  meta={"relations": [list(t) for t in kept]})
                else:
                    self.service.relations.ignore(relation.id, "deleted through the reference dialect")


def _reply(model: BaseModel, text_of: Any) -> CallToolResult:
    """The reference server's text block (its JSON, or its sentence) beside the structured wrapper."""
    structured = model.model_dump(mode="json", by_alias=True)
    text = text_of if isinstance(text_of, str) else json.dumps(text_of, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _clean(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(t.strip() for t in texts if t.strip()))


# -- the tools ------------------------------------------------------------------------------------
def _fresh_entities(graph: EntityGraph, entities: Sequence[EntityIn]) -> dict[str, EntityIn]:
    """The entities whose names are new (the reference server ignores a name it holds), checked."""
    fresh: dict[str, EntityIn] = {}
    for entity in entities:
        name = entity.name.strip()
        if name and name not in graph.entities and name not in fresh:
            fresh[name] = entity
    if any(not e.entityType.strip() for e in fresh.values()) or any(not n for n in fresh):
        raise ToolError("every entity needs a non-empty name and entityType")
    return fresh


def create_entities(ctx: Ctx, entities: Annotated[list[EntityIn], Field(max_length=_MAX_ITEMS)]
                    ) -> Annotated[CallToolResult, EntitiesOut]:
    """Create multiple new entities in the knowledge graph"""
    service = service_of(ctx)
    graph = EntityGraph(service)
    fresh = _fresh_entities(graph, entities)
    created = [EntityOut(name=n, entityType=e.entityType.strip(), observations=_clean(e.observations))
               for n, e in fresh.items()]
    with one_unit(service):
        graph.add([(c.name, c.entityType, c.observations) for c in created])
    return _reply(EntitiesOut(entities=created), [c.model_dump() for c in created])


def _checked_relations(graph: EntityGraph, relations: Sequence[RelationIn]) -> list[Triple]:
    """The requested triples, refused whole when one names an unknown entity (no dangling relations)."""
    wanted = [(r.from_.strip(), r.to.strip(), r.relationType.strip()) for r in relations]
    missing = sorted({end for a, b, _ in wanted for end in (a, b) if end not in graph.entities})
    if missing:
        raise ToolError(f"Entity with name {missing[0]} not found" + (
            f" (nor {', '.join(missing[1:5])})" if len(missing) > 1 else "")
            + "; create entities before relating them. Nothing was written.")
    if any(not t for _, _, t in wanted) or any(a == b for a, b, _ in wanted):
        raise ToolError("every relation needs a relationType and two different entities. Nothing was written.")
    return wanted


def _by_pair(graph: EntityGraph, fresh: Sequence[Triple]) -> dict[tuple[str, str], list[Triple]]:
    """New triples grouped by the pair of memories their relation row joins (either direction)."""
    by_pair: dict[tuple[str, str], list[Triple]] = {}
    for a, b, kind in fresh:
        source, target = graph.entities[a].memories[0].id, graph.entities[b].memories[0].id
        pair = (source, target) if (target, source) not in by_pair else (target, source)
        by_pair.setdefault(pair, []).append((a, b, kind))
    return by_pair


def create_relations(ctx: Ctx, relations: Annotated[list[RelationIn], Field(max_length=_MAX_ITEMS)]
                     ) -> Annotated[CallToolResult, RelationsOut]:
    """Create multiple new relations between entities in the knowledge graph. Relations should be in active
    voice"""
    service = service_of(ctx)
    graph = EntityGraph(service)
    existing = {(r.from_, r.to, r.relationType) for r in graph.relations()}
    fresh = [t for t in dict.fromkeys(_checked_relations(graph, relations)) if t not in existing]
    with one_unit(service):
        graph.relate(_by_pair(graph, fresh))
    created = [RelationOut(from_=a, to=b, relationType=t) for a, b, t in fresh]
    return _reply(RelationsOut(relations=created), [c.model_dump(by_alias=True) for c in created])


def add_observations(ctx: Ctx, observations: Annotated[list[ObservationsIn], Field(max_length=_MAX_ITEMS)]
                     ) -> Annotated[CallToolResult, AddResultsOut]:
    """Add new observations to existing entities in the knowledge graph"""
    service = service_of(ctx)
    graph = EntityGraph(service)
    for item in observations:
        if item.entityName.strip() not in graph.entities:
            raise ToolError(f"Entity with name {item.entityName} not found. Nothing was written.")
    added: dict[str, list[str]] = {}
    for item in observations:
        entity = graph.entities[item.entityName.strip()]
        have = set(entity.observations) | set(added.get(entity.name, []))
        added.setdefault(entity.name, []).extend(t for t in _clean(item.contents) if t not in have)
    with one_unit(service):
        graph.add([(name, graph.entities[name].entity_type, texts) for name, texts in added.items() if texts])
    results = [AddedOut(entityName=name, addedObservations=texts) for name, texts in added.items()]
    return _reply(AddResultsOut(results=results), [r.model_dump() for r in results])


def delete_entities(ctx: Ctx, entityNames: Annotated[list[str], Field(max_length=_MAX_ITEMS, description=(
        "An array of entity names to delete"))]) -> Annotated[CallToolResult, DoneOut]:
    """Delete multiple entities and their associated relations from the knowledge graph"""
    service = service_of(ctx)
    graph = EntityGraph(service)
    doomed = {n.strip() for n in entityNames if n.strip() in graph.entities}
    with one_unit(service):
        graph.drop_triples(entities=doomed)
        graph.forget((m for n in doomed for m in graph.entities[n].memories), "entity deleted")
    return _reply(DoneOut(success=True, message="Entities deleted successfully"), "Entities deleted successfully")


def delete_observations(ctx: Ctx, deletions: Annotated[list[DeletionIn], Field(max_length=_MAX_ITEMS)]
                        ) -> Annotated[CallToolResult, DoneOut]:
    """Delete specific observations from entities in the knowledge graph"""
    service = service_of(ctx)
    graph = EntityGraph(service)
    doomed: list[Memory] = []
    emptied: list[tuple[str, str, list[str]]] = []
    for item in deletions:
        entity = graph.entities.get(item.entityName.strip())
        if entity is None:
            continue
        texts = set(_clean(item.observations))
        gone = [m for m in entity.memories if entity.observation(m) in texts]
        doomed += gone
        if gone and all(m in gone for m in entity.memories):  # the entity stays, with no observations
            emptied.append((entity.name, entity.entity_type, []))
    with one_unit(service):
        graph.add(emptied)
        graph.forget(doomed, "observation deleted")
    message = "Observations deleted successfully"
    return _reply(DoneOut(success=True, message=message), message)


def delete_relations(ctx: Ctx, relations: Annotated[list[RelationIn], Field(max_length=_MAX_ITEMS, description=(
        "An array of relations to delete"))]) -> Annotated[CallToolResult, DoneOut]:
    """Delete multiple relations from the knowledge graph"""
    service = service_of(ctx)
    graph = EntityGraph(service)
    with one_unit(service):
        graph.drop_triples(doomed={(r.from_.strip(), r.to.strip(), r.relationType.strip()) for r in relations})
    message = "Relations deleted successfully"
    return _reply(DoneOut(success=True, message=message), message)


def read_graph(ctx: Ctx) -> Annotated[CallToolResult, GraphOut]:
    """Read the entire knowledge graph"""
    with tool_errors():
        graph = EntityGraph(service_of(ctx)).graph()
    return _reply(graph, graph.model_dump(by_alias=True))


def search_nodes(ctx: Ctx, query: Annotated[str, Field(max_length=10_000, description=(
        "The search query to match against entity names, types, and observation content"))]
                 ) -> Annotated[CallToolResult, GraphOut]:
    """Search for nodes in the knowledge graph based on a query"""
    with tool_errors():
        graph = EntityGraph(service_of(ctx)).search(query)
    return _reply(graph, graph.model_dump(by_alias=True))


def open_nodes(ctx: Ctx, names: Annotated[list[str], Field(max_length=_MAX_ITEMS, description=(
        "An array of entity names to retrieve"))]) -> Annotated[CallToolResult, GraphOut]:
    """Open specific nodes in the knowledge graph by their names"""
    with tool_errors():
        graph = EntityGraph(service_of(ctx)).graph(n.strip() for n in names)
    return _reply(graph, graph.model_dump(by_alias=True))


RESOURCE_URI = "memory://knowledge-graph"


def register_resources(server: MCPServer[Any], current: Callable[[], MemoryService]) -> tuple[str, ...]:
    """The reference server's one resource: the whole knowledge graph as JSON (static resources get no
    call context, so the service comes from ``current``). Every write changes it, so its subscribers are
    told after each one, as the reference server tells them."""
    def knowledge_graph() -> str:
        return EntityGraph(current()).graph().model_dump_json(by_alias=True)

    server.resource(RESOURCE_URI, name="knowledge-graph", title="Knowledge Graph", mime_type="application/json",
                    description="The full knowledge graph with all entities and relations")(knowledge_graph)
    return (RESOURCE_URI,)


TOOLS = {
    "create_entities": (create_entities, WRITE),
    "create_relations": (create_relations, WRITE),
    "add_observations": (add_observations, WRITE),
    "delete_entities": (delete_entities, DESTRUCTIVE),
    "delete_observations": (delete_observations, DESTRUCTIVE),
    "delete_relations": (delete_relations, DESTRUCTIVE),
    "read_graph": (read_graph, READ_ONLY),
    "search_nodes": (search_nodes, READ_ONLY),
    "open_nodes": (open_nodes, READ_ONLY),
}

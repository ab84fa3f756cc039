"""Reading memories by what callers name them: an id, or a topic key (the newest current holder).

``resolve`` maps references to ids, ``one_memory`` and ``resolve_many`` are the checked forms every
edit starts from, and ``open_memories`` is ``memory_open`` now (``history.open_at`` is the same read
at an earlier instant).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmem.core.values import Memory
from graphmem.errors import InvalidInput, NotFound
from graphmem.service.memories.results import OpenResult
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_ref, check_strings, check_text
from graphmem.store.repository import Repository

if TYPE_CHECKING:
    from graphmem.store.projection import GraphProjection

__all__ = ["concept_names", "one_memory", "open_memories", "resolve", "resolve_many"]


def resolve(repository: Repository, refs: Sequence[str], *, strict: bool = True) -> dict[str, str]:
    """Map ids or topic keys to memory ids; with ``strict`` an unknown reference raises NotFound."""
    refs = [check_ref("memory id or topic key", ref) for ref in refs]  # before any lookup
    known = repository.memories_by_id(refs)
    resolved = {ref: ref for ref in refs if ref in known}
    resolved.update(repository.ids_for_topic_keys([r for r in refs if r not in resolved]))
    missing = [r for r in refs if r not in resolved]
    if strict and missing:
        raise NotFound("memory id or topic key", missing)
    return resolved


def one_memory(repository: Repository, ref: str | None) -> Memory:
    """The memory ``ref`` names (an id or a topic key); NotFound when none does."""
    text = check_text("memory id", ref, 300, required=True) or ""
    memory_id = resolve(repository, [text])[text]
    return repository.memories_by_id([memory_id])[memory_id]


def resolve_many(repository: Repository, refs: Sequence[str], max_ids: int) -> list[str]:
    """The ids ``refs`` name, in order, each once; at least one, every one known."""
    wanted = check_strings("ids", refs, max_ids, 300)
    if not wanted:
        raise InvalidInput("ids must name at least one memory")
    resolved = resolve(repository, wanted)
    return list(dict.fromkeys(resolved[ref] for ref in wanted))


def concept_names(projection: GraphProjection, node: int) -> list[str]:
    """The names of the concepts memory ``node`` mentions, in node order (the oldest concept first)."""
    with projection.lock:
        return [projection.names[c] for c, _ in projection.concepts_of(node)]


def open_memories(uow: UnitOfWork, refs: Sequence[str], include_relations: bool) -> OpenResult:
    """Full memories by id or topic key, their relations and concepts; unknown references are listed."""
    repository = uow.repository
    projection = uow.fresh() if uow.projection_open else None
    resolved = resolve(repository, refs, strict=False)
    found = repository.memories_by_id(resolved.values())
    memories = tuple(found[resolved[r]] for r in refs if r in resolved and resolved[r] in found)
    relations = tuple(repository.relations_touching([m.id for m in memories])) if include_relations else ()
    if projection is None:  # none in memory (a one-shot command, a partitioned server): from the rows
        keys = repository.concept_keys(m.id for m in memories)
        concepts = {m.id: tuple(keys[m.id]) for m in memories if m.id in keys}
    else:
        concepts = {m.id: tuple(concept_names(projection, projection.memory_nodes[m.id])) for m in memories
                    if m.id in projection.memory_nodes}
    not_found = tuple(r for r in refs if r not in resolved)
    return OpenResult(memories=memories, relations=relations, not_found=not_found, concepts=concepts)

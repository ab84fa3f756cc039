"""What a relation change does beyond its own row: memory validity, hidden flags and graph edges.

The semantics table says what each type means; this module carries that meaning into the store
(inside the caller's transaction) and then into the graph projection (after the commit). It is the
one place that turns a judged ``supersedes`` into ``valid_to`` / ``superseded_by`` on the replaced
memory, and that undoes it when the relation is revised or ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.core.relations import hidden_ends
from graphmem.core.time import to_ms
from graphmem.core.validity import superseded_until
from graphmem.core.values import Memory, Relation
from graphmem.service.unit_of_work import Write
from graphmem.store import relation_store
from graphmem.store.changes import MEMORIES, RELATIONS
from graphmem.store.projection import GraphProjection

__all__ = ["RelationEffects", "record_effects"]


@dataclass(slots=True)
class RelationEffects:
    """Changes one use case made, to apply to the projection once the transaction has committed."""

    retracted: list[Relation] = field(default_factory=list)
    applied: list[Relation] = field(default_factory=list)
    memories: dict[str, Memory] = field(default_factory=dict)
    hidden: dict[str, bool] = field(default_factory=dict)
    superseded: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)

    def record(self, write: Write) -> None:
        """Tell the unit of work what changed, and follow it in the projection after the commit."""
        write.changed(RELATIONS, [relation.id for relation in (*self.retracted, *self.applied)])
        write.changed(MEMORIES, [*self.memories, *self.hidden])
        if self.retracted or self.applied or self.memories or self.hidden:  # what follow() applies
            write.then(self.follow)
        else:
            write.then_nothing()

    def follow(self, projection: GraphProjection) -> None:
        """Bring the projection in line with the committed rows."""
        for relation in self.retracted:
            projection.retract_relation(relation)
        for relation in self.applied:
            projection.apply_relation(relation)
        for memory in self.memories.values():
            if memory.id in projection.memory_nodes:
                projection.refresh_memory(memory)
        for memory_id, hidden in self.hidden.items():
            projection.set_hidden(memory_id, hidden)


def record_effects(session: Any, before: Relation | None, after: Relation, now: datetime,
                   effects: RelationEffects) -> None:
    """Write the memory-side consequences of ``before`` → ``after`` and note the projection changes."""
    if before is not None and before == after:
        return
    if before is not None:
        effects.retracted.append(before)
        if _closes(before) and not (_closes(after) and after.target_id == before.target_id):
            reopened = relation_store.reopen_memory(session, before.target_id, superseded_by=before.source_id)
            if reopened is not None:
                effects.memories[reopened.id] = reopened
                effects.restored.append(reopened.id)
    effects.applied.append(after)
    if _closes(after):
        _close_target(session, after, now, effects)
    _archive_consolidated(session, before, after, effects)
    for memory_id in hidden_ends(before) | hidden_ends(after):
        effects.hidden[memory_id] = bool(relation_store.hiding_relations(session, memory_id))


def _archives(relation: Relation | None) -> bool:
    """A judged ``consolidated_from`` archives its target (the semantics table: originals archived)."""
    return relation is not None and relation.type == "consolidated_from" and relation.status == "judged"


def _archive_consolidated(session: Any, before: Relation | None, after: Relation, effects: RelationEffects) -> None:
    if _archives(after):
        changed = relation_store.set_memory_status(session, after.target_id, "archived", only_from="active")
    elif _archives(before) and before is not None and not relation_store.hiding_relations(session, before.target_id):
        changed = relation_store.set_memory_status(session, before.target_id, "active", only_from="archived")
    else:
        return
    if changed is not None:
        effects.memories[changed.id] = changed


def _closes(relation: Relation) -> bool:
    """A judged ``supersedes`` ends the validity of its target (the older memory)."""
    return relation.type == "supersedes" and relation.status == "judged"


def _close_target(session: Any, relation: Relation, now: datetime, effects: RelationEffects) -> None:
    old = relation_store.memory(session, relation.target_id)
    new = relation_store.memory(session, relation.source_id)
    if old is None or new is None or old.superseded_by not in (None, relation.source_id):
        return  # already replaced by another memory: the first replacement keeps the record
    valid_to = superseded_until(old.valid_from, old.valid_to, new.valid_from, now)
    closed = relation_store.close_memory(session, old.id, valid_to_ms=to_ms(valid_to), superseded_by=new.id)
    effects.memories[closed.id] = closed
    if old.superseded_by is None:
        effects.superseded.append(closed.id)

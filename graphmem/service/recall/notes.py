"""Short warnings attached to recall hits: what an agent should know before it trusts a memory.

A hit can be superseded (shown only through ``as_of`` or ``include_superseded``), contradicted by a
judged ``contradicts`` / ``conflicts_with`` relation, or part of a relation still pending judgment.
One query for all hits of a page; hits without a note get none.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.store.note_rows import note_rows
from graphmem.store.repository import Repository

__all__ = ["recall_notes"]

_CONFLICTING = frozenset({"contradicts", "conflicts_with"})


def recall_notes(repository: Repository, ids: Sequence[str]) -> dict[str, list[str]]:
    """Memory id → its notes, e.g. ``["superseded by mem_b", "pending conflicts_with rel_c with mem_d"]``."""
    if not ids:
        return {}
    notes: dict[str, list[str]] = {memory_id: [] for memory_id in ids}
    with repository.reading() as connection:
        superseded, relations = note_rows(connection, list(notes), _CONFLICTING)
    for memory_id, newer in superseded.items():
        notes[memory_id].append(f"superseded by {newer}")
    for relation in relations:
        for this, other in ((relation.source_id, relation.target_id), (relation.target_id, relation.source_id)):
            if this not in notes:
                continue
            if relation.status == "pending":
                notes[this].append(f"pending {relation.type} {relation.id} with {other}")
            elif relation.status == "judged" and relation.type in _CONFLICTING:
                notes[this].append(f"contradicted by {other} ({relation.id})")
    return {memory_id: found for memory_id, found in notes.items() if found}

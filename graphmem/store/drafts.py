"""The store's write type: a typed observation goes in, the store builds its row.

A writer hands down a :class:`MemoryDraft`: the validated :class:`~graphmem.core.values.Observation`,
the id, times and dedupe hash it settled, and the parsed concepts. :func:`memory_row` is the one place
that knows the ``memory`` table's columns on the way in (epoch ms, the project key, the counters a new
memory starts with), so a new memory field is a field of the observation and one line here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.core.time import to_ms
from graphmem.core.values import Observation

__all__ = ["MemoryDraft", "memory_row"]


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """An observation ready to insert: its settled id and times, its content's dedupe hash, and its parsed
    concepts (key, kind, weight, count) and co-occurring pairs (key, key, count)."""

    observation: Observation
    id: str
    created_at: datetime
    valid_from: datetime
    content_hash: str
    mentions: tuple[tuple[str, str, float, int], ...]
    cooccurrences: tuple[tuple[str, str, int], ...]
    attached_session: str | None = None  # the live session a draft that named none was attached to

    @property
    def project(self) -> str | None:
        return self.observation.project

    @property
    def project_key(self) -> str:
        """The project, or ``""`` for none: with the hash, the key a duplicate is found by."""
        return self.observation.project or ""

    @property
    def session_id(self) -> str | None:
        return self.attached_session if self.attached_session is not None else self.observation.session_id

    def in_session(self, session_id: str) -> MemoryDraft:
        """The same draft, attached to ``session_id`` (the observation is shared, not copied: two
        ``dataclasses.replace`` of it per row were 6 % of a bulk import's writer CPU)."""
        return dataclasses.replace(self, attached_session=session_id)


def memory_row(draft: MemoryDraft) -> dict[str, Any]:
    """The ``memory`` row a draft inserts, by column (``seq`` is the database's)."""
    observation = draft.observation
    created = to_ms(draft.created_at)
    review_after = observation.review_after
    return {
        "id": draft.id, "content": observation.content, "content_hash": draft.content_hash,
        "kind": observation.kind, "project": observation.project, "project_key": draft.project_key,
        "topic_key": observation.topic_key, "tags": list(observation.tags), "entities": list(observation.entities),
        "source": observation.source, "context": observation.context, "meta": dict(observation.meta),
        "session_id": draft.session_id, "created_at": created, "last_used_at": created, "use_count": 0,
        "strength": 1.0, "status": "active", "valid_from": to_ms(draft.valid_from), "valid_to": None,
        "superseded_by": None, "review_after": to_ms(review_after) if review_after else None,
        "parent_id": observation.parent_id, "outcome": observation.outcome, "task_type": observation.task_type,
        "tools_used": list(observation.tools_used), "concept_count": len(draft.mentions),
    }

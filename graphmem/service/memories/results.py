"""Result values of the memory use cases: store, open, history, capture, and the memory brief relations show
(mirrored in Pydantic by the MCP layer)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphmem.core.values import Memory, Relation

__all__ = [
    "CaptureResult",
    "CapturedItem",
    "HistoryEvent",
    "HistoryResult",
    "HistoryVersion",
    "MemoryBrief",
    "OpenResult",
    "SkippedLine",
    "StoreResult",
    "brief",
]

_BRIEF_CHARS = 240


@dataclass(frozen=True, slots=True)
class MemoryBrief:
    """Enough of a memory to judge a relation without opening it."""

    id: str
    kind: str
    content: str
    project: str | None
    topic_key: str | None
    created_at: str
    valid_from: str
    valid_to: str | None
    superseded_by: str | None
    status: str


def brief(memory: Memory) -> MemoryBrief:
    content = memory.content
    if len(content) > _BRIEF_CHARS:
        content = content[: _BRIEF_CHARS - 1] + "…"
    return MemoryBrief(
        id=memory.id, kind=memory.kind, content=content, project=memory.project, topic_key=memory.topic_key,
        created_at=memory.created_at.isoformat(), valid_from=memory.valid_from.isoformat(),
        valid_to=memory.valid_to.isoformat() if memory.valid_to else None,
        superseded_by=memory.superseded_by, status=memory.status)



@dataclass(frozen=True, slots=True)
class StoreResult:
    id: str
    kind: str
    duplicate: bool
    concepts: tuple[str, ...]
    project: str | None = None
    topic_key: str | None = None
    superseded: tuple[str, ...] = ()
    redacted: dict[str, int] = field(default_factory=dict)  # secret kind → count replaced, never the value


@dataclass(frozen=True, slots=True)
class OpenResult:
    memories: tuple[Memory, ...]
    relations: tuple[Relation, ...]
    not_found: tuple[str, ...]
    concepts: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    """One replacement in a chain: ``new_id`` replaced ``old_id`` at ``at`` (relation or lineage)."""

    old_id: str
    new_id: str
    at: str
    via: str  # "supersedes" (a judged relation), "superseded_by" (a forget with a successor) or "parent"
    relation_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryVersion(MemoryBrief):
    """One version in a memory's history: the memory as it is now (content in full), its lineage parent, and
    whether recall shows it."""

    parent_id: str | None
    current: bool  # the version default recall shows


@dataclass(frozen=True, slots=True)
class HistoryResult:
    """The one history of a memory or topic key: every version and what replaced what, oldest first."""

    ref: str
    memories: tuple[HistoryVersion, ...]  # the versions, oldest first
    events: tuple[HistoryEvent, ...]  # in time order
    current_ids: tuple[str, ...]  # the chain's memories nothing has replaced

    @property
    def message(self) -> str:
        return f"{len(self.memories)} version{'s' if len(self.memories) != 1 else ''}, " \
               f"{len(self.current_ids)} current"


@dataclass(frozen=True, slots=True)
class CapturedItem:
    kind: str
    content: str
    section: str
    line: int
    id: str | None = None  # None on a dry run
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class SkippedLine:
    line: int
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class CaptureResult:
    items: tuple[CapturedItem, ...]
    skipped: tuple[SkippedLine, ...]
    sections: tuple[str, ...]
    stored: int
    duplicates: int
    dry_run: bool
    truncated: tuple[str, ...] = ()  # what a cap of the answer cut (memories/capture.py)

"""Result values of the memory use cases: store, open, history and capture (mirrored in Pydantic by the MCP layer)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphmem.core.values import Memory, Relation
from graphmem.service.relations.results import MemoryBrief

__all__ = [
    "CaptureResult",
    "CapturedItem",
    "HistoryEvent",
    "HistoryResult",
    "HistoryVersion",
    "OpenResult",
    "SkippedLine",
    "StoreResult",
]


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

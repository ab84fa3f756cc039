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
    via: str  # "supersedes" (a judged relation) or "parent" (lineage of a correction)
    relation_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryResult:
    ref: str
    memories: tuple[MemoryBrief, ...]  # oldest first
    events: tuple[HistoryEvent, ...]  # in time order
    current_ids: tuple[str, ...]  # the chain's memories nothing has replaced


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

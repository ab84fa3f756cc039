"""Capture a markdown session note: parse its sections into typed observations, store them in one batch.

All items are validated before anything is written and go through ``store_many`` in one batch, so a
note is captured whole or not at all; items already stored come back as duplicates with their ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.core.capture import parse_capture
from graphmem.service.memories.results import CapturedItem, CaptureResult, SkippedLine
from graphmem.service.memories.writes import MemoryWrites
from graphmem.service.scrub import Scrubber
from graphmem.service.unit_of_work import UnitOfWork

__all__ = ["CaptureService"]

_MAX_NOTE_CHARS = 500_000


class CaptureService:
    """``service.capture``: markdown notes → typed observations."""

    def __init__(self, uow: UnitOfWork, writes: MemoryWrites) -> None:
        self.uow = uow
        self.writes = writes

    def markdown(self, content: str, *, project: str | None = None, session_id: str | None = None,
                 tags: Sequence[str] | None = None, source: str | None = "capture",
                 dry_run: bool = False) -> CaptureResult:
        """Store every item under a capture heading; report the items skipped and why."""
        scrub = Scrubber()  # before the capture is parsed: private blocks out, secrets replaced
        content = scrub.text("content", content, _MAX_NOTE_CHARS, required=True) or ""
        tags = scrub.strings("tags", tags, self.uow.settings.limits.max_tags,
                             self.uow.settings.limits.max_tag_chars)
        parsed = parse_capture(content)
        skipped = tuple(SkippedLine(s.line, s.text, s.reason) for s in parsed.skipped)
        records = [{"content": item.content, "kind": item.kind, "project": project, "session_id": session_id,
                    "tags": list(tags), "source": source,
                    "context": f"captured from section {item.section!r}"}
                   for item in parsed.items]
        if dry_run or not records:
            items = tuple(CapturedItem(i.kind, i.content, i.section, i.line) for i in parsed.items)
            return CaptureResult(items=items, skipped=skipped, sections=parsed.sections, stored=0,
                                 duplicates=0,
                                 dry_run=dry_run)
        # One batch: validation of every record happens before the single insert transaction.
        results = self.writes.store_many(records, batch_size=max(len(records), 1))
        items = tuple(CapturedItem(i.kind, i.content, i.section, i.line, id=r.id, duplicate=r.duplicate)
                      for i, r in zip(parsed.items, results, strict=True))
        duplicates = sum(r.duplicate for r in results)
        return CaptureResult(items=items, skipped=skipped, sections=parsed.sections,
                             stored=len(results) - duplicates, duplicates=duplicates, dry_run=False)

"""Capture a markdown session note: parse its sections into typed observations, store them in one batch.

All items are validated before anything is written and go through ``store_many`` in one batch, so a
note is captured whole or not at all; items already stored come back as duplicates with their ids.

Bounded (issue 25: a 500,000-character note ran past 60 s and grew the server to 2.2 GB): a note holds at
most ``MAX_NOTE_CHARS`` characters and ``MAX_ITEMS`` items, or it is refused whole with the limit named
(split it); the answer lists the first ``MAX_SKIPPED_SHOWN`` skipped lines and says how many there were.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.core.capture import parse_capture
from graphmem.errors import InvalidInput
from graphmem.service.cancellation import checkpoint
from graphmem.service.memories.results import CapturedItem, CaptureResult, SkippedLine
from graphmem.service.memories.writes import MemoryWrites
from graphmem.service.scrub import Scrubber
from graphmem.service.unit_of_work import UnitOfWork

__all__ = ["MAX_ITEMS", "MAX_NOTE_CHARS", "MAX_SKIPPED_SHOWN", "CaptureService"]

# One maximal memory: 420 items in 100,000 characters took 6.8 s, 210 in 50,000 5.8 s (model load included).
MAX_NOTE_CHARS = 50_000
MAX_ITEMS = 500
MAX_SKIPPED_SHOWN = 100


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
        content = scrub.text("content", content, MAX_NOTE_CHARS, required=True) or ""
        tags = scrub.strings("tags", tags, self.uow.settings.limits.max_tags,
                             self.uow.settings.limits.max_tag_chars)
        parsed = parse_capture(content)
        if len(parsed.items) > MAX_ITEMS:
            raise InvalidInput(f"the note has {len(parsed.items):,} items; a capture takes at most {MAX_ITEMS} "
                               f"(split the note): nothing was stored")
        checkpoint()  # a cancelled call stops before the write (service/cancellation.py)
        skipped = tuple(SkippedLine(s.line, s.text, s.reason) for s in parsed.skipped[:MAX_SKIPPED_SHOWN])
        truncated = (f"skipped: the first {MAX_SKIPPED_SHOWN} of {len(parsed.skipped):,} lines",) if len(
            parsed.skipped) > MAX_SKIPPED_SHOWN else ()
        records = [{"content": item.content, "kind": item.kind, "project": project, "session_id": session_id,
                    "tags": list(tags), "source": source,
                    "context": f"captured from section {item.section!r}"}
                   for item in parsed.items]
        if dry_run or not records:
            items = tuple(CapturedItem(i.kind, i.content, i.section, i.line) for i in parsed.items)
            return CaptureResult(items=items, skipped=skipped, sections=parsed.sections, stored=0,
                                 duplicates=0, dry_run=dry_run, truncated=truncated)
        # One batch: validation of every record happens before the single insert transaction.
        results = self.writes.store_many(records, batch_size=max(len(records), 1))
        items = tuple(CapturedItem(i.kind, i.content, i.section, i.line, id=r.id, duplicate=r.duplicate)
                      for i, r in zip(parsed.items, results, strict=True))
        duplicates = sum(r.duplicate for r in results)
        return CaptureResult(items=items, skipped=skipped, sections=parsed.sections,
                             stored=len(results) - duplicates, duplicates=duplicates, dry_run=False,
                             truncated=truncated)

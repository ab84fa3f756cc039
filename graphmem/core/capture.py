"""Capture: a pure markdown parser that turns the sections of a session note into typed observations.

It reads the headings KiroGraph's capture reads (Decisions, Key Learnings, Learnings, Patterns, Key
Changes, Observations, Errors) plus the section names of graphmem's own briefs (Known Errors & Fixes,
Recurring Patterns, Architecture Notes). Every bullet or numbered item of at least
:data:`MIN_ITEM_CHARS` characters under such a heading becomes one observation; an indented
continuation line or a nested bullet belongs to the item above it (it is detail, not a new claim).
Everything that is *not* captured is reported with a reason, so a note never loses text silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MIN_ITEM_CHARS", "SECTION_KINDS", "CaptureItem", "CaptureParse", "SkippedItem", "parse_capture",
           "section_kind"]

MIN_ITEM_CHARS = 5

SECTION_KINDS: dict[str, str] = {
    "decisions": "decision",
    "key learnings": "pattern",
    "learnings": "pattern",
    "patterns": "pattern",
    "recurring patterns": "pattern",
    "key changes": "pattern",
    "observations": "note",
    "errors": "error",
    "known errors & fixes": "error",
    "errors & fixes": "error",
    "errors and fixes": "error",
    "architecture notes": "architecture",
}

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True, slots=True)
class CaptureItem:
    """One observation found in the note: its kind, its text, the section and the line it starts on."""

    kind: str
    content: str
    section: str
    line: int


@dataclass(frozen=True, slots=True)
class SkippedItem:
    """Text that was not captured, with the line it starts on and why."""

    line: int
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class CaptureParse:
    items: tuple[CaptureItem, ...]
    skipped: tuple[SkippedItem, ...]
    sections: tuple[str, ...]  # the capture sections found, in order


@dataclass(slots=True)
class _Open:
    """The item being collected (its continuation lines and nested bullets are still arriving)."""

    line: int
    parts: list[str]
    indent: int


def section_kind(heading: str) -> str | None:
    """The observation kind of a heading, or None when it is not a capture section.

    >>> section_kind("Key Learnings:"), section_kind("Next steps")
    ('pattern', None)
    """
    name = " ".join(re.sub(r"[*_`]", "", heading).strip().rstrip(":").casefold().split())
    return SECTION_KINDS.get(name)


def parse_capture(markdown: str) -> CaptureParse:
    """Parse ``markdown`` into typed observations and the items it skipped.

    >>> result = parse_capture("## Decisions\\n- Use Redis for sessions\\n- ok\\n")
    >>> [(i.kind, i.content) for i in result.items], [s.reason for s in result.skipped]
    ([('decision', 'Use Redis for sessions')], ['shorter than 5 characters'])
    """
    parser = _Parser()
    for number, line in enumerate(markdown.splitlines(), start=1):
        parser.feed(number, line)
    parser.close_item()
    return CaptureParse(tuple(parser.items), tuple(parser.skipped), tuple(parser.sections))


class _Parser:
    """A line-by-line state machine: current section, open item, inside a code fence or not."""

    def __init__(self) -> None:
        self.items: list[CaptureItem] = []
        self.skipped: list[SkippedItem] = []
        self.sections: list[str] = []
        self.heading: str | None = None
        self.kind: str | None = None
        self.open: _Open | None = None
        self.fence_start: int | None = None
        self.seen: dict[str, int] = {}

    def feed(self, number: int, text: str) -> None:
        if self.fence_start is not None:
            if _FENCE.match(text):
                self.fence_start = None
            return
        if _FENCE.match(text):
            self.fence_start = number
            if self.kind is not None:
                self.close_item()
                self.skipped.append(SkippedItem(number, text.strip(), "code block (not an item)"))
            return
        heading = _HEADING.match(text)
        if heading:
            self._start_section(heading.group(2))
        elif text.strip():
            self._content_line(number, text)

    def _start_section(self, heading: str) -> None:
        self.close_item()
        self.heading, self.kind = heading, section_kind(heading)
        if self.kind is not None:
            self.sections.append(heading)

    def _content_line(self, number: int, text: str) -> None:
        item = _ITEM.match(text)
        indent = len(text) - len(text.lstrip())
        if self.open is not None and (indent > self.open.indent):
            # An indented line under an item, bullet or not, is that item's detail.
            self.open.parts.append(_clean(item.group(2)) if item else text.strip())
            return
        if item is None:
            self.close_item()
            reason = "not under a capture heading" if self.kind is None else "not a bullet or numbered item"
            self._skip(number, text.strip(), reason)
            return
        self.close_item()
        if self.kind is None:
            where = (f"heading {self.heading!r} is not a capture section" if self.heading
                     else "no heading above it")
            self._skip(number, item.group(2).strip(), where)
            return
        self.open = _Open(number, [_clean(item.group(2))], indent)

    def close_item(self) -> None:
        if self.open is None or self.kind is None or self.heading is None:
            self.open = None
            return
        opened, self.open = self.open, None
        content = "; ".join(part for part in opened.parts if part)
        if len(content) < MIN_ITEM_CHARS:
            self._skip(opened.line, content, f"shorter than {MIN_ITEM_CHARS} characters")
        elif content.casefold() in self.seen:
            self._skip(opened.line, content, f"repeats the item on line {self.seen[content.casefold()]}")
        else:
            self.seen[content.casefold()] = opened.line
            self.items.append(CaptureItem(self.kind, content, self.heading, opened.line))

    def _skip(self, number: int, text: str, reason: str) -> None:
        self.skipped.append(SkippedItem(number, text[:200], reason))


def _clean(item_text: str) -> str:
    """Item text without a task checkbox and surrounding whitespace (markdown emphasis is kept)."""
    return _CHECKBOX.sub("", item_text.strip()).strip()

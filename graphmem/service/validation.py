"""Boundary validation: every check raises InvalidInput with what was wrong and how to fix it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from graphmem.core.values import KINDS
from graphmem.errors import InvalidInput

__all__ = [
    "check_choice",
    "check_count",
    "check_kind",
    "check_range",
    "check_strings",
    "check_text",
    "normalize_content",
    "parse_instant",
    "strip_private",
]

# The innermost block first (no <private> inside), so nested blocks come off from the inside out.
_PRIVATE = re.compile(r"<private>(?:(?!<private>).)*?</private>", re.DOTALL | re.IGNORECASE)
_PRIVATE_UNCLOSED = re.compile(r"<private>.*\Z", re.DOTALL | re.IGNORECASE)
_EPOCH_MS_FLOOR = 10**11  # 1973 in ms: smaller numbers are taken as epoch *seconds*


def check_text(name: str, value: str | None, max_chars: int, *, required: bool = False) -> str | None:
    """Reject non-strings, blank required text and oversized text."""
    if value is None:
        if required:
            raise InvalidInput(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    if required and not value.strip():
        raise InvalidInput(f"{name} must not be empty")
    if len(value) > max_chars:
        raise InvalidInput(f"{name} is {len(value):,} characters; the limit is {max_chars:,}")
    if "\x00" in value:  # PostgreSQL refuses NUL in text; refuse it here for every backend alike
        raise InvalidInput(f"{name} must not contain a NUL (\\x00) character")
    return value


def check_strings(name: str, values: Iterable[str] | None, max_items: int, max_chars: int) -> tuple[str, ...]:
    """A list of non-empty strings: stripped, deduplicated in order, bounded in count and size."""
    if values is None:
        return ()
    if isinstance(values, str):
        raise InvalidInput(f"{name} must be a list of strings, not one string")
    cleaned = list(dict.fromkeys(v.strip() for v in values if isinstance(v, str) and v.strip()))
    if len(cleaned) > max_items:
        raise InvalidInput(f"{name} has {len(cleaned)} items; the limit is {max_items}")
    for item in cleaned:
        if len(item) > max_chars:
            raise InvalidInput(f"{name} item {item[:20]!r}… is longer than {max_chars} characters")
    return tuple(cleaned)


def check_kind(kind: str) -> str:
    return check_choice("kind", kind, KINDS)


def check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise InvalidInput(f"{name} {value!r} is not one of: {', '.join(choices)}")
    return value


def check_range(name: str, value: float, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InvalidInput(f"{name} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


def check_count(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer in [{low}, {high}], got {value!r}")
    return value


def parse_instant(name: str, value: Any) -> datetime | None:
    """ISO 8601 text, epoch milliseconds (or seconds), or a datetime → aware UTC datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, bool):
        raise InvalidInput(f"{name} must be an ISO 8601 date or epoch milliseconds")
    if isinstance(value, int | float) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        number = float(value)
        seconds = number / 1000 if abs(number) >= _EPOCH_MS_FLOOR else number
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise InvalidInput(f"{name} {value!r} is out of range") from None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(f"{name} {value!r} is not ISO 8601 (e.g. 2026-03-01T12:00:00Z) "
                               "or epoch milliseconds") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise InvalidInput(f"{name} must be an ISO 8601 date or epoch milliseconds")


def strip_private(text: str) -> str:
    """Remove ``<private>…</private>`` blocks, which must never be stored (KiroGraph's convention).

    Nested blocks are removed whole, and an unclosed ``<private>`` hides everything after it:
    a missing close tag must not leak the secret it was meant to hide.

    >>> strip_private("a <private>b <private>c</private> d</private> e <private>f")
    'a  e '
    """
    previous = None
    while previous != text:
        previous, text = text, _PRIVATE.sub("", text)
    return _PRIVATE_UNCLOSED.sub("", text)


def normalize_content(text: str) -> str:
    """The dedupe form of content: NFKC, case-folded, whitespace collapsed.

    >>> normalize_content("  Use  Redis\\n") == normalize_content("use redis")
    True
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())

"""Boundary validation: every check raises InvalidInput with what was wrong and how to fix it."""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from graphmem.core.private_tags import strip_private
from graphmem.core.values import KINDS
from graphmem.errors import InvalidInput

__all__ = [
    "META_MAX_BYTES",
    "META_MAX_DEPTH",
    "QUOTE_CHARS",
    "check_choice",
    "check_count",
    "check_json",
    "check_kind",
    "check_meta",
    "check_range",
    "check_ref",
    "check_strings",
    "check_text",
    "normalize_content",
    "parse_instant",
    "quote",
    "strip_private",
]

_EPOCH_MS_FLOOR = 10**11  # 1973 in ms: smaller numbers are taken as epoch *seconds*
# Errors quote at most this much of what the caller sent: a 10 MB argument must not come back in full.
QUOTE_CHARS = 100
# An id is ``<prefix>_`` + 20 characters and a topic key at most 300: a longer reference names
# nothing, so it is refused before any lookup (a 10 MB id took 26-61 s to be looked up and echoed).
MAX_REF_CHARS = 300
META_MAX_BYTES = 16_384  # serialized UTF-8 JSON
META_MAX_DEPTH = 16  # nested objects/lists; the JSON import refuses deeper lines the same way


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of a value, cut to about ``limit`` characters, for error messages.

    >>> quote("x" * 500)[:8], len(quote("x" * 500)) < 130
    ("'xxxxxxx", True)
    """
    shown = repr(value[: limit + 1] if isinstance(value, str | bytes | list | tuple) else value)
    if len(shown) <= limit:
        return shown
    size = f"{len(value):,} characters" if isinstance(value, str) else "long"
    return f"{shown[:limit]}… ({size})"


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
    _refuse_surrogates(name, value)
    return value


def _refuse_surrogates(name: str, value: str) -> None:
    """A lone surrogate (undecodable input smuggled through JSON ``\\ud800``) is refused, never altered."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidInput(f"{name} contains a lone surrogate U+{ord(value[error.start]):04X} at character "
                           f"{error.start}; send valid UTF-8 text") from None


def check_ref(name: str, value: Any) -> str:
    """An id or topic key: a non-empty string no longer than any real one, checked before lookup."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} must be a non-empty id or topic key")
    if len(value) > MAX_REF_CHARS:
        raise InvalidInput(f"{name} {quote(value)} is longer than any id or topic key "
                           f"({MAX_REF_CHARS} characters)")
    _refuse_surrogates(name, value)
    return value


def check_meta(name: str, value: Any, *, max_bytes: int = META_MAX_BYTES,
               max_depth: int = META_MAX_DEPTH) -> dict[str, Any]:
    """A JSON object: string keys, finite numbers, bounded depth and serialized size.

    NaN and Infinity are refused because the JSONL export must stay strict JSON.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{name} must be an object")
    _walk_json(name, value, max_depth)
    size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
    if size > max_bytes:
        raise InvalidInput(f"{name} is {size:,} bytes as JSON; the limit is {max_bytes:,}")
    return dict(value)


def check_json(name: str, root: Any, max_depth: int, max_chars: int = META_MAX_BYTES) -> None:
    """Iterative (no recursion limit to hit): check depth, key types, finite numbers and valid strings."""
    _walk_json(name, root, max_depth, max_chars)


def _walk_json(name: str, root: Any, max_depth: int, max_chars: int = META_MAX_BYTES) -> None:
    stack: list[tuple[Any, int, str]] = [(root, 1, name)]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, Mapping | list | tuple):
            if depth > max_depth:
                raise InvalidInput(f"{name} nests deeper than {max_depth} levels at {quote(path)}")
            items = node.items() if isinstance(node, Mapping) else enumerate(node)
            for key, child in items:
                if isinstance(node, Mapping):
                    if not isinstance(key, str):
                        raise InvalidInput(f"{path} keys must be strings, got {quote(key)}")
                    check_text(f"{name} key", key, META_MAX_BYTES)
                stack.append((child, depth + 1, f"{path}.{key}" if len(path) < QUOTE_CHARS else path))
        elif isinstance(node, float) and not math.isfinite(node):
            raise InvalidInput(f"{path} is {node}; NaN and Infinity are not JSON numbers")
        elif isinstance(node, str):
            check_text(path, node, max_chars)
        elif node is not None and not isinstance(node, bool | int | float):
            raise InvalidInput(f"{path} must be JSON (object, list, string, number, boolean or null)")


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
        check_text(f"{name} item", item, max_chars)
    return tuple(cleaned)


def check_kind(kind: str) -> str:
    return check_choice("kind", kind, KINDS)


def check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise InvalidInput(f"{name} {quote(value)} is not one of: {', '.join(choices)}")
    return value


def check_range(name: str, value: float, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InvalidInput(f"{name} must be a number in [{low}, {high}], got {quote(value)}")
    return float(value)


def check_count(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{name} must be an integer in [{low}, {high}], got {quote(value)}")
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
            raise InvalidInput(f"{name} {quote(value)} is out of range") from None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(f"{name} {quote(value)} is not ISO 8601 (e.g. 2026-03-01T12:00:00Z) "
                               "or epoch milliseconds") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise InvalidInput(f"{name} must be an ISO 8601 date or epoch milliseconds")


def normalize_content(text: str) -> str:
    """The dedupe form of content: NFKC, case-folded, whitespace collapsed.

    >>> normalize_content("  Use  Redis\\n") == normalize_content("use redis")
    True
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())

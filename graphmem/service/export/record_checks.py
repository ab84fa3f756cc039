"""Field checks for graphmem's own export records, so a bad import line is refused before any write.

An imported memory row is loaded into the graph projection on every start; a row with an unknown
status or a text timestamp would make the store unopenable, so every field is checked here, with
the line number, and the import is refused as a whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmem.core.values import KINDS, OUTCOMES, STATUSES

__all__ = ["record_problem"]

Check = Callable[[Any], bool]
_MS, _NAME = "epoch milliseconds", "a non-empty string"


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_integer(value: Any) -> bool:
    return value is None or _integer(value)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and "\x00" not in value


def _optional_text(value: Any) -> bool:
    return value is None or (isinstance(value, str) and "\x00" not in value)


def _strings(value: Any) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(item, str) for item in value))


def _mapping(value: Any) -> bool:
    return value is None or isinstance(value, dict)


def _mentions(value: Any) -> bool:
    return value is None or (isinstance(value, list) and all(
        isinstance(m, list) and len(m) == 3 and _text(m[0]) and _number(m[1]) and _integer(m[2])
        for m in value))


_CHECKS: dict[str, dict[str, tuple[Check, str]]] = {
    "memory": {
        "id": (_text, _NAME), "content": (_text, _NAME),
        "content_hash": (_text, _NAME),
        "kind": (lambda v: v in KINDS, f"one of {', '.join(KINDS)}"),
        "status": (lambda v: v in STATUSES, f"one of {', '.join(STATUSES)}"),
        "created_at": (_integer, _MS), "last_used_at": (_integer, _MS),
        "valid_from": (_integer, _MS), "valid_to": (_optional_integer, _MS),
        "review_after": (_optional_integer, _MS), "use_count": (_optional_integer, "an integer"),
        "strength": (lambda v: v is None or _number(v), "a number"), "tags": (_strings, "a list of strings"),
        "entities": (_strings, "a list of strings"), "meta": (_mapping, "an object"),
        "tools_used": (_strings, "a list of strings"),
        "outcome": (lambda v: v is None or v in OUTCOMES, f"null or one of {', '.join(OUTCOMES)}"),
        "mentions": (_mentions, "a list of [concept, weight, count]"),
        **{name: (_optional_text, "a string") for name in
           ("project", "topic_key", "source", "context", "session_id", "superseded_by", "parent_id",
            "task_type")},
    },
    "concept": {"key": (_text, _NAME), "kind": (_text, _NAME),
                "aliases": (_strings, "a list of strings")},
    "concept_edge": {"a": (_text, "a concept key"), "b": (_text, "a concept key"),
                     "count": (lambda v: _integer(v) and v >= 0, "a non-negative integer")},
    "relation": {
        "id": (_text, _NAME), "source_id": (_text, "a memory id"),
        "target_id": (_text, "a memory id"), "relation_type": (_text, "a relation type"),
        "confidence": (lambda v: v is None or _number(v), "a number"), "status": (_text, "a string"),
        "created_at": (_integer, _MS), "judged_at": (_optional_integer, _MS),
        "meta": (_mapping, "an object"),
    },
    "session": {
        "id": (_text, _NAME), "started_at": (_integer, _MS),
        "last_activity_at": (_integer, _MS), "ended_at": (_optional_integer, _MS),
        "timeout_s": (_optional_integer, "an integer"),
    },
}


def record_problem(kind: str, record: dict[str, Any]) -> str | None:
    """What is wrong with one export record's fields, or None if it can be imported.

    >>> record_problem("concept_edge", {"a": "redis", "b": "cache", "count": -1})
    'concept_edge field count must be a non-negative integer, got -1'
    >>> record_problem("concept", {"key": "redis", "kind": "term"}) is None
    True
    """
    for name, (check, expected) in _CHECKS.get(kind, {}).items():
        if name in record and not check(record[name]):
            return f"{kind} field {name} must be {expected}, got {record[name]!r:.60}"
    return None

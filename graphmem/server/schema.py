"""Compact JSON schemas for ``tools/list``: the same contract in fewer bytes.

Pydantic's schemas repeat a ``title`` for every property (the property name, title-cased), spell an
optional value as ``anyOf: [{type: X}, {type: null}]`` with ``default: null``, and describe every
output model at length. An agent pays for these bytes on every turn. Dropping the generated titles,
writing ``type: [X, "null"]`` and leaving out ``default: null`` changes no validation result.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compact_schema", "inline_single_use", "without"]

# In an output schema a default or a string format tells the client nothing it acts on.
# Output field names say what they hold; the docs describe each result (docs/tools.md).
_OUTPUT_NOISE = frozenset({"default", "format", "description"})


def compact_schema(schema: Any, *, output: bool = False) -> Any:
    """A copy of ``schema`` without generated titles, with nullable types folded, no ``default: null``;
    with ``output``, also without descriptions, defaults and formats.

    >>> compact_schema({"title": "M", "properties": {"a": {"title": "A", "anyOf": [{"type": "string"},
    ...                 {"type": "null"}], "default": None}}})
    {'properties': {'a': {'type': ['string', 'null']}}}
    """
    if isinstance(schema, list):
        return [compact_schema(item, output=output) for item in schema]
    if not isinstance(schema, dict):
        return schema
    compact: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        if output and key in _OUTPUT_NOISE:
            continue
        if key == "additionalProperties" and value is True:  # the JSON Schema default
            continue
        if key in {"properties", "$defs"}:  # names here are data, not keywords
            compact[key] = {name: compact_schema(sub, output=output) for name, sub in value.items()}
        else:
            compact[key] = compact_schema(value, output=output)
    return _fold_nullable(compact)


def _fold_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``anyOf`` of bare types (``{"type": "string"}``, ``{"type": "null"}``) → one type list."""
    options = schema.get("anyOf")
    if not isinstance(options, list) or not all(
            isinstance(o, dict) and set(o) == {"type"} and isinstance(o["type"], str) for o in options):
        return schema
    folded = {key: value for key, value in schema.items() if key != "anyOf"}
    folded["type"] = [option["type"] for option in options]
    return folded


def inline_single_use(schema: Any) -> Any:
    """``schema`` with each definition that one plain ``{"$ref": ...}`` names written in its place, and
    ``$defs`` keeping only what is still referred to. The same validation, but a client that validates
    every result (the Python SDK's ``jsonschema``) resolves no reference for it: a 10-hit search page,
    whose hits are one ``$ref``, validated in 0.51 ms instead of 0.64 (docs/benchmarks.md). A definition
    used twice, or reachable from itself, stays a reference.

    >>> once, twice = {"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}
    >>> inline_single_use({"properties": {"a": once, "b": {"items": twice}, "c": twice},
    ...                    "$defs": {"A": {"type": "integer"}, "B": {"type": "string"}}})["properties"]
    {'a': {'type': 'integer'}, 'b': {'items': {'$ref': '#/$defs/B'}}, 'c': {'$ref': '#/$defs/B'}}
    >>> inline_single_use({"properties": {"a": once, "b": twice, "c": twice},
    ...                    "$defs": {"A": {"type": "integer"}, "B": {"type": "string"}}})["$defs"]
    {'B': {'type': 'string'}}
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("$defs"), dict):
        return schema
    definitions: dict[str, Any] = schema["$defs"]
    uses: dict[str, int] = {}
    pending: list[Any] = [schema]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            name = _ref_name(item.get("$ref"))
            if name is not None:  # a reference beside other keywords counts twice: it is never inlined
                uses[name] = uses.get(name, 0) + (1 if set(item) == {"$ref"} else 2)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    single = {name for name, count in uses.items()
              if count == 1 and name in definitions and name not in _referenced(definitions[name], definitions)}
    if not single:
        return schema

    def written(node: Any) -> Any:
        if isinstance(node, list):
            return [written(item) for item in node]
        if not isinstance(node, dict):
            return node
        name = _ref_name(node.get("$ref"))
        if name in single and set(node) == {"$ref"}:
            return written(definitions[name])
        return {key: written(value) for key, value in node.items() if key != "$defs"}

    result: dict[str, Any] = written(schema)
    kept = {name: written(definition) for name, definition in definitions.items() if name not in single}
    used = _referenced(result, kept)
    if used:
        result["$defs"] = {name: kept[name] for name in kept if name in used}
    return result


def _ref_name(ref: Any) -> str | None:
    return ref.removeprefix("#/$defs/") if isinstance(ref, str) and ref.startswith("#/$defs/") else None


def without(schema: dict[str, Any] | None, names: frozenset[str]) -> dict[str, Any] | None:
    """``schema`` without the optional properties ``names`` (a lean profile's advanced parameters, or the
    result fields only they fill), and without the definitions nothing refers to any more.

    >>> without({"properties": {"a": {}, "b": {"$ref": "#/$defs/B"}}, "$defs": {"B": {}}}, frozenset({"b"}))
    {'properties': {'a': {}}}
    """
    if not names or schema is None:
        return schema
    kept = {key: value for key, value in schema.get("properties", {}).items() if key not in names}
    trimmed = {key: value for key, value in schema.items() if key != "$defs"} | {"properties": kept}
    definitions = schema.get("$defs", {})
    used = _referenced(trimmed, definitions)
    if used:
        trimmed["$defs"] = {name: definitions[name] for name in sorted(used)}
    return trimmed


def _referenced(node: Any, definitions: dict[str, Any]) -> set[str]:
    """The definitions ``node`` refers to, directly or through other definitions."""
    found: set[str] = set()
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in found and name in definitions:
                    found.add(name)
                    pending.append(definitions[name])
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found

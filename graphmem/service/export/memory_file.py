"""Import of the MCP reference memory server's file (``@modelcontextprotocol/server-memory``).

Its JSONL holds ``{"type": "entity", "name", "entityType", "observations": [...]}`` and
``{"type": "relation", "from", "to", "relationType"}`` lines. Each observation becomes one memory,
``"<entity>: <observation>"`` (an observation alone, "Speaks fluent Spanish", does not say whose it
is), with the entity name in ``entities`` and in ``tags`` and the entity type as a tag, so every
memory of an entity shares the entity's concept node and a tag filter finds them all. An entity with
no observations gets one memory naming it. A relation becomes a ``related`` relation from the first
memory of ``from`` to the first memory of ``to``; its own type (``works_at``) is kept as the reason
and in ``meta.relation_type``. Relations may name an entity the file does not define (the reference
server allows it): that entity gets a memory naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.service.memories.drafts import Observation, validate_observation
from graphmem.service.validation import check_strings
from graphmem.settings import LimitSettings
from graphmem.store.linked_writes import LinkDraft

__all__ = ["SOURCE", "MemoryFilePlan", "is_memory_file_record", "memory_file_problem", "plan_memory_file"]

SOURCE = "mcp-memory"  # the ``source`` of every memory this importer writes
NumberedRecord = tuple[int, dict[str, Any]]


def is_memory_file_record(record: dict[str, Any]) -> bool:
    """Whether a JSON line is the reference server's (graphmem's own relation records have
    ``source_id``; the reference server's have ``from``/``to``/``relationType``)."""
    kind = record.get("type")
    if kind == "entity":
        return True
    return kind == "relation" and "source_id" not in record and any(
        key in record for key in ("from", "to", "relationType"))


def memory_file_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with one reference-server line, or None."""
    fields = ("name", "entityType") if record["type"] == "entity" else ("from", "to", "relationType")
    bad = [name for name in fields if not isinstance(record.get(name), str) or not record[name].strip()]
    if bad:
        return f"{record['type']} needs {', '.join(bad)} as non-empty text"
    observations = record.get("observations", [])
    if record["type"] == "entity" and (not isinstance(observations, list)
                                       or not all(isinstance(item, str) for item in observations)):
        return "entity observations must be a list of strings"
    return None


@dataclass(frozen=True, slots=True)
class MemoryFilePlan:
    """Validated observations and the links between them, ready for one transaction."""

    observations: tuple[Observation, ...]
    links: tuple[LinkDraft, ...]
    entities: int
    relations: int


def plan_memory_file(records: Sequence[NumberedRecord], limits: LimitSettings) -> MemoryFilePlan:
    """Turn the file's entities and relations into observations and links; every invalid
    observation is reported with its line number and nothing is planned."""
    entities: dict[str, tuple[int, str, list[str]]] = {}  # name → (line, type, observations)
    for line, record in records:
        if record["type"] == "entity":  # the reference server merges a repeated entity's observations
            name = record["name"].strip()
            texts = entities.setdefault(name, (line, record["entityType"].strip(), []))[2]
            for text in record.get("observations", []):
                if text.strip() and text.strip() not in texts:
                    texts.append(text.strip())
    relations = [(line, record) for line, record in records if record["type"] == "relation"]
    for line, record in relations:
        for end in (record["from"].strip(), record["to"].strip()):
            entities.setdefault(end, (line, "", []))
    observations, first, errors = _observations(entities, limits)
    if errors:
        raise InvalidInput("import refused, nothing was written: " + "; ".join(errors[:20]))
    links = tuple(LinkDraft(
        source=first[record["from"].strip()], target=first[record["to"].strip()], type="related",
        reason=f"{record['from'].strip()} {record['relationType'].strip()} {record['to'].strip()}",
        meta={"relation_type": record["relationType"].strip(), "from": record["from"].strip(),
              "to": record["to"].strip(), "source_format": SOURCE}) for _, record in relations)
    return MemoryFilePlan(tuple(observations), links, entities=len(entities), relations=len(relations))


def _observations(entities: dict[str, tuple[int, str, list[str]]],
                  limits: LimitSettings) -> tuple[list[Observation], dict[str, int], list[str]]:
    observations: list[Observation] = []
    first: dict[str, int] = {}
    errors: list[str] = []
    for name, (line, entity_type, texts) in entities.items():
        first[name] = len(observations)
        contents = [f"{name}: {text}" for text in texts]
        contents = contents or [f"{name} ({entity_type})" if entity_type else name]
        meta = {"entity": name, "entity_type": entity_type, "source_format": SOURCE}
        try:
            tags = check_strings("tags", [name, entity_type], limits.max_tags, limits.max_tag_chars)
            observations.extend(validate_observation(limits, content=content, tags=tags, entities=[name],
                                                     source=SOURCE, meta=meta) for content in contents)
        except InvalidInput as error:
            errors.append(f"line {line}: entity {name[:40]!r}: {error}")
    return observations, first, errors

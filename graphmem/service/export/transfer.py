"""Export and import use cases: graphmem's lossless JSONL, plain observation JSONL, node-link JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from graphmem.errors import InvalidInput
from graphmem.service.export.memory_file import is_memory_file_record, memory_file_problem
from graphmem.service.export.record_checks import record_problem
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import META_MAX_DEPTH, check_json
from graphmem.store import transfer
from graphmem.store.changes import FACTS, MEMORIES, RELATIONS
from graphmem.store.engine import SCHEMA_VERSION

if TYPE_CHECKING:  # imported where a graph is built: networkx is 11 MiB of every server's fixed cost
    import networkx as nx

__all__ = ["ImportReport", "ParsedImport", "import_graph_records", "parse_import_lines", "write_jsonl",
           "write_node_link"]

_GRAPH_TYPES = {"header", "concept", "memory", "concept_edge", "relation", "session", "prompt", "fact"}
_REQUIRED = {
    "concept": ("key", "kind"),
    "memory": ("id", "content", "kind", "created_at", "last_used_at", "valid_from", "content_hash", "status"),
    "concept_edge": ("a", "b", "count"),
    "relation": ("id", "source_id", "target_id", "relation_type", "status", "created_at"),
    "session": ("id", "started_at", "last_activity_at"),
    "prompt": ("id", "content", "created_at"),
    "fact": ("id", "subject", "predicate", "object", "valid_from", "created_at"),
}


@dataclass(frozen=True, slots=True)
class ImportReport:
    format: str
    added: dict[str, int]
    duplicates: int = 0
    ids: tuple[str, ...] = ()


@dataclass(slots=True)
class ParsedImport:
    graph_records: list[dict[str, Any]] = field(default_factory=list)
    observations: list[dict[str, Any]] = field(default_factory=list)
    memory_file: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (line, record)


# A record wraps meta in at most a few levels (record → meta, or memory-file entity → observations).
_RECORD_NESTING = 3


def _refuse_constant(name: str) -> None:
    raise InvalidInput(f"{name} is not a JSON number (NaN and Infinity are refused)")


def parse_import_lines(lines: Iterable[str]) -> ParsedImport:
    """Parse and check every line; collect every bad line (with its number) before failing."""
    parsed = ParsedImport()
    errors: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, parse_constant=_refuse_constant)
            # Depth, finite numbers and valid Unicode here; each field's size is checked by its record kind.
            check_json("record", record, META_MAX_DEPTH + _RECORD_NESTING, max_chars=len(line))
        except json.JSONDecodeError as error:
            errors.append(f"line {number}: not JSON ({error.msg})")
            continue
        except RecursionError:  # deeper than the JSON parser's own stack: refused, never a traceback
            errors.append(f"line {number}: nested deeper than {META_MAX_DEPTH + _RECORD_NESTING} levels")
            continue
        except InvalidInput as error:
            errors.append(f"line {number}: {error}")
            continue
        problem = _classify(record, parsed, number)
        if problem:
            errors.append(f"line {number}: {problem}")
    if errors:
        shown = "; ".join(errors[:20]) + (f"; … {len(errors) - 20} more" if len(errors) > 20 else "")
        raise InvalidInput(f"import refused, nothing was written: {shown}")
    if parsed.graph_records and parsed.observations:
        raise InvalidInput("import refused: the file mixes graphmem export records with plain observations")
    if parsed.memory_file and (parsed.graph_records or parsed.observations):
        raise InvalidInput("import refused: the file mixes MCP memory-server lines with other records")
    return parsed


def _classify(record: Any, parsed: ParsedImport, number: int = 0) -> str | None:  # noqa: PLR0911 - one exit per record shape
    if not isinstance(record, dict):
        return "expected a JSON object"
    if is_memory_file_record(record):  # @modelcontextprotocol/server-memory: entity / relation lines
        problem = memory_file_problem(record)
        if problem is None:
            parsed.memory_file.append((number, record))
        return problem
    kind = record.get("type")
    if kind in _GRAPH_TYPES:
        if kind == "header":
            if record.get("format") != transfer.FORMAT:
                return f"unknown export format {record.get('format')!r}"
            if int(record.get("schema_version", 0)) > SCHEMA_VERSION:
                return "export is from a newer graphmem schema"
            return None
        missing = [name for name in _REQUIRED[kind] if record.get(name) is None]
        if missing:
            return f"{kind} record lacks {', '.join(missing)}"
        problem = record_problem(kind, record)
        if problem is None:
            parsed.graph_records.append(record)
        return problem
    if "content" in record:
        parsed.observations.append({k: v for k, v in record.items() if k != "type"})
        return None
    return "neither a graphmem export record nor an observation with 'content'"


def write_jsonl(engine: Any, stream: TextIO) -> int:
    """Write the lossless export; returns the number of records."""
    count = 0
    for record in transfer.export_records(engine, SCHEMA_VERSION):
        stream.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    return count


def write_node_link(graph: nx.Graph[Any], stream: TextIO) -> None:
    """networkx node-link JSON of a graph."""
    import networkx as nx  # here: the JSONL export and import, which every service loads, need none of it

    json.dump(nx.node_link_data(graph, edges="links"), stream, ensure_ascii=False, sort_keys=True, indent=1)


# Records per write of a graph-format import: each chunk commits on its own so the store's write lock
# is never held for long (the whole 100k-memory file in one transaction held it for over two minutes).
_IMPORT_CHUNK = 500
_TYPE_ORDER = ("concept", "memory", "concept_edge", "relation", "session", "prompt", "fact")


def import_graph_records(uow: UnitOfWork, records: list[dict[str, Any]]) -> ImportReport:
    """Merge graphmem's own export into the store, in chunks; the projection follows each chunk."""
    _refuse_dangling_relations(uow, records)
    imported = transfer.ImportedRows()
    for chunk in _chunks_in_order(records):
        with uow.write() as write:
            before = (len(imported.memory_ids), len(imported.relation_ids), len(imported.fact_ids))
            transfer.import_records(write.session, chunk, imported)
            write.changed(MEMORIES, imported.memory_ids[before[0]:])
            write.changed(RELATIONS, imported.relation_ids[before[1]:])
            write.changed(FACTS, imported.fact_ids[before[2]:])
    return ImportReport(format=transfer.FORMAT, added=imported.added)


def _chunks_in_order(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Records grouped by type in dependency order (concepts before the memories that mention them,
    memories before the relations that join them), then cut into chunks."""
    ordered = sorted(records, key=lambda record: _TYPE_ORDER.index(record["type"]))
    return [ordered[start : start + _IMPORT_CHUNK] for start in range(0, len(ordered), _IMPORT_CHUNK)]


def _refuse_dangling_relations(uow: UnitOfWork, records: list[dict[str, Any]]) -> None:
    # Checked before the first chunk commits: a relation to a memory in neither the file nor the store
    # would otherwise fail a late chunk after earlier ones were written.
    in_file = {record["id"] for record in records if record["type"] == "memory"}
    ends = {end for record in records if record["type"] == "relation"
            for end in (record["source_id"], record["target_id"])} - in_file
    if not ends:
        return
    with uow.read() as session:
        missing = transfer.missing_memories(session, ends)
    if missing:
        raise InvalidInput(f"import refused, nothing was written: relations name memories in neither the file "
                           f"nor the store: {', '.join(sorted(missing)[:10])}")

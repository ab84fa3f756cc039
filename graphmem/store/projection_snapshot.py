"""Projection snapshots: open a large store without rebuilding its graph from every row.

Building the projection reads every mention row (about ten seconds at 100k memories). A snapshot is the
projection's arrays written to one ``.npz`` file, tagged with the store generation it reflects. Opening
loads the snapshot and then follows the change log from that generation, exactly as a running process
follows another process's writes, so the result equals a fresh load.

A snapshot is used only when it provably belongs to this store's history: the change-log row of its
generation must still carry the commit time recorded in the snapshot (a store deleted and re-created
restarts its generations and fails this check), and the recall settings that shaped the edge weights
must be the same. Anything else falls back to a full load. Snapshots live beside a SQLite file
(``memory.db.projection.npz``) or, for a server database, in the user cache directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Engine

from graphmem.core.spreading_graph import SpreadingGraph
from graphmem.store.keyword_index import KeywordIndex
from graphmem.store.projection import _COLUMNS, CONCEPT, MEMORY, GraphProjection, RelationEdge, SeqIndex
from graphmem.store.semantic_index import SemanticIndex
from graphmem.store.tables import SCHEMA_VERSION

__all__ = ["load_snapshot", "save_snapshot", "snapshot_path"]

_FORMAT = 6  # 2: outcome and task_type columns, tools_used sets; 3: float32/int32 CSR, compact columns
# (concept kinds a column, df/use_count int32, length float32), accent-folded keys stored; 4: semantic vectors;
# 5: the keyword index; 6: memory vectors int8 with a scale per row (a format-5 snapshot still loads: its
# float16 rows are quantized on the way in; a reader of format 5 refuses a 6 and loads from the rows)
_READABLE = frozenset({5, _FORMAT})


def snapshot_path(engine: Engine) -> Path | None:
    """Where this store's snapshot lives (None for an in-memory store)."""
    database = engine.url.database
    if engine.dialect.name == "sqlite":
        return None if not database or database == ":memory:" else Path(f"{database}.projection.npz")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "graphmem"
    name = hashlib.sha256(engine.url.render_as_string(hide_password=True).encode()).hexdigest()[:24]
    return cache / f"{name}.projection.npz"


def save_snapshot(projection: GraphProjection, path: Path, engine: Engine, generation: int) -> None:
    """Write the projection at ``generation`` atomically (a reader never sees half a file)."""
    with projection.lock:
        arrays = {f"graph_{key}": value for key, value in projection.graph.state().items()}
        arrays |= {f"col_{name}": projection.col(name) for name in _COLUMNS}
        arrays |= projection.semantic.state()
        arrays |= projection.keywords.state()
        header = {"format": _FORMAT, "schema": SCHEMA_VERSION, "generation": generation,
                  "commit": _commit_time(engine, generation), "settings": _fingerprint(projection),
                  "names": projection.names, "codes": projection._codes, "folded": projection.folded_keys,
                  "compact": projection.semantic.compact, "semantic_edges": projection.semantic.edge_counts,
                  "tags": {str(node): sorted(tags) for node, tags in projection.tags.items()},
                  "tools": {str(node): sorted(tools) for node, tools in projection.tools.items()},
                  "relations": list(projection.relations.values()), "memory_count": projection.memory_count}
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".projection-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as stream:
            # numpy's stub has a keyword-only allow_pickle: bool that mypy matches **arrays against
            np.savez(stream, **arrays)  # type: ignore[arg-type]
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_snapshot(projection: GraphProjection, path: Path, engine: Engine, current_generation: int) -> int | None:
    """Fill an empty ``projection`` from the snapshot and return its generation, or None when there is
    no snapshot this store can use (the caller then loads from the rows)."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {key: stored[key] for key in stored.files}
    except (OSError, ValueError):
        return None
    header = json.loads(arrays.pop("header").tobytes())
    if not _belongs(header, projection, engine, current_generation):
        return None
    with projection.lock:
        _restore(projection, header, arrays)
    return int(header["generation"])


def _belongs(header: dict[str, Any], projection: GraphProjection, engine: Engine, current: int) -> bool:
    generation = int(header.get("generation", -1))
    return (header.get("format") in _READABLE and header.get("schema") == SCHEMA_VERSION
            and header.get("settings") == _fingerprint(projection) and 0 < generation <= current
            and header.get("commit") == _commit_time(engine, generation))


def _restore(projection: GraphProjection, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    projection.graph = SpreadingGraph.from_state(
        {key.removeprefix("graph_"): value for key, value in arrays.items() if key.startswith("graph_")})
    n = projection.graph.n_nodes
    for name, (dtype, fill) in _COLUMNS.items():
        column: np.ndarray = np.full(max(n, 1024), fill, dtype)
        column[:n] = arrays[f"col_{name}"]
        projection._cols[name] = column
    names: list[str] = header["names"]
    projection.names = names
    node_type, seq = arrays["col_node_type"], arrays["col_seq"]
    concept_nodes = np.flatnonzero(node_type == CONCEPT).tolist()
    projection.concept_nodes = {names[node]: node for node in concept_nodes}
    projection.folded_keys = header["folded"]
    memory_nodes = np.flatnonzero(node_type == MEMORY)
    projection.memory_nodes = {names[node]: node for node in memory_nodes.tolist()}
    projection.memory_by_seq = SeqIndex()
    projection.memory_by_seq.assign(seq[memory_nodes], memory_nodes)
    projection.tags = {int(node): frozenset(tags) for node, tags in header["tags"].items()}
    projection.tools = {int(node): frozenset(tools) for node, tools in header["tools"].items()}
    projection.relations = {edge[0]: RelationEdge(*edge) for edge in header["relations"]}
    projection._codes = header["codes"]
    projection.memory_count = int(header["memory_count"])
    projection.keywords = KeywordIndex.from_state(arrays)
    projection.semantic = SemanticIndex(projection.embedder, projection.semantic_settings)
    projection.semantic.restore(arrays, {form: int(node) for form, node in header.get("compact", {}).items()},
                                header.get("semantic_edges", {}))


def _fingerprint(projection: GraphProjection) -> str:
    # The semantic settings shape edges and vectors too; no embedder means none were made.
    semantic = projection.semantic_settings.model_dump() if projection.semantic.enabled else None
    return json.dumps({"activation": projection.settings.model_dump(), "semantic": semantic}, sort_keys=True)


def _commit_time(engine: Engine, generation: int) -> int | None:
    with engine.connect() as connection:
        return connection.execute(text("SELECT min(at) FROM change_log WHERE generation = :g"),
                                  {"g": generation}).scalar()

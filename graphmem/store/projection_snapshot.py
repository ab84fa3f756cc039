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

import functools
import hashlib
import io
import json
import mmap
import os
import struct
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Engine

from graphmem.core.spreading_graph import SpreadingGraph
from graphmem.store.collector import collector_paused
from graphmem.store.keyword_index import KeywordIndex
from graphmem.store.packed_names import PackedIndex, PackedStrings
from graphmem.store.projection import CONCEPT, MEMORY, GraphProjection, RelationEdge, SeqIndex
from graphmem.store.semantic_index import SemanticIndex
from graphmem.store.tables import SCHEMA_VERSION

__all__ = ["is_current_format", "load_snapshot", "save_snapshot", "snapshot_path"]

_FORMAT = 8  # 2: outcome and task_type columns, tools_used sets; 3: float32/int32 CSR, compact columns
# (concept kinds a column, df/use_count int32, length float32), accent-folded keys stored; 4: semantic vectors;
# 5: the keyword index; 6: memory vectors int8 with a scale per row (a format-5 snapshot still loads: its
# float16 rows are quantized on the way in; a reader of format 5 refuses a 6 and loads from the rows); 7: the
# names' start offsets and the name → node maps and the compact-form map as sorted keys (store/packed_names.py:
# the open builds no dict; a format-5 or 6 snapshot still loads, building them as before, and a reader of
# format 6 refuses a 7 and loads from the rows); 8: the memory fields by memory row, not by node, with the node → row
# column (store/node_columns.py; a format 5-7 snapshot still loads, its columns gathered to rows on the way in, and a
# reader of format 7 refuses an 8 and loads from the rows)
_READABLE = frozenset({5, 6, 7, _FORMAT})
# The store schemas whose rows a snapshot describes the same way: version 5 dropped only PostgreSQL's full-text
# column, which no projection reads, so a snapshot written under version 4 still fits the upgraded store.
_SCHEMAS = frozenset({4, SCHEMA_VERSION})


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
        arrays |= projection.columns.state(projection.graph.n_nodes)
        arrays |= projection.semantic.state()
        arrays |= projection.keywords.state()
        try:
            strings = _packed_names(projection)
            in_header = {}
        except ValueError:  # a name with a NUL in it (or a lone surrogate): the slower JSON header holds them
            strings, in_header = {}, {"names": list(projection.names), "compact": dict(projection.semantic.compact)}
        arrays |= strings
        header = {"format": _FORMAT, "schema": SCHEMA_VERSION, "generation": generation,
                  "commit": _commit_time(engine, generation), "settings": _fingerprint(projection),
                  "codes": projection._codes, "folded": projection.folded_keys,
                  "semantic_edges": projection.semantic.edge_counts, **in_header,
                  "tags": {str(node): sorted(tags) for node, tags in projection.tags.items()},
                  "tools": {str(node): sorted(tools) for node, tools in projection.tools.items()},
                  "relations": list(projection.relations.values()), "memory_count": projection.memory_count,
                  "memory_rows": projection.columns.rows}
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


def is_current_format(path: Path) -> bool:
    """Whether the snapshot at ``path`` is written in this version's format (an older one still loads, but a
    snapshot written again loads leaner: ``graphmem snapshot`` rewrites it)."""
    try:
        header = json.loads(_mapped(path)["header"].tobytes())
    except (OSError, ValueError, TypeError, KeyError, struct.error, zipfile.BadZipFile):
        return False
    return bool(header.get("format") == _FORMAT)


def load_snapshot(projection: GraphProjection, path: Path, engine: Engine, current_generation: int, *,
                  room: Callable[[int], int] | None = None) -> int | None:
    """Fill an empty ``projection`` from the snapshot and return its generation, or None when there is
    no snapshot this store can use (the caller then loads from the rows).

    ``room``: how many nodes of room to make for a projection of so many nodes (a partitioned server's project,
    whose first queries add guest concepts), made right away, while the mapped per-node arrays it replaces are
    released with the other members the projection did not keep (:func:`_release_unkept`)."""
    try:
        arrays = _mapped(path)
    except (OSError, ValueError, TypeError, struct.error, zipfile.BadZipFile):
        return None  # missing, empty or damaged (a member past the end of the file: TypeError): load the rows
    with collector_paused():
        header_bytes = arrays.pop("header")
        header = json.loads(header_bytes.tobytes())
        if not _belongs(header, projection, engine, current_generation):
            return None
        with projection.lock:
            _restore(projection, header, arrays)
            if room is not None:
                projection._reserve(room(projection.graph.n_nodes), 0)
        arrays["header"] = header_bytes
        del header_bytes
        _release_unkept(arrays)
    return int(header["generation"])


def _release_unkept(arrays: dict[str, np.ndarray]) -> None:
    """Give back the resident pages of the members the restored projection did not keep: the ones it copied (a
    partitioned server's word vectors, copied into the pool's shared table; per-node arrays grown for guests;
    arrays converted on the way in) and the header. Read once for the copy, their pages stayed mapped, and counted
    in the process's memory, as long as the projection held any other member of the file: 4.2 MiB of word vectors
    in each 9,091-memory project of the 1M-memory bench, beside the shared table's copy (docs/benchmarks.md).

    A member nothing else references (no array of the projection, no view of it: a view holds its base) is never
    read again, so dropping its pages loses nothing; only whole pages inside its own bytes are dropped, so a
    neighbour's pages stay. Where the system cannot, nothing is given back."""
    if not hasattr(mmap.mmap, "madvise") or not hasattr(mmap, "MADV_DONTNEED"):
        return
    origins: dict[int, int] = {}
    page = mmap.PAGESIZE
    for name in list(arrays):
        array = arrays.pop(name)
        mapped: object = array.base  # typed as an array or None; a member of the snapshot has the mapping
        # This name and getrefcount's argument: nothing the projection keeps refers to this member.
        if not isinstance(mapped, mmap.mmap) or sys.getrefcount(array) > 2 or array.nbytes < page:
            continue
        if id(mapped) not in origins:
            origins[id(mapped)] = np.frombuffer(mapped, dtype=np.uint8).ctypes.data
        start = array.ctypes.data - origins[id(mapped)]
        first, stop = -(-start // page) * page, (start + array.nbytes) // page * page
        if stop > first:
            mapped.madvise(mmap.MADV_DONTNEED, first, stop - first)


def _mapped(path: Path) -> dict[str, np.ndarray]:
    """The snapshot's arrays, mapped from the file rather than read: the open reads only their headers, and a
    page is read when it is first used (1M memories: 1.5 GB that ``np.load`` read and checksummed in 2-8 s).

    The mapping is copy-on-write, so the projection may change an array in place without touching the file,
    and a snapshot written over this one (``os.replace``) leaves the mapped file alive until the arrays go.
    ``np.savez`` stores every member uncompressed; a member that is not is read the ordinary way.
    """
    arrays: dict[str, np.ndarray] = {}
    # One open file for the mapping and the zip directory: opened twice by path, a snapshot written over this one
    # in between (``os.replace``) would pair one file's member offsets with the other file's bytes.
    with path.open("rb") as stream, zipfile.ZipFile(stream) as archive:
        mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
        for info in archive.infolist():
            name = info.filename.removesuffix(".npy")
            if info.compress_type != zipfile.ZIP_STORED:
                arrays[name] = np.load(io.BytesIO(archive.read(info)), allow_pickle=False)
                continue
            # The local header: 30 bytes, then the name and an extra field of its own lengths.
            name_length, extra_length = struct.unpack("<HH", mapped[info.header_offset + 26:info.header_offset + 30])
            start = info.header_offset + 30 + name_length + extra_length
            head = io.BytesIO(mapped[start:start + _npy_header_size(mapped, start, info.file_size)])
            version = np.lib.format.read_magic(head)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, fortran, dtype = read_header(head)
            if dtype.hasobject:
                raise ValueError(f"{info.filename}: object arrays are never written to a snapshot")
            arrays[name] = np.ndarray(shape, dtype, buffer=mapped, offset=start + head.tell(),
                                      order="F" if fortran else "C")
    return arrays


def _npy_header_size(mapped: mmap.mmap, start: int, size: int) -> int:
    """The bytes of the ``.npy`` header at ``start``: its magic, its length field and the header itself. Only
    those are read (a slice of a mapping reads its pages): a 128 KiB slice of every member made 0.2 MiB of each
    member of a project's snapshot resident at its load, members its queries never read among them (the compact
    forms' text: 0.19 of its 0.87 MiB, all from that slice and still resident after the queries)."""
    prefix = mapped[start:start + min(size, 12)]
    if len(prefix) < 10:
        return len(prefix)  # not an .npy member: read_magic refuses it
    if prefix[6] == 1:  # format 1.0: a 2-byte length after the 8-byte magic and version
        return min(size, 10 + int.from_bytes(prefix[8:10], "little"))
    return min(size, 12 + int.from_bytes(prefix[8:12], "little"))


def _belongs(header: dict[str, Any], projection: GraphProjection, engine: Engine, current: int) -> bool:
    generation = int(header.get("generation", -1))
    return (header.get("format") in _READABLE and header.get("schema") in _SCHEMAS
            and header.get("settings") == _fingerprint(projection) and 0 < generation <= current
            and header.get("commit") == _commit_time(engine, generation))


def _restore(projection: GraphProjection, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    projection.graph = SpreadingGraph.from_state(  # the per-node arrays taken as saved, like the columns
        {key.removeprefix("graph_"): value for key, value in arrays.items() if key.startswith("graph_")}, copy=False)
    if "col_memory_row" in arrays:  # taken as saved (mapped copy-on-write); the first node added grows them
        projection.columns.restore(arrays, int(header["memory_rows"]))
    else:
        projection.columns.restore_by_node(arrays, MEMORY)
    _restore_names(projection, header, arrays)
    projection.folded_keys = header["folded"]
    memory_nodes = np.flatnonzero(arrays["col_node_type"] == MEMORY)
    projection.memory_by_seq = SeqIndex()
    projection.memory_by_seq.assign(arrays["col_seq"][memory_nodes], memory_nodes)
    projection.tags = {int(node): frozenset(tags) for node, tags in header["tags"].items()}
    projection.tools = {int(node): frozenset(tools) for node, tools in header["tools"].items()}
    projection.relations = {edge[0]: RelationEdge(*edge) for edge in header["relations"]}
    projection._codes = header["codes"]
    projection.memory_count = int(header["memory_count"])
    projection.keywords = KeywordIndex.from_state(arrays)
    projection.semantic = SemanticIndex(projection.embedder, projection.semantic_settings, projection.word_table)
    projection.semantic.restore(arrays, _restored_compact(header, arrays), header.get("semantic_edges", {}))


def _restored_compact(header: dict[str, Any], arrays: dict[str, np.ndarray]) -> PackedIndex | Callable[[], PackedIndex]:
    """The compact-form map as saved, or (format 5 or 6) what builds it when first read."""
    if "compact" in header:
        return PackedIndex(header["compact"])
    if "compact_keys" not in arrays:  # the forms NUL-separated, no keys
        return functools.partial(_compact_map, arrays["compact_text"], arrays["compact_nodes"])
    forms = PackedStrings.packed(arrays["compact_text"], arrays["compact_starts"])
    return PackedIndex.packed(forms, arrays["compact_keys"], arrays["compact_slots"], arrays["compact_nodes"])


# Names and compact forms are NUL-separated UTF-8 with each one's start offset, and each map is its keys sorted
# with their slots (store/packed_names.py): the JSON header held 3.5M names and 2.5M forms at 1M memories (198 MB,
# 8.5 s to parse), and dicts built from the split names took 2 s of a 3.3 s open. A name holding a NUL (none
# should: concept keys are normalised text, memory ids ASCII) sends them all back to the header.
_SEPARATOR = "\x00"


def _packed_names(projection: GraphProjection) -> dict[str, np.ndarray]:
    """The names, the two node maps and the compact-form map as arrays; raises ValueError for a name :func:`pack`
    refuses."""
    names_text, names_starts = projection.names.state()
    concept_keys, concept_slots = projection.concept_nodes.state()
    memory_keys, memory_slots = projection.memory_nodes.state()
    compact_text, compact_starts, compact_keys, compact_slots, compact_nodes = projection.semantic.compact.own_state()
    return {"names_text": names_text, "names_starts": names_starts,
            "concept_keys": concept_keys, "concept_slots": concept_slots,
            "memory_keys": memory_keys, "memory_slots": memory_slots,
            "compact_text": compact_text, "compact_starts": compact_starts, "compact_keys": compact_keys,
            "compact_slots": compact_slots, "compact_nodes": compact_nodes}


def _restore_names(projection: GraphProjection, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """The names and the node maps: taken as saved (format 7), or built from the header's list or the split
    names as a format-6 snapshot held them."""
    if "names" not in header and "names_starts" in arrays:
        names = PackedStrings.packed(arrays["names_text"], arrays["names_starts"])
        projection.names = names
        projection.concept_nodes = PackedIndex.packed(names, arrays["concept_keys"], arrays["concept_slots"])
        projection.memory_nodes = PackedIndex.packed(names, arrays["memory_keys"], arrays["memory_slots"])
        return
    listed: list[str] = header["names"] if "names" in header else _split(arrays["names_text"])
    projection.names = PackedStrings(listed)
    node_type = arrays["col_node_type"]
    for kind, attribute in ((CONCEPT, "concept_nodes"), (MEMORY, "memory_nodes")):
        nodes = np.flatnonzero(node_type == kind).tolist()
        setattr(projection, attribute, PackedIndex(dict(zip([listed[node] for node in nodes], nodes, strict=True))))


def _compact_map(forms: np.ndarray, nodes: np.ndarray) -> PackedIndex:
    return PackedIndex(dict(zip(_split(forms), nodes.tolist(), strict=True)))


def _split(array: np.ndarray) -> list[str]:
    return array.tobytes().decode().split(_SEPARATOR)[:-1]


# The settings that shape what the projection holds (its edges, their weights, its vectors); the others (the
# walk, the seeds' weights, the gate, the fusion, the weights of names and turns) act on a query only, so changing
# them keeps the snapshot: a new default among them cost a 1M-memory store a 3-minute load from the rows.
_PROJECTED_ACTIVATION = ("relation_weight", "hub_cap", "topic_exponent", "cooccurrence", "cooccurrence_weight",
                         "cooccurrence_saturation")
_PROJECTED_SEMANTIC = ("enabled", "related_k", "related_threshold", "related_weight", "join_weight")


def _fingerprint(projection: GraphProjection) -> str:
    # No embedder means no vectors or semantic edges were made.
    settings = projection.semantic_settings
    semantic = ({name: getattr(settings, name) for name in _PROJECTED_SEMANTIC}
                if projection.semantic.enabled else None)
    activation = {name: getattr(projection.settings, name) for name in _PROJECTED_ACTIVATION}
    return json.dumps({"activation": activation, "semantic": semantic}, sort_keys=True)


def _commit_time(engine: Engine, generation: int) -> int | None:
    with engine.connect() as connection:
        return connection.execute(text("SELECT min(at) FROM change_log WHERE generation = :g"),
                                  {"g": generation}).scalar()

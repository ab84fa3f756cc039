"""Per-project bench (issue 26): what a server holding only the projects it serves costs, against one that
projects the whole store.

    python scripts/bench_projects.py --db /tmp/projects/projects.db --memories 100000 --projects 100

The store holds ``--memories`` memories in ``--projects`` projects: project ``p00`` holds a tenth of them (10k
at 100k, the project whose snapshot load is timed), the others share the rest evenly, and the projects'
rows are interleaved (every project writes all the time), so a project's rows are spread over the whole
file: the worst case for a per-project read. The text is the scale bench's (half agent notes, half chat
turns). A missing store is built first (kept for the next run). Then, each in a fresh process:

* **full**: ``MemoryService`` opens the whole store (its projection snapshot), runs the queries of the 5
  served projects (``p01``–``p05``, each query filtered by its project); peak RSS, open time, p50s, and the
  top-10 of every query;
* **scoped**: a process that projects only the 5 served projects (``graphmem.store.project_scope``) runs the
  same queries; peak RSS, load time from the rows per project, p50s, and the top-10 overlap with the full
  process's (how far a per-project projection's ranking moves from the whole store's); then the first
  query of a cold project (``p06``: load from the rows + the query), the save and load of ``p00``'s
  per-project snapshot, and the cold first query from that snapshot;
* **baseline**: the same process on a store of one memory (so the embedding model loads), the RSS every
  server pays before it holds the store.

    python scripts/bench_projects.py --db /tmp/projects/projects.db --pool --json pool.json

instead measures the built pool (``projection.partition = "project"``) against the whole-store server:
**pool** opens a partitioned ``MemoryService``, whose first query to each served project loads that project
(timed), runs the same queries (p50s, RSS, top-10 overlap with the whole store's), then the first query to a
cold project from its rows (``p06``), to ``p00`` and ``p07`` from the snapshots a previous partitioned process
wrote when it closed (``pool-prepare``), and last the queries with no project filter (the whole store's projection,
loaded on demand: its first query, p50 and RSS). The served projects load from their rows; with
``--served-from snapshots`` from their snapshots instead, as a server finds them once ``graphmem snapshot`` wrote
them ahead (pool-prepare writes the missing or stale ones). Before each process the snapshots it maps (the whole
store's and the projects') are dropped from the page cache, and the RSS is also split into anonymous and
file-backed (mapped) pages.

The script imports graphmem from its own tree (it puts the tree first on ``sys.path``): to compare two trees, run
each tree's copy of the script (``PYTHONPATH`` does not choose).

Results go to ``--json``; ``--table`` prints the Markdown table of docs/benchmarks.md.

    python scripts/bench_projects.py --derive-from SCALE.db --db /tmp/projects/p1m.db --memories 1000000

instead makes the store from a copy of a ``bench_scale`` store of the same corpus (minutes, where writing it takes
over an hour): :func:`derive`, and docs/benchmarks.md ("The pool at 1M, again") for what it changes and checks.

    python scripts/bench_projects.py --changelog 5000

instead times what the change log adds to a write on a private PostgreSQL server
(``scripts/private_postgres.py``, durability off) and on SQLite: ``--changelog`` transactions that each bump
the store generation and log one memory id (a write's own bookkeeping, without its rows), from one thread
and from four at once, and the log's bytes per generation.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
sys.path.insert(0, str(_HERE.parent))

import conversation_synthetic  # noqa: E402
import synthetic  # noqa: E402
from bench_scale import _corpus, _rss_mib  # noqa: E402

SERVED = ("p01", "p02", "p03", "p04", "p05")
COLD, BIG, SMALL = "p06", "p00", "p07"  # SMALL: a cold small project whose snapshot a previous process wrote
_QUERIES_PER_PROJECT = 20
_CHUNK = 10_000


def _project(index: int, projects: int) -> str:
    # Records alternate notes and chat turns; pairs keep both kinds in every project.
    return BIG if (index // 2) % 10 == 0 else f"p{1 + index % (projects - 1):02d}"


def build(db: Path, memories: int, projects: int) -> None:
    """Write the store and, beside it, the queries of every project (``<db>.queries.json``)."""
    from graphmem import MemoryService, Settings

    service = MemoryService(Settings.load(environ={}, db=str(db)))
    corpus = _corpus()
    kept: dict[str, dict[str, list[dict[str, object]]]] = {}
    stored, start = 0, time.perf_counter()
    while stored < memories:
        records = []
        for index in range(stored, min(stored + _CHUNK, memories)):
            record = dict(next(corpus))
            kind = "chats" if str(record["project"]).startswith("conv-") else "notes"
            record["project"] = _project(index, projects)
            pool = kept.setdefault(str(record["project"]), {"notes": [], "chats": []})[kind]
            if len(pool) < 50:
                pool.append(record)
            records.append(record)
        service.store_many(records)
        stored += len(records)
        print(f"  {stored:,} stored, {stored / (time.perf_counter() - start):,.0f} obs/s", file=sys.stderr,
              flush=True)
    service.write_snapshots()
    service.close()
    _write_queries(db, kept)


def _write_queries(db: Path, kept: dict[str, dict[str, list[dict[str, object]]]]) -> None:
    half = _QUERIES_PER_PROJECT // 2
    queries = {project: synthetic.queries(pools["notes"], half, seed=7)
               + conversation_synthetic.queries(pools["chats"], half, seed=8) for project, pools in kept.items()}
    Path(f"{db}.queries.json").write_text(json.dumps(queries), encoding="utf-8")


def derive(db: Path, source: Path, memories: int, projects: int) -> dict[str, int]:
    """The store ``build`` writes, derived from a copy of a scale-bench store of the same corpus.

    ``bench_scale`` stores ``_corpus()`` in the same order, each record in its own project (846 of them), so
    its memories, concepts, mentions and co-occurrences are the ones ``build`` writes (concept df is
    store-wide either way). What differs is the project, and what hangs on it: each memory is matched to its
    corpus record (original project and content hash, in order) and given ``_project(index)``; a memory whose
    content an earlier memory of its *new* project already holds is deleted (``build`` would have deduped it:
    its mentions go and its concepts' df drop; its co-occurrence counts stay); the full-text index is rebuilt
    (its ``scope`` column is the project); the sessions become one per project, as automatic sessions are.
    Records the scale store deduped in their original project are missing here (1,354 of 1M). ``source`` is
    only read.
    """
    import hashlib
    import shutil
    import sqlite3

    from graphmem.ids import new_id
    from graphmem.service.validation import normalize_content

    shutil.copyfile(source, db)
    connection = sqlite3.connect(db)
    rows = connection.execute("SELECT seq, project_key, content_hash FROM memory ORDER BY seq")
    corpus, kept = _corpus(), {}
    assigned: list[tuple[str, int]] = []
    seen: set[tuple[str, str]] = set()
    dropped: list[int] = []
    row = rows.fetchone()
    for index in range(memories):
        record = dict(next(corpus))
        kind = "chats" if str(record["project"]).startswith("conv-") else "notes"
        project = _project(index, projects)
        pool = kept.setdefault(project, {"notes": [], "chats": []})[kind]
        if len(pool) < 50:
            pool.append(record | {"project": project})
        digest = hashlib.sha256(normalize_content(str(record["content"])).encode()).hexdigest()
        if row is None or (row[1], row[2]) != (record["project"], digest):
            continue  # the scale store deduped it in its original project
        if (project, digest) in seen:
            dropped.append(row[0])
        else:
            seen.add((project, digest))
            assigned.append((project, row[0]))
        row = rows.fetchone()
    if row is not None:
        raise RuntimeError(f"memory seq {row[0]} matches no corpus record: not a scale store of this corpus")
    _reassign(connection, assigned, dropped, new_id)
    connection.close()
    _write_queries(db, kept)
    return {"memories": len(assigned), "dropped": len(dropped)}


def _reassign(connection: Any, assigned: list[tuple[str, int]], dropped: list[int],
              new_id: Callable[[str], str]) -> None:
    trigger = connection.execute("SELECT sql FROM sqlite_master WHERE name = 'memory_fts_au'").fetchone()[0]
    with connection:
        connection.execute("DROP TRIGGER memory_fts_au")
        connection.executemany("UPDATE concept SET df = df - 1 WHERE seq IN "
                               "(SELECT concept_seq FROM mention WHERE memory_seq = ?)", [(s,) for s in dropped])
        connection.executemany("DELETE FROM mention WHERE memory_seq = ?", [(s,) for s in dropped])
        connection.executemany("DELETE FROM memory WHERE seq = ?", [(s,) for s in dropped])
        connection.execute("CREATE TEMP TABLE assigned (seq INTEGER PRIMARY KEY, project TEXT)")
        connection.executemany("INSERT INTO assigned VALUES (?, ?)", [(s, p) for p, s in assigned])
        connection.execute("UPDATE memory SET project = a.project, project_key = a.project FROM assigned a "
                           "WHERE a.seq = memory.seq")
        connection.execute("DELETE FROM session")
        spans = connection.execute("SELECT project, min(created_at), max(created_at) FROM memory GROUP BY project")
        for project, first, last in spans.fetchall():
            session_id = new_id("ses")
            connection.execute("INSERT INTO session (id, project, client, started_at, last_activity_at, ended_at, "
                               "timeout_s) VALUES (?, ?, NULL, ?, ?, NULL, 7200)", (session_id, project, first, last))
            connection.execute("UPDATE memory SET session_id = ? WHERE project_key = ?", (session_id, project))
        connection.execute("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')")
        connection.execute(trigger)
        connection.execute("UPDATE store_generation SET generation = generation + 1")
    connection.execute("VACUUM")


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = call()
    return (time.perf_counter() - start) * 1000, result


def _run_queries(service: Any, queries: dict[str, list[str]], projects: tuple[str, ...] = SERVED) -> dict[str, Any]:
    search_ms, associate_ms, tops = [], [], {}
    for project in projects:
        for query in queries[project][:3]:  # warm-up
            service.search(query, project=project)
        for query in queries[project]:
            elapsed, found = _timed(lambda q=query, p=project: service.search(q, project=p, limit=10))
            search_ms.append(elapsed)
            tops[f"{project}|{query}"] = [hit.id for hit in found.hits]
            elapsed, _ = _timed(lambda q=query, p=project: service.associate(q, project=p))
            associate_ms.append(elapsed)
    return {"search_p50_ms": statistics.median(search_ms), "associate_p50_ms": statistics.median(associate_ms),
            "tops": tops}


def _scoped_service(db: str, projects: tuple[str, ...], timings: dict[str, float]) -> Any:
    """A ``MemoryService`` whose unit of work projects only ``projects`` (each loaded and timed on its own
    first, then all together as the served projection)."""
    from graphmem import MemoryService, Settings
    from graphmem.service import memory_service, unit_of_work
    from graphmem.store.project_scope import load_projects

    class ScopedUnitOfWork(unit_of_work.UnitOfWork):
        # Overrides the load, not ``_open_projection``: that one reads ``self.projection``, whose property opens
        # the projection when there is none yet (it recursed without end).
        def _load(self, projection: Any) -> int:
            for project in projects:
                single = type(projection)(self.settings.activation, self.settings.semantic, projection.embedder)
                timings[project], _ = _timed(lambda p=project, s=single: load_projects(s, self.engine, [p]))
            timings["all_served"], generation = _timed(lambda: load_projects(projection, self.engine, projects))
            self._loaded_from = "rows"
            return int(generation)

    memory_service.UnitOfWork = ScopedUnitOfWork  # type: ignore[misc]  # this process only
    return MemoryService(Settings.load(environ={}, db=db))


def measure(mode: str, db: str, queries_path: str, served_from: str = "rows") -> dict[str, Any]:
    from graphmem import MemoryService, Settings

    queries: dict[str, list[str]] = json.loads(Path(queries_path).read_text(encoding="utf-8"))
    before = _rss_mib()
    if mode == "full":
        open_ms, service = _timed(lambda: MemoryService(Settings.load(environ={}, db=db)))
        result = {"open_ms": open_ms, "memories": service.projection.memory_count, **_run_queries(service, queries),
                  "served_memory_mib": memory_kinds(), "cold_tops": _run_queries(service, queries, (COLD,))["tops"]}
    elif mode == "pool":
        result = measure_pool(db, queries, served_from)
        service = result.pop("_service")
    elif mode == "pool-prepare":
        return prepare_pool(db, queries, served_from)
    elif mode == "baseline":
        with tempfile.TemporaryDirectory() as folder:
            service = MemoryService(Settings.load(environ={}, db=str(Path(folder) / "empty.db")))
            service.store("One memory, so that the embedding model loads as in a serving process", project="p01")
            service.search("embedding model loads", project="p01")
            result = {}
    else:
        timings: dict[str, float] = {}
        open_ms, service = _timed(lambda: _scoped_service(db, SERVED, timings))
        result = {"open_ms": open_ms, "load_ms": timings, "memories": service.projection.memory_count,
                  **_run_queries(service, queries)}
        # The served process's RSS before the cold-project experiments (which load a 10k-memory project more).
        result |= {"served_peak_rss_mib": _rss_mib("VmHWM"), "served_rss_mib": _rss_mib()}
        result |= _cold_project(service, db, queries)
        result |= _unfiltered(service, queries)
    result |= {"rss_before_mib": before, "peak_rss_mib": _rss_mib("VmHWM"), "rss_mib": _rss_mib()}
    result.setdefault("served_peak_rss_mib", result["peak_rss_mib"])
    result.setdefault("served_rss_mib", result["rss_mib"])
    service.close()
    return result


def memory_kinds() -> dict[str, float]:
    """This process's resident memory by kind (``/proc/self/smaps_rollup``, MiB): anonymous (the heap, arrays read
    or copied) and file-backed (mapped snapshots, libraries), where the system provides it."""
    kinds: dict[str, float] = {}
    try:
        with open("/proc/self/smaps_rollup") as rollup:
            for line in rollup:
                name, _, rest = line.partition(":")
                if name in ("Rss", "Anonymous", "Private_Clean", "Shared_Clean", "Private_Dirty"):
                    kinds[name] = int(rest.split()[0]) / 1024
    except OSError:
        pass
    return kinds


def measure_pool(db: str, queries: dict[str, list[str]], served_from: str = "rows") -> dict[str, Any]:
    """The partitioned server (see the module docstring)."""
    from graphmem import MemoryService, Settings

    partitioned = Settings.load(environ={}, db=db, projection={"partition": "project"})
    open_ms, service = _timed(lambda: MemoryService(partitioned))
    pool = service.uow.pool
    assert pool is not None
    # The cold project loads from its rows, and so do the served ones unless they are served from the snapshots
    # written ahead (`served_from == "snapshots"`, written by `graphmem snapshot` or the pool-prepare process): a
    # previous run's evictions (the whole store's load below pushes them out) left their snapshots, and this run
    # writes none.
    for project in (*(SERVED if served_from == "rows" else ()), COLD):
        path = pool.snapshot_of(project)
        if path is not None:
            path.unlink(missing_ok=True)
    pool._save = lambda project, entry, engine: None  # type: ignore[method-assign]  # this process only
    first_ms = {}
    for project in SERVED:  # the first query of each: its load (rows or snapshot) + search
        first_ms[project], _ = _timed(lambda p=project: service.search(queries[p][0], project=p, limit=10))
    loaded_rss = _rss_mib()
    from_snapshot = [project for project, entry in pool.held().items() if entry.saved > 0]
    result: dict[str, Any] = {"open_ms": open_ms, "first_query_ms": first_ms, "served_from": served_from,
                              "served_from_snapshot": from_snapshot, "served_loaded_rss_mib": loaded_rss,
                              **_run_queries(service, queries)}
    result |= {"memories": sum(entry.projection.memory_count for entry in pool.held().values()),
               "pool_estimated_mib": pool.nbytes / 2**20,
               "served_peak_rss_mib": _rss_mib("VmHWM"), "served_rss_mib": _rss_mib(),
               "served_memory_mib": memory_kinds()}
    result["cold_rows_first_query_ms"], _ = _timed(lambda: service.search(queries[COLD][0], project=COLD, limit=10))
    result["cold_tops"] = _run_queries(service, queries, (COLD,))["tops"]
    before = _rss_mib()
    result["big_snapshot_first_query_ms"], _ = _timed(lambda: service.search(queries[BIG][0], project=BIG, limit=10))
    result["big_snapshot_rss_mib"] = _rss_mib() - before
    result["big_from_snapshot"] = pool.held()[BIG].saved > 0
    result["big_memories"] = pool.held()[BIG].projection.memory_count
    result["small_snapshot_first_query_ms"], _ = _timed(
        lambda: service.search(queries[SMALL][0], project=SMALL, limit=10))
    result["small_from_snapshot"] = pool.held()[SMALL].saved > 0
    result["small_memories"] = pool.held()[SMALL].projection.memory_count
    result["rss_before_unfiltered_mib"] = _rss_mib()
    unfiltered = [query for project in SERVED for query in queries[project][:4]]
    result["unfiltered_first_query_ms"], _ = _timed(lambda: service.search(unfiltered[0], limit=10))
    elapsed = [_timed(lambda q=query: service.search(q, limit=10))[0] for query in unfiltered]
    result["unfiltered_search_p50_ms"] = statistics.median(elapsed)
    result["unfiltered_rss_mib"] = _rss_mib()
    result["loads"] = pool.loads
    return result | {"_service": service}


def prepare_pool(db: str, queries: dict[str, list[str]], served_from: str = "rows") -> dict[str, Any]:
    """A partitioned process that serves ``p00`` and ``p07`` once and closes, writing their snapshots; with
    ``served_from == "snapshots"`` it first brings the served projects' snapshots up to date, as ``graphmem
    snapshot`` does (a current one is left as it is)."""
    from graphmem import MemoryService, Settings

    service = MemoryService(Settings.load(environ={}, db=db, projection={"partition": "project"}))
    written = [] if served_from == "rows" else service.uow.write_snapshots(list(SERVED))
    service.search(queries[BIG][0], project=BIG, limit=10)
    service.search(queries[SMALL][0], project=SMALL, limit=10)
    pool = service.uow.pool
    path = None if pool is None else pool.snapshot_of(BIG)
    folder = None if path is None else path.parent
    service.close()
    return {"snapshot": str(path), "bytes": path.stat().st_size if path is not None and path.exists() else 0,
            "served_written": [entry.written for entry in written], "folder": str(folder)}


def format_pool_table(results: dict[str, Any]) -> str:
    full, pool, base = results["full"], results["pool"], results["baseline"]
    firsts = list(pool["first_query_ms"].values())
    above = pool["served_rss_mib"] - base["rss_mib"]
    rows = [
        ("memories projected", f"{full['memories']:,}", f"{pool['memories']:,} (5 projects)"),
        ("open (ms)", f"{full['open_ms']:,.0f}", f"{pool['open_ms']:,.0f} (nothing loaded)"),
        (f"first query to each served project: load from the {pool.get('served_from', 'rows')} + search (ms)", "",
         f"{min(firsts):,.0f}–{max(firsts):,.0f}"),
        ("RSS after the served queries (MiB)", f"{full['served_rss_mib']:,.0f}",
         f"{pool['served_rss_mib']:,.0f} ({pool['served_rss_mib'] / full['served_rss_mib']:.1%})"),
        ("RSS above the one-memory process (MiB)", f"{full['served_rss_mib'] - base['rss_mib']:,.0f}",
         f"{above:,.0f} ({above / (full['served_rss_mib'] - base['rss_mib']):.0%}; pool's own estimate "
         f"{pool['pool_estimated_mib']:,.0f})"),
    ]
    if "served_memory_mib" in pool and "served_memory_mib" in full:  # anonymous / file-backed (mapped) pages
        whole, partitioned = (f"{kind.get('Anonymous', 0):,.0f} / {kind.get('Rss', 0) - kind.get('Anonymous', 0):,.0f}"
                              for kind in (full["served_memory_mib"], pool["served_memory_mib"]))
        rows.append(("of it anonymous / file-backed (MiB)", whole, partitioned))
    rows += [
        ("memory_search p50 (ms)", f"{full['search_p50_ms']:.1f}", f"{pool['search_p50_ms']:.1f}"),
        ("memory_associate p50 (ms)", f"{full['associate_p50_ms']:.1f}", f"{pool['associate_p50_ms']:.1f}"),
        ("top-10 overlap with the whole store's", "1.00", f"{results['overlap']:.2f}"),
        (f"first query to cold {COLD} ({results['cold_memories']:,} memories, from the rows) (ms)", "",
         f"{pool['cold_rows_first_query_ms']:,.0f} (top-10 overlap {results['cold_overlap']:.2f})"),
        (f"first query to cold {BIG} ({pool['big_memories']:,} memories, from its snapshot) (ms)", "",
         f"{pool['big_snapshot_first_query_ms']:,.0f} (+{pool['big_snapshot_rss_mib']:,.0f} MiB RSS)"),
        (f"first query to cold {SMALL} ({pool['small_memories']:,} memories, from its snapshot) (ms)", "",
         f"{pool['small_snapshot_first_query_ms']:,.0f}"),
        ("no project filter: first query, loads the whole store's projection (ms)", "",
         f"{pool['unfiltered_first_query_ms']:,.0f}"),
        ("no project filter: memory_search p50 (ms)", "", f"{pool['unfiltered_search_p50_ms']:.1f}"),
        ("RSS once the whole store's projection is held too (MiB)", "", f"{pool['unfiltered_rss_mib']:,.0f}"),
    ]
    lines = ["| measure | whole-store server | partitioned server (`projection.partition = \"project\"`) |",
             "|---|---|---|"]
    lines += [f"| {name} | {a} | {b} |" for name, a, b in rows]
    lines += ["", f"one-memory process: RSS {base['rss_mib']:,.0f} MiB"]
    return "\n".join(lines)


def _unfiltered(service: Any, queries: dict[str, list[str]]) -> dict[str, Any]:
    """A query with no project filter on a per-project server: keyword-first over the database (the store-wide
    full-text index, 100 candidates, their projects read back), then the projects those hits touch."""
    from sqlalchemy import bindparam, text

    lookup = text("SELECT seq, project_key FROM memory WHERE seq IN :seqs").bindparams(
        bindparam("seqs", expanding=True))
    elapsed, touched10, touched100 = [], [], []
    for project in SERVED:
        for query in queries[project]:
            start = time.perf_counter()
            ranked = service.uow.repository.bm25(query, 100)
            with service.engine.connect() as connection:
                projects = dict(connection.execute(lookup, {"seqs": [seq for seq, _ in ranked] or [-1]}).all())
            elapsed.append((time.perf_counter() - start) * 1000)
            touched10.append(len({projects[seq] for seq, _ in ranked[:10]}))
            touched100.append(len({projects[seq] for seq, _ in ranked}))
    return {"unfiltered_keyword_p50_ms": statistics.median(elapsed),
            "unfiltered_projects_top10_p50": statistics.median(touched10),
            "unfiltered_projects_top100_p50": statistics.median(touched100)}


def _cold_project(service: Any, db: str, queries: dict[str, list[str]]) -> dict[str, Any]:
    """The first query of a project the process does not hold yet, from the rows and from its snapshot."""
    from graphmem.store.project_scope import load_projects
    from graphmem.store.projection import GraphProjection
    from graphmem.store.projection_snapshot import load_snapshot, save_snapshot

    uow = service.uow

    def fresh_projection() -> GraphProjection:
        return GraphProjection(uow.settings.activation, uow.settings.semantic, uow.projection.embedder)

    loaded: dict[str, int] = {}

    grown: dict[str, float] = {}

    def first_query(project: str, load: Callable[[GraphProjection], Any]) -> tuple[float, float]:
        cold = fresh_projection()
        before = _rss_mib()
        load_ms, _ = _timed(lambda: load(cold))
        grown[project] = _rss_mib() - before  # what holding the project adds (from a snapshot: no transient)
        loaded[project] = cold.memory_count  # an unusable snapshot would leave it empty
        served, uow._projection = uow.projection, cold
        try:
            query_ms, _ = _timed(lambda: service.search(queries[project][0], project=project, limit=10))
            if project == COLD:  # a projection of this one project: its ranking against the whole store's
                cold_tops.update(_run_queries(service, queries, (COLD,))["tops"])
        finally:
            uow._projection = served
        return load_ms, query_ms

    cold_tops: dict[str, list[str]] = {}
    rows_load, rows_query = first_query(COLD, lambda p: load_projects(p, uow.engine, [COLD]))
    big = fresh_projection()
    big_rows_ms, generation = _timed(lambda: load_projects(big, uow.engine, [BIG]))
    path = Path(f"{db}.{BIG}.projection.npz")
    save_ms, _ = _timed(lambda: save_snapshot(big, path, uow.engine, generation))
    current = uow.router.generation(uow.engine)
    snap_load, snap_query = first_query(BIG, lambda p: load_snapshot(p, path, uow.engine, current))
    return {"cold_rows_load_ms": rows_load, "cold_rows_query_ms": rows_query, "big_memories": big.memory_count,
            "big_rows_load_ms": big_rows_ms, "big_snapshot_save_ms": save_ms, "big_snapshot_bytes": path.stat().st_size,
            "big_snapshot_load_ms": snap_load, "big_snapshot_query_ms": snap_query,
            "big_snapshot_memories": loaded[BIG], "cold_memories_loaded": loaded[COLD],
            "big_snapshot_rss_mib": grown[BIG], "cold_tops": cold_tops}


def uncache(path: Path) -> None:
    """Drop ``path``'s pages from the page cache (nothing when it is missing or the system cannot).

    A whole-store server maps its snapshot, and a page fault also maps the neighbouring pages already cached: the
    same queries left 715 MiB of the 1M-memory store's snapshot resident from a cold cache and 947 MiB right after
    the file was written (docs/benchmarks.md), so a run drops it first to measure what its queries read.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    except (AttributeError, OSError):
        pass  # no posix_fadvise here: the cache stays as it is
    finally:
        os.close(descriptor)


def _in_fresh_process(mode: str, db: Path, served_from: str = "rows") -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--measure", mode, "--db", str(db), "--served-from", served_from],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"measuring {mode} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def overlap(full: dict[str, list[str]], scoped: dict[str, list[str]]) -> float:
    """Mean share of the full projection's top-10 the scoped one also returns (1.0: the same sets)."""
    shares = [len(set(full[key]) & set(scoped[key])) / len(full[key]) for key in full if full[key]]
    return statistics.mean(shares) if shares else 1.0


def format_table(results: dict[str, Any]) -> str:
    full, scoped, base = results["full"], results["scoped"], results["baseline"]
    loads = [scoped["load_ms"][p] for p in SERVED]
    rows = [
        ("memories projected", f"{full['memories']:,}", f"{scoped['memories']:,} (5 projects)"),
        ("open to a ready projection (ms)", f"{full['open_ms']:,.0f}",
         f"{scoped['open_ms']:,.0f} (rows; per project {min(loads):,.0f}–{max(loads):,.0f})"),
        ("peak RSS after open + queries (MiB)", f"{full['served_peak_rss_mib']:,.0f}",
         f"{scoped['served_peak_rss_mib']:,.0f} ({scoped['served_peak_rss_mib'] / full['served_peak_rss_mib']:.0%})"),
        ("RSS after open + queries (MiB)", f"{full['served_rss_mib']:,.0f}",
         f"{scoped['served_rss_mib']:,.0f} ({scoped['served_rss_mib'] / full['served_rss_mib']:.0%})"),
        ("RSS above the one-memory process (MiB)", f"{full['served_rss_mib'] - base['rss_mib']:,.0f}",
         f"{scoped['served_rss_mib'] - base['rss_mib']:,.0f} "
         f"({(scoped['served_rss_mib'] - base['rss_mib']) / (full['served_rss_mib'] - base['rss_mib']):.0%})"),
        ("memory_search p50 (ms)", f"{full['search_p50_ms']:.1f}", f"{scoped['search_p50_ms']:.1f}"),
        ("memory_associate p50 (ms)", f"{full['associate_p50_ms']:.1f}", f"{scoped['associate_p50_ms']:.1f}"),
        ("top-10 overlap with the full projection", "1.00", f"{results['overlap']:.2f}"),
    ]
    lines = ["| measure | whole store | only the 5 served projects |", "|---|---|---|"]
    lines += [f"| {name} | {a} | {b} |" for name, a, b in rows]
    lines += ["", "| cold project | ms |", "|---|---|",
              f"| {COLD} ({results['cold_memories']:,} memories): load from the rows | "
              f"{scoped['cold_rows_load_ms']:,.0f} |",
              f"| {COLD}: its first memory_search | {scoped['cold_rows_query_ms']:,.1f} |",
              f"| {COLD}: top-10 overlap of its own projection with the whole store's | "
              f"{results.get('cold_overlap', float('nan')):.2f} |",
              f"| {BIG} ({scoped['big_memories']:,} memories): load from the rows | "
              f"{scoped['big_rows_load_ms']:,.0f} |",
              f"| {BIG}: save its snapshot ({scoped['big_snapshot_bytes'] / 2**20:,.1f} MiB) | "
              f"{scoped['big_snapshot_save_ms']:,.0f} |",
              f"| {BIG}: load its snapshot ({scoped['big_snapshot_memories']:,} memories restored) | "
              f"{scoped['big_snapshot_load_ms']:,.0f} |",
              f"| {BIG}: RSS its snapshot load adds (MiB) | {scoped['big_snapshot_rss_mib']:,.0f} |",
              f"| {BIG}: its first memory_search after the snapshot load | {scoped['big_snapshot_query_ms']:,.1f} |",
              "", "| no project filter, keyword-first over the database | |", "|---|---|",
              f"| store-wide full-text top 100 + their projects, p50 (ms) | "
              f"{scoped['unfiltered_keyword_p50_ms']:,.1f} |",
              f"| projects among the top 10 / top 100, p50 | {scoped['unfiltered_projects_top10_p50']:g} / "
              f"{scoped['unfiltered_projects_top100_p50']:g} |",
              "", f"one-memory process (the fixed cost of every server: interpreter, libraries, embedding model): RSS "
              f"{base['rss_mib']:,.0f} MiB"]
    return "\n".join(lines)


def changelog(count: int) -> dict[str, Any]:
    """The change log's cost per write: generation bump + one log row + commit, on PostgreSQL and SQLite."""
    import threading
    import uuid

    from private_postgres import create_database, private_server
    from sqlalchemy import text

    from graphmem.store.changes import MEMORIES, append_changes, bump_generation, prune_changes
    from graphmem.store.engine import open_engine
    from graphmem.store.repository import Repository

    def writes(engine: Any, n: int) -> None:
        repository = Repository(engine)
        for _ in range(n):
            with repository.write_transaction() as session:  # as a write: SQLite's BEGIN IMMEDIATE, PG's timeout
                generation = bump_generation(session)
                append_changes(session, generation, {MEMORIES: {f"m_{uuid.uuid4().hex[:20]}"}})
                prune_changes(session, generation)

    def timed_rates(engine: Any) -> dict[str, float]:
        writes(engine, 50)  # warm-up
        elapsed, _ = _timed(lambda: writes(engine, count))
        threads = [threading.Thread(target=writes, args=(engine, count // 4)) for _ in range(4)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        parallel = time.perf_counter() - start
        return {"one_thread_writes_per_s": count / (elapsed / 1000), "ms_per_write": elapsed / count,
                "four_threads_writes_per_s": (count // 4) * 4 / parallel}

    results: dict[str, Any] = {}
    with private_server() as server:
        engine = open_engine(f"{server}/{create_database(server)}")
        results["postgres"] = timed_rates(engine)
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT count(*) FROM change_log")).scalar_one()
            size = connection.execute(text("SELECT pg_total_relation_size('change_log')")).scalar_one()
        results["postgres"] |= {"log_rows": rows, "log_bytes_per_row": size / rows}
        engine.dispose()
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(str(Path(folder) / "log.db"))
        results["sqlite"] = timed_rates(engine)
        engine.dispose()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="the SQLite store (built when missing)")
    parser.add_argument("--changelog", type=int, metavar="N", help="instead: time N change-log writes")
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=100)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--table", action="store_true", help="print the table of --json and stop")
    parser.add_argument("--derive-from", type=Path, metavar="SCALE_DB",
                        help="instead: derive the store from a copy of this scale-bench store (same corpus), then stop")
    parser.add_argument("--pool", action="store_true", help="measure the partitioned server instead of the loader")
    parser.add_argument("--served-from", choices=["rows", "snapshots"], default="rows",
                        help="--pool: the served projects load from their rows (default) or from their snapshots, "
                             "written ahead (as `graphmem snapshot` does) when missing or behind")
    parser.add_argument("--measure", choices=["full", "scoped", "baseline", "pool", "pool-prepare"],
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.changelog:
        print(json.dumps(changelog(args.changelog), indent=1))
        return 0
    if args.db is None:
        parser.error("--db is required")
    if args.measure:
        print(json.dumps(measure(args.measure, str(args.db), f"{args.db}.queries.json", args.served_from)))
        return 0
    if args.derive_from is not None:
        if args.db.exists():
            parser.error(f"{args.db} exists: --derive-from writes a new store")
        args.db.parent.mkdir(parents=True, exist_ok=True)
        print(json.dumps(derive(args.db, args.derive_from, args.memories, args.projects)))
        return 0
    if args.table:
        table = json.loads(args.json.read_text(encoding="utf-8"))
        print(format_pool_table(table) if "pool" in table else format_table(table))
        return 0
    if not args.db.exists():
        args.db.parent.mkdir(parents=True, exist_ok=True)
        build(args.db, args.memories, args.projects)
    modes = ("baseline", "full", "pool-prepare", "pool") if args.pool else ("baseline", "full", "scoped")
    results: dict[str, Any] = {}
    for mode in modes:
        # The snapshots a process maps, dropped from the page cache as a server started later finds them: the
        # whole store's, and (before the partitioned process) the projects' that pool-prepare wrote or read.
        uncache(Path(f"{args.db}.projection.npz"))
        for path in Path(f"{args.db}.projection.npz.projects").glob("*.npz"):
            uncache(path)
        results[mode] = _in_fresh_process(mode, args.db, args.served_from)
    other = "pool" if args.pool else "scoped"
    results["overlap"] = overlap(results["full"].pop("tops"), results[other].pop("tops"))
    results["cold_overlap"] = overlap(results["full"].pop("cold_tops"), results[other].pop("cold_tops"))
    results["cold_memories"] = sum(1 for i in range(args.memories) if _project(i, args.projects) == COLD)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(format_pool_table(results) if args.pool else format_table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

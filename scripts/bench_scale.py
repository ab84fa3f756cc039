"""Scale bench (issue 14): one store grows to each size; ingest, cold open, RSS, projection bytes and latencies.

    python scripts/bench.py --scale --sizes 10000 100000 1000000 --backends sqlite postgres   # not in CI
    python scripts/bench_scale.py --sizes 10000 100000 --backends sqlite --keep ~/scale-stores

The text is half ``synthetic.observations`` (agent notes with code identifiers, Zipf vocabulary) and half
``conversation_synthetic.observations`` (chat turns between two people, one project per conversation),
interleaved, so one store holds both. The same store grows through every size of a run (10k, then 100k,
then 1M), so the rows of one run sit beside each other. At each size the bulk writer closes the store
(which writes its projection snapshot) and a fresh process opens it and measures, so the open is a cold
process start (the OS page cache stays warm) and the peak RSS is a serving process's, not the writer's:

* open: wall and CPU seconds from ``MemoryService(...)`` to a ready projection;
* projection bytes per memory (everything the projection holds: arrays and Python containers, by
  ``projection_bytes``) and bytes per edge of the CSR (data + indices + indptr over stored entries);
* ``memory_search``, ``memory_associate`` and composition p50 / p95 (wall; CPU p50 beside, steadier on a
  shared machine, and for a local PostgreSQL server its processes' CPU per call) over queries drawn half from
  each kind of text, after 5 warm-up queries;
* peak RSS of that process (open + queries); disk: the SQLite file, its WAL and the snapshot, or
  ``pg_database_size`` plus the snapshot.

PostgreSQL runs on a private PG server started by ``scripts/private_postgres.py`` (the tests' server too).
Results go to ``--json`` after every size, so a run stopped early keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

import conversation_synthetic  # noqa: E402
import synthetic  # noqa: E402
from retrieval_eval.scaling import p50_p95  # noqa: E402

__all__ = ["format_scale_table", "projection_bytes", "run_scale"]

_CHUNK = 50_000  # observations per store_many call (each call forks one drafting worker)
_RESERVOIR = 2_000  # stored records of each kind kept to draw queries from


def _corpus(seed: int = 21) -> Iterator[dict[str, object]]:
    notes = synthetic.observations(10**9, seed=seed)
    chats = conversation_synthetic.observations(10**9, seed=seed + 1)
    while True:
        yield next(notes)
        yield next(chats)


def _rss_mib(field: str = "VmRSS") -> float:
    """This process's resident set (VmRSS) or its peak (VmHWM), in MiB.

    Not ``ru_maxrss``: Linux carries it over ``fork`` + ``exec``, so a process the large writer started
    would report the writer's peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the drafting worker)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _deep_size(value: Any, seen: set[int]) -> int:
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(_deep_size(k, seen) + _deep_size(v, seen) for k, v in value.items())
    elif isinstance(value, (list, tuple, set, frozenset)):
        size += sum(_deep_size(item, seen) for item in value)
    return size


def projection_bytes(projection: Any) -> dict[str, int]:
    """What a :class:`GraphProjection` holds, in bytes: the CSR, the other arrays, and Python containers."""
    import numpy as np

    graph = projection.graph
    graph.compact()
    state = graph.state()
    csr = sum(int(state[key].nbytes) for key in ("data", "indices", "indptr"))
    arrays = sum(int(value.nbytes) for key, value in state.items() if key not in ("data", "indices", "indptr"))
    arrays += sum(int(column.nbytes) for column in projection._cols.values())
    python: dict[str, int] = {}
    seen: set[int] = set()
    for name, value in vars(projection).items():
        if isinstance(value, np.ndarray) or name in ("graph", "_cols", "settings", "lock"):
            continue
        if isinstance(value, (dict, list, set, frozenset, tuple)):
            python[name] = _deep_size(value, seen)
        elif name in ("names", "concept_nodes", "memory_nodes"):  # packed (store/packed_names.py)
            python[name] = int(value.nbytes())
    keywords = getattr(projection, "keywords", None)  # the keyword index (absent before it existed)
    extra: dict[str, int] = {}
    if keywords is not None:
        extra = {"keyword_arrays": keywords.nbytes(), "keyword_vocabulary": (
                     keywords.vocabulary.nbytes() if callable(getattr(keywords.vocabulary, "nbytes", None))
                     else _deep_size(keywords.vocabulary, seen)),
                 "keyword_postings": keywords.postings, "keyword_terms": len(keywords.vocabulary)}
    return {"csr": csr, "arrays": arrays, "python": sum(python.values()), "edges": int(state["data"].size),
            "nodes": graph.n_nodes, **{f"python.{name}": size for name, size in python.items()}, **extra}


def _timed(fn: Callable[[str], Any], queries: list[str], server_cpu: Callable[[], float]) -> dict[str, float]:
    before = server_cpu()
    p50, p95, cpu_p50 = p50_p95(fn, queries)  # the same timing loop as the project-scaling bench
    # The database server's CPU per call (PostgreSQL's processes; 0 for SQLite, which runs in this process's CPU),
    # over the warm-up and the timed calls: the CPU columns above count this process only.
    calls = len(queries) + min(5, len(queries))
    return {"p50": p50, "p95": p95, "cpu_p50": cpu_p50, "server_cpu_mean": (server_cpu() - before) * 1000 / calls}


def _server_cpu_seconds(db: str) -> Callable[[], float]:
    """A clock of the CPU seconds a local PostgreSQL server's processes used (its postmaster's children), or a
    clock that stays at 0 for a SQLite store or a server this process cannot see."""
    if "://" not in db:
        return lambda: 0.0
    from sqlalchemy import create_engine, text

    from graphmem.store.engine import database_url

    engine = create_engine(database_url(db))
    try:
        with engine.connect() as connection:
            data = str(connection.execute(text("SHOW data_directory")).scalar_one())
        postmaster = int(Path(data, "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, PermissionError):
        return lambda: 0.0
    finally:
        engine.dispose()
    ticks = os.sysconf("SC_CLK_TCK")

    def clock() -> float:
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # the process ended
            if int(fields[1]) == postmaster:  # ppid; then utime and stime are fields 14 and 15 of stat(5)
                total += int(fields[11]) + int(fields[12])
        return total / ticks

    return clock


def measure(db: str, queries: list[str]) -> dict[str, Any]:
    """In this (fresh) process: open the store, size its projection, time the queries."""
    from graphmem import MemoryService, Settings

    settings = Settings.load(environ={}, db=db)
    server_cpu = _server_cpu_seconds(db)
    snapshot = _snapshot_file(db)
    had_snapshot = snapshot is not None and snapshot.exists()  # else the open loads the rows (and saves one)
    before = _rss_mib()
    wall, cpu = time.perf_counter(), time.process_time()
    service = MemoryService(settings)
    opened = {"open_wall": time.perf_counter() - wall, "open_cpu": time.process_time() - cpu}
    rss_open = _rss_mib()
    sizes = projection_bytes(service.projection)
    memories = service.projection.memory_count
    result: dict[str, Any] = {**opened, "memories": memories, "rss_open_delta_mib": rss_open - before,
                              "projection": sizes, "snapshot": str(snapshot), "snapshot_existed": had_snapshot}
    result["search"] = _timed(lambda q: service.search(q, limit=10), queries, server_cpu)
    result["associate"] = _timed(lambda q: service.associate(q, max_results=10), queries, server_cpu)
    result["compose"] = _timed(lambda q: service.associate(q, mode="composition", max_results=5), queries,
                               server_cpu)
    service.uow.close()  # not service.close(): the measuring process leaves the snapshot as the writer wrote it
    result["peak_rss_mib"] = _rss_mib("VmHWM")
    return result


def _snapshot_file(db: str) -> Path | None:
    from sqlalchemy import create_engine

    from graphmem.store.engine import database_url
    from graphmem.store.projection_snapshot import snapshot_path

    engine = create_engine(database_url(db))  # not open_engine: nothing is built or checked
    try:
        return snapshot_path(engine)
    finally:
        engine.dispose()


def _disk_bytes(db: str) -> int:
    from graphmem.store.engine import open_engine
    from graphmem.store.projection_snapshot import snapshot_path

    if "://" not in db:
        files = [Path(db), Path(f"{db}-wal"), Path(f"{db}.projection.npz")]
        return sum(f.stat().st_size for f in files if f.exists())
    from sqlalchemy import text

    engine = open_engine(db)
    with engine.connect() as connection:
        size = int(connection.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
    snap = snapshot_path(engine)
    engine.dispose()
    return size + (snap.stat().st_size if snap is not None and snap.exists() else 0)


def _grow(db: str, sizes: list[int], query_count: int, on_size: Callable[[dict[str, Any]], None]) -> None:
    from graphmem import MemoryService, Settings

    settings = Settings.load(environ={}, db=db)
    service = MemoryService(settings)
    corpus = _corpus()
    rng = random.Random(5)
    reservoir: dict[str, list[dict[str, object]]] = {"notes": [], "chats": []}
    seen = {"notes": 0, "chats": 0}
    loaded = 0
    for size in sorted(sizes):
        chunks: list[tuple[int, float]] = []
        ingest_cpu = 0.0
        while loaded < size:
            count = min(_CHUNK, size - loaded)
            records = [next(corpus) for _ in range(count)]
            for record in records:  # reservoir sampling: queries come from anywhere in the store
                kind = "chats" if str(record["project"]).startswith("conv-") else "notes"
                seen[kind] += 1
                if len(reservoir[kind]) < _RESERVOIR:
                    reservoir[kind].append(record)
                elif (slot := rng.randrange(seen[kind])) < _RESERVOIR:
                    reservoir[kind][slot] = record
            start, cpu = time.perf_counter(), _cpu_seconds()
            service.store_many(records)
            chunks.append((count, time.perf_counter() - start))
            ingest_cpu += _cpu_seconds() - cpu
            loaded += count
            print(f"  {db.rsplit('/', 1)[-1]}: {loaded:,} stored, last {count:,} at "
                  f"{count / chunks[-1][1]:,.0f} obs/s", file=sys.stderr, flush=True)
        writer_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # The cold open starts from a snapshot of this size: close() writes one only every 200 writes
        # (SNAPSHOT_EVERY), and 90k observations are 176 writes of 512.
        service.write_snapshots()
        service.close()
        half = query_count // 2
        queries = (synthetic.queries(reservoir["notes"], half, seed=size)
                   + conversation_synthetic.queries(reservoir["chats"], query_count - half, seed=size))
        random.Random(size).shuffle(queries)
        measured = _measure_in_fresh_process(db, queries)
        increment = sum(c for c, _ in chunks)
        on_size({"size": size, "ingest_rate": increment / sum(t for _, t in chunks),
                 "ingest_last_chunk_rate": chunks[-1][0] / chunks[-1][1],
                 "ingest_cpu_rate": increment / max(ingest_cpu, 1e-9), "writer_peak_rss_mib": writer_rss,
                 "disk_bytes": _disk_bytes(db), **measured})
        service = MemoryService(settings)
    service.close()


def _measure_in_fresh_process(db: str, queries: list[str]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"db": db, "queries": queries}, handle)
    try:
        done = subprocess.run([sys.executable, __file__, "--measure", handle.name], capture_output=True,
                              text=True, check=False)
    finally:
        os.unlink(handle.name)
    if done.returncode != 0:
        raise RuntimeError(f"measuring {db} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_scale(sizes: list[int], backends: list[str], query_count: int, keep: Path | None,
              out: Path | None) -> list[dict[str, Any]]:
    """Grow one store per backend through ``sizes``; return (and write to ``out``) one record per size."""
    results: list[dict[str, Any]] = []

    def record(backend: str) -> Callable[[dict[str, Any]], None]:
        def on_size(row: dict[str, Any]) -> None:
            results.append({"backend": backend, **row})
            print(f"  {backend} {row['size']:,}: {json.dumps(row)}", file=sys.stderr, flush=True)
            if out is not None:
                out.write_text(json.dumps(results, indent=1))
        return on_size

    with ExitStack() as stack:
        directory = keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="graphmem-scale-")))
        directory.mkdir(parents=True, exist_ok=True)
        for backend in backends:
            if backend == "sqlite":
                db = str(directory / f"scale-{max(sizes)}.db")
                for stale in (Path(db), Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}.projection.npz")):
                    stale.unlink(missing_ok=True)
            else:
                from private_postgres import create_database, private_server

                server = stack.enter_context(private_server())
                db = f"{server}/{create_database(server)}"
            _grow(db, sizes, query_count, record(backend))
            if backend == "postgres":
                from graphmem.store.engine import open_engine
                from graphmem.store.projection_snapshot import snapshot_path

                engine = open_engine(db)
                snap = snapshot_path(engine)
                engine.dispose()
                if snap is not None:
                    snap.unlink(missing_ok=True)  # the server and its database go when the run ends
    return results


def _fmt_mib(value: float) -> str:
    return f"{value:,.0f}"


_MEASURES: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("ingest, increment to this size (obs/s)", lambda r: f"{r['ingest_rate']:,.0f}"),
    ("ingest, last 50k-chunk before this size (obs/s)", lambda r: f"{r['ingest_last_chunk_rate']:,.0f}"),
    ("ingest per CPU-second, writer + drafting worker (obs/s)", lambda r: f"{r['ingest_cpu_rate']:,.0f}"),
    ("open, cold process (s, wall / CPU)", lambda r: f"{r['open_wall']:.2f} / {r['open_cpu']:.2f}"),
    ("peak RSS, serving process: open + queries (MiB)", lambda r: _fmt_mib(r["peak_rss_mib"])),
    ("peak RSS, bulk writer so far (MiB)", lambda r: _fmt_mib(r["writer_peak_rss_mib"])),
    ("projection bytes per memory (all / CSR only)",
     lambda r: f"{sum(r['projection'][k] for k in ('csr', 'arrays', 'python')) / r['memories']:,.0f}"
               f" / {r['projection']['csr'] / r['memories']:,.0f}"),
    ("CSR bytes per edge (edges)",
     lambda r: f"{r['projection']['csr'] / max(r['projection']['edges'], 1):.1f} ({r['projection']['edges']:,})"),
    ("Python objects in the projection (MiB)", lambda r: _fmt_mib(r["projection"]["python"] / 2**20)),
    ("memory_associate p50 / p95 (ms) [CPU p50]",
     lambda r: f"{r['associate']['p50']:.1f} / {r['associate']['p95']:.1f} [{r['associate']['cpu_p50']:.1f}]"),
    ("memory_search p50 / p95 (ms) [CPU p50]",
     lambda r: f"{r['search']['p50']:.1f} / {r['search']['p95']:.1f} [{r['search']['cpu_p50']:.1f}]"),
    ("composition p50 / p95 (ms) [CPU p50]",
     lambda r: f"{r['compose']['p50']:.1f} / {r['compose']['p95']:.1f} [{r['compose']['cpu_p50']:.1f}]"),
    ("disk (MiB, store + snapshot)", lambda r: _fmt_mib(r["disk_bytes"] / 2**20)),
]


def format_scale_table(results: list[dict[str, Any]]) -> str:
    """One markdown table: a column per (backend, size), a row per measure."""
    columns = [(r["backend"], r["size"]) for r in results]
    by_column = {(r["backend"], r["size"]): r for r in results}
    header = "| measure | " + " | ".join(f"{b} {s:,}" for b, s in columns) + " |"
    lines = [header, "|---" * (len(columns) + 1) + "|"]
    for name, cell in _MEASURES:
        lines.append(f"| {name} | " + " | ".join(cell(by_column[c]) for c in columns) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--backends", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="directory for the SQLite store (kept after the run)")
    parser.add_argument("--json", type=Path, help="results, rewritten after every size")
    parser.add_argument("--table", type=Path, help="instead: print the table of a --json file")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # internal: the fresh measuring process
    args = parser.parse_args()
    if args.measure:
        job = json.loads(args.measure.read_text())
        print(json.dumps(measure(job["db"], job["queries"])))
        return 0
    if args.table:
        print(format_scale_table(json.loads(args.table.read_text())))
        return 0
    results = run_scale(args.sizes, args.backends, args.queries, args.keep, args.json)
    print(format_scale_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

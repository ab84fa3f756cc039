"""The first query to a cold project on a partitioned server (issue 26: ≤ 300 ms), from the project's snapshot.

A fresh process opens the store as ``graphmem serve`` does with ``projection.partition = "project"`` and asks
each of ``--projects`` projects (chosen at random, seeded) its first ``memory_search``: the load from the
project's snapshot (written ahead by ``graphmem snapshot``), the change log since, and the query. Each first
query is timed alone, wall and CPU, with the project's memory count; then the process's RSS. ``--rows N`` times
N more projects from their rows instead (their snapshot files are not read), for comparison in the same process.

    graphmem --db STORE.db snapshot                       # with GRAPHMEM_PROJECTION__PARTITION=project
    python scripts/bench_cold_projects.py --db STORE.db --queries STORE.db.queries.json --projects 20 --rows 2

The queries file maps each project to its queries (``scripts/bench_projects.py`` writes one beside its store).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_scale


def measure(db: str, queries: dict[str, list[str]], projects: int, rows: int, seed: int) -> dict[str, Any]:
    from graphmem import MemoryService, Settings

    settings = Settings.load(environ={}, db=str(Path(db).absolute()) if "://" not in db else db,
                             projection={"partition": "project"})
    opened = time.perf_counter()
    service = MemoryService(settings)
    service.uow.extractor.query_parse("warm the parser")  # the pipeline, not the project, is not what is timed
    open_ms = (time.perf_counter() - opened) * 1000
    pool = service.uow.pool
    assert pool is not None
    chosen = random.Random(seed).sample(sorted(queries), projects + rows)
    results: list[dict[str, Any]] = []
    for number, project in enumerate(chosen):
        from_rows = number >= projects
        if from_rows:
            pool._snapshots = None  # the same process, the rows instead of the files
        cpu, wall = time.process_time(), time.perf_counter()
        service.search(queries[project][0], project=project, limit=10)
        elapsed = (time.perf_counter() - wall) * 1000
        entry = pool.held()[project]
        results.append({"project": project, "memories": entry.projection.memory_count,
                        "from": "rows" if from_rows else ("snapshot" if entry.saved else "rows (no snapshot)"),
                        "first_query_ms": elapsed, "cpu_ms": (time.process_time() - cpu) * 1000})
    service.close()
    return {"open_ms": open_ms, "results": results, "rss_mib": bench_scale._rss_mib()}


def table(measured: dict[str, Any]) -> str:
    lines = ["| project | memories | loaded from | first query (ms) | CPU (ms) |", "|---|---|---|---|---|"]
    lines += [f"| {r['project']} | {r['memories']:,} | {r['from']} | {r['first_query_ms']:,.0f} | {r['cpu_ms']:,.0f} |"
              for r in measured["results"]]
    snapped = [r["first_query_ms"] for r in measured["results"] if r["from"] == "snapshot"]
    if snapped:
        ordered = sorted(snapped)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        lines += ["", f"from a snapshot, {len(snapped)} projects: first query p50 "
                      f"{statistics.median(snapped):,.0f} ms, p95 {p95:,.0f} ms, max {ordered[-1]:,.0f} ms"]
    lines += [f"open {measured['open_ms']:,.0f} ms; RSS at the end {measured['rss_mib']:,.0f} MiB"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a store whose projects' snapshots are written")
    parser.add_argument("--queries", type=Path, required=True, help="JSON: project → its queries")
    parser.add_argument("--projects", type=int, default=20, help="cold projects asked, from their snapshots")
    parser.add_argument("--rows", type=int, default=0, help="more cold projects loaded from their rows")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    measured = measure(args.db, json.loads(args.queries.read_text()), args.projects, args.rows, args.seed)
    if args.json:
        args.json.write_text(json.dumps(measured, indent=2))
    print(table(measured))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Where a warm ``memory_search`` (or associate) spends its time on a store: cProfile, and each SQL statement's
wall time as the client sees it (round trip included), grouped by statement text.

    python scripts/profile_search.py JOB.json --calls search --top 25
    python scripts/profile_search.py JOB.json --calls associate --no-profile

JOB.json is the scale bench's measuring job (``{"db": ..., "queries": [...]}``, ``bench_scale.py --measure``).
The store is opened, five queries warm it, then every query runs once under the profiler. On PostgreSQL the
server's own CPU is not in the profile; the statements' wall time is.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["main"]


def _statement_clock(engine: Any) -> dict[str, list[float]]:
    from sqlalchemy import event

    spent: dict[str, list[float]] = defaultdict(list)

    def before(_conn: Any, _cursor: Any, _statement: str, _params: Any, context: Any, _many: bool) -> None:
        context._graphmem_started = time.perf_counter()

    def after(_conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, _many: bool) -> None:
        spent[" ".join(statement.split())[:150]].append(time.perf_counter() - context._graphmem_started)

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job", type=Path)
    parser.add_argument("--calls", choices=("search", "associate", "compose"), default="search")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    from graphmem import MemoryService, Settings

    job = json.loads(args.job.read_text())
    service = MemoryService(Settings.load(environ={}, db=job["db"]))
    call = {"search": lambda q: service.search(q, limit=10),
            "associate": lambda q: service.associate(q, max_results=10),
            "compose": lambda q: service.associate(q, mode="composition", max_results=5)}[args.calls]
    queries: list[str] = job["queries"]
    for query in queries[:5]:
        call(query)
    spent = _statement_clock(service.uow.engine)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    if not args.no_profile:
        profiler.enable()
    for query in queries:
        call(query)
    profiler.disable()
    wall = time.perf_counter() - started
    print(f"{len(queries)} {args.calls} calls: {wall * 1000 / len(queries):.1f} ms each (wall, profiled)")
    total_sql = sum(sum(times) for times in spent.values())
    print(f"SQL statements: {sum(len(t) for t in spent.values()) / len(queries):.1f} per call, "
          f"{total_sql * 1000 / len(queries):.2f} ms per call")
    for statement, times in sorted(spent.items(), key=lambda item: -sum(item[1]))[:12]:
        print(f"  {sum(times) * 1000 / len(queries):7.2f} ms/call  n={len(times):5d}  {statement}")
    if not args.no_profile:
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(args.top)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(args.top)
    service.uow.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

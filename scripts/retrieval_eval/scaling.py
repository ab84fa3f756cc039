"""Does search time grow with the number of *other* projects in the store? (issue 9, "hubs cost nothing")

One store grows from 1 to 5 to 50 conversation-like projects: the dev conversations (LoCoMo shape), each
stored again under fresh project names (one copy per project, so every project is a real conversation with
its own turns, speakers and dates). At each size the first conversation's questions are asked with its
project as the filter, through ``memory_search`` and ``memory_associate``, beside FTS5 ``bm25()`` restricted to
the same project's rows in the same store. Only the project's own work should count: the ratio of the p50 at
50 projects to the p50 at 1 project is the figure to watch.

    python scripts/bench.py --sizes 10000 --no-eval --scaling      # inside the bench
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conversational import load_conversations

__all__ = ["p50_p95", "project_scaling_section"]


def p50_p95(fn: Callable[[Any], Any], items: list[Any]) -> tuple[float, float, float]:
    """Wall p50 and p95 and CPU p50 (ms): on a shared machine the CPU time is the steadier figure."""
    for item in items[:5]:
        fn(item)
    samples, cpu = [], []
    for item in items:
        start, start_cpu = time.perf_counter(), time.process_time()
        fn(item)
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))], statistics.median(cpu)


def project_scaling_section(projects: tuple[int, ...] = (1, 5, 50), queries: int = 100) -> str:
    """Markdown table: search/associate/BM25 p50 and p95 for one project's questions as the store grows."""
    from graphmem import MemoryService, Settings

    dataset = load_conversations()
    by_project: dict[str, list[Any]] = {}
    for turn in dataset.turns:
        by_project.setdefault(turn.project, []).append(turn)
    sources = list(by_project.values())
    target = sources[0][0].project
    asked = [q.question for q in dataset.questions if q.project == target][:queries]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(environ={}, db=str(Path(scratch) / "scaling.db")))
        stored = 0
        for size in projects:
            while stored < size:
                turns = sources[stored % len(sources)]
                name = target if stored == 0 else f"{turns[0].project}-copy{stored}"
                service.store_many([{"content": t.text, "project": name} for t in turns])
                stored += 1
            memories = service.uow.fresh().memory_count
            search = p50_p95(lambda q: service.search(q, project=target, limit=10), asked)
            associate = p50_p95(lambda q: service.associate(q, project=target, max_results=10), asked)
            projection = service.uow.fresh()
            view = service.recall_service.view(target, None, None, None, False)
            mask = projection.visible(view, service.clock.now_ms())
            allowed = projection.col("seq")[mask].tolist()  # the project's rows, as graphmem's keyword leg passes them
            # The keyword leg's match: scoped to the project's token (the index's scope column), and, for
            # comparison, the same ranking with the project's rows as a filter on an unscoped match.
            bm25 = p50_p95(lambda q, rows=allowed: service.repository.bm25(q, 10, rows, project=target), asked)
            unscoped = p50_p95(lambda q, rows=allowed: service.repository.bm25(q, 10, rows), asked)
            rows.append((size, memories, search, associate, bm25, unscoped))
        service.close()
    lines = [f"Project scaling: one store grows to {projects[-1]} conversation-like projects; "
             f"{len(asked)} questions of one conversation, filtered to its project (in-process ms, wall p50 / p95, "
             "and CPU p50 in brackets):", "",
             "| projects | memories | memory_search | memory_associate | FTS5 bm25, scoped match | "
             "FTS5 bm25, rows filter only |",
             "|---|---|---|---|---|---|"]
    for size, memories, search, associate, bm25, unscoped in rows:
        cells = " | ".join(f"{w50:.2f} / {w95:.2f} ({c50:.2f})"
                           for w50, w95, c50 in (search, associate, bm25, unscoped))
        lines.append(f"| {size} | {memories:,} | {cells} |")
    first, last = rows[0], rows[-1]
    lines.append("")
    lines.append(f"From {first[0]} to {last[0]} projects: search p50 ×{last[2][0] / first[2][0]:.2f} wall, "
                 f"×{last[2][2] / first[2][2]:.2f} CPU; associate p50 ×{last[3][0] / first[3][0]:.2f} wall, "
                 f"×{last[3][2] / first[3][2]:.2f} CPU; scoped FTS5 match ×{last[4][2] / first[4][2]:.2f} CPU "
                 f"(rows filter only: ×{last[5][2] / first[5][2]:.2f}).")
    return "\n".join(lines)

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

__all__ = ["project_scaling_section"]


def _p50_p95(fn: Callable[[Any], Any], items: list[Any]) -> tuple[float, float]:
    for item in items[:5]:
        fn(item)
    samples = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))]


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
            search = _p50_p95(lambda q: service.search(q, project=target, limit=10), asked)
            associate = _p50_p95(lambda q: service.associate(q, project=target, max_results=10), asked)
            projection = service.uow.fresh()
            mask = projection.visible(service._view(target, None, None, None, False), service.clock.now_ms())
            allowed = projection.col("seq")[mask].tolist()  # the project's rows, as graphmem's keyword leg passes them
            bm25 = _p50_p95(lambda q, rows=allowed: service.repository.bm25(q, 10, rows), asked)
            rows.append((size, memories, search, associate, bm25))
        service.close()
    lines = [f"Project scaling: one store grows to {projects[-1]} conversation-like projects; "
             f"{len(asked)} questions of one conversation, filtered to its project (in-process ms):", "",
             "| projects | memories | memory_search p50 / p95 | memory_associate p50 / p95 | FTS5 bm25 p50 / p95 |",
             "|---|---|---|---|---|"]
    for size, memories, search, associate, bm25 in rows:
        lines.append(f"| {size} | {memories:,} | {search[0]:.2f} / {search[1]:.2f} | "
                     f"{associate[0]:.2f} / {associate[1]:.2f} | {bm25[0]:.2f} / {bm25[1]:.2f} |")
    first, last = rows[0], rows[-1]
    lines.append("")
    lines.append(f"search p50 ×{last[2][0] / first[2][0]:.2f} and associate p50 ×{last[3][0] / first[3][0]:.2f} "
                 f"from {first[0]} to {last[0]} projects.")
    return "\n".join(lines)

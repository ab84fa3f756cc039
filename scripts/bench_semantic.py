"""What the semantic signal costs, in-process, beside the same store without it (one run, alternating).

    python scripts/bench_semantic.py                 # LoCoMo dev store + the synthetic corpus at 100k
    python scripts/bench_semantic.py --size 20000    # a smaller synthetic store for the memory figure

Rows: single ``store`` p50 into a store of the LoCoMo turns, bulk ingest rate, ``search`` and ``associate``
p50 over the LoCoMo questions (project filter), and the semantic index's bytes at ``--size`` memories.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic
from retrieval_eval.conversational import load_conversations


def _service(enabled: bool) -> Any:
    from graphmem import MemoryService, Settings

    return MemoryService(Settings.load(environ={}, db=":memory:", semantic={"enabled": enabled}))


def _p50(samples: list[float]) -> float:
    return statistics.median(samples)


def _timed(call: Any) -> float:
    began = time.perf_counter()
    call()
    return (time.perf_counter() - began) * 1000


def locomo_rows() -> list[tuple[str, str, str]]:
    data = load_conversations()
    records = [{"content": t.text, "project": t.project} for t in data.turns]
    services, rates = {}, {}
    for enabled in (False, True):  # warm both paths first (the parser, the model), so neither pays it below
        warm = _service(enabled)
        warm.store_many(records[:300])
        warm.search("warm up", project=records[0]["project"])
        warm.close()
    for enabled in (False, True):
        service = _service(enabled)
        began = time.perf_counter()
        service.store_many(records[:-200])
        rates[enabled] = (len(records) - 200) / (time.perf_counter() - began)
        services[enabled] = service
    stores: dict[bool, list[float]] = {False: [], True: []}
    for record in records[-200:]:  # alternate, so both see the same machine load
        for enabled in (False, True):
            stores[enabled].append(_timed(lambda r=record, e=enabled: services[e].store(**r)))
    search: dict[bool, list[float]] = {False: [], True: []}
    associate: dict[bool, list[float]] = {False: [], True: []}
    for question in data.questions:
        for enabled in (False, True):
            service = services[enabled]
            search[enabled].append(_timed(lambda s=service, q=question: s.search(q.question, project=q.project)))
            associate[enabled].append(_timed(
                lambda s=service, q=question: s.associate(q.question, project=q.project)))
    for service in services.values():
        service.close()
    return [
        ("store p50 (ms), LoCoMo store", f"{_p50(stores[True]):.2f}", f"{_p50(stores[False]):.2f}"),
        ("bulk ingest (obs/s), LoCoMo turns", f"{rates[True]:,.0f}", f"{rates[False]:,.0f}"),
        ("memory_search p50 (ms), LoCoMo questions", f"{_p50(search[True]):.2f}", f"{_p50(search[False]):.2f}"),
        ("memory_associate p50 (ms), LoCoMo questions", f"{_p50(associate[True]):.2f}",
         f"{_p50(associate[False]):.2f}"),
    ]


def memory_rows(size: int) -> list[tuple[str, str, str]]:
    service = _service(True)
    service.store_many(list(synthetic.observations(size, seed=5)))
    index = service.projection.semantic
    index.flush()  # texts stored while the model was loading wait for the first read
    vectors = index.memories.vectors.nbytes + index.memories.scales.nbytes + index.words.vectors.nbytes
    maps = sum(array.nbytes for array in (index.memories.nodes, index.memories.row_of, index.words.nodes,
                                          index.words.row_of))
    service.close()
    return [(f"semantic index at {size:,} memories (MiB)", f"{(vectors + maps) / 2**20:,.1f}",
             f"{index.memories.count:,} memory and {index.words.count:,} word vectors")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args()
    rows = locomo_rows() + memory_rows(args.size)
    print("| measure | semantic on | semantic off (same run) |\n|---|---|---|")
    for name, on, off in rows:
        print(f"| {name} | {on} | {off} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

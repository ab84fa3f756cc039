"""How ``memory_search`` grows with the store (issue 22, item 5): the same queries on two sizes, leg by leg.

    python scripts/search_growth.py draw 100000 1000000 --out DIR   # the scale bench's own query draws, replayed
    python scripts/search_growth.py legs JOB.json --json legs.json   # thread CPU per leg of each search
    python scripts/search_growth.py results JOB.json --json r.json   # what each query answers, to compare trees
    python scripts/search_growth.py same base.json branch.json       # how many answers are identical

``draw`` replays ``bench_scale._grow``'s reservoir (the same corpus, seed and sampling) without storing anything
and writes ``DIR/queries-SIZE.json``: the 200 queries the scale bench measures at that size. The draw of a smaller
size names records that every larger store of the same run holds, so it can be asked of both sizes.
JOB.json is the scale bench's measuring job (``{"db": ..., "queries": [...]}``, ``bench_scale.py --measure``).

``legs`` opens the store, warms it with five queries, then times each search by this thread's CPU, and inside it
each step of the recall path (inclusive: a step's time holds the steps it calls): the query's parse and seeds, the
filter's mask, spreading activation, the keyword leg, the bridge, the semantic leg (gate and scan), the page's
hydration from the store. ``results`` records, per query, the search page, the raw fused scores (as
``float.hex``), the associate answer and the composition, all but each hit's ``decay_score`` (the clock's).
The tree measured is the one on ``PYTHONPATH`` (run with ``python -P``).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

__all__ = ["main"]


def draw(sizes: list[int], out: Path, count: int = 200) -> None:
    import bench_scale
    import conversation_synthetic
    import synthetic

    corpus = bench_scale._corpus()
    rng = random.Random(5)
    reservoir: dict[str, list[dict[str, object]]] = {"notes": [], "chats": []}
    seen = {"notes": 0, "chats": 0}
    loaded = 0
    out.mkdir(parents=True, exist_ok=True)
    for size in sorted(sizes):
        while loaded < size:
            for _ in range(min(bench_scale._CHUNK, size - loaded)):
                record = next(corpus)
                kind = "chats" if str(record["project"]).startswith("conv-") else "notes"
                seen[kind] += 1
                if len(reservoir[kind]) < bench_scale._RESERVOIR:
                    reservoir[kind].append(record)
                elif (slot := rng.randrange(seen[kind])) < bench_scale._RESERVOIR:
                    reservoir[kind][slot] = record
                loaded += 1
        half = count // 2
        queries = (synthetic.queries(reservoir["notes"], half, seed=size)
                   + conversation_synthetic.queries(reservoir["chats"], count - half, seed=size))
        random.Random(size).shuffle(queries)
        (out / f"queries-{size}.json").write_text(json.dumps(queries, indent=0))
        print(f"{out / f'queries-{size}.json'}: {len(queries)} queries", file=sys.stderr)


def _legs() -> list[tuple[Any, str, str]]:
    from graphmem.service.recall import engine, keywords, semantic, service, turns
    from graphmem.store import keyword_index, projection, repository

    recall = engine.RecallEngine
    return [
        (service.RecallService, "search", "search (recall service)"), (recall, "fused_ranking", "fused ranking"),
        (recall, "activate", "activation"), (recall, "match_seeds", "seeds (parse included)"),
        (recall, "_parsed", "parse"),
        # the filter's mask: ``_visible`` where it is cached apart from the caller's copy, else ``visible``
        (projection.GraphProjection, "_visible" if hasattr(projection.GraphProjection, "_visible") else "visible",
         "filter mask"),
        (recall, "_scope", "scope"), (recall, "_spread", "spread"), (recall, "_rank", "rank activated"),
        (turns.TurnIndex, "conversational", "turns or notes?"),
        (keywords.KeywordLeg, "ranking", "keyword leg"), (keyword_index.KeywordIndex, "rank", "keyword index rank"),
        (recall, "_with_bridge", "bridge"), (recall, "_with_meaning", "semantic leg (gate and scan)"),
        (semantic.SemanticLeg, "ranking", "semantic scan"), (semantic.SemanticLeg, "coverage", "gate coverage"),
        (service.RecallService, "_search_hits", "page"), (recall, "hits", "hydration"),
        (repository.Repository, "hit_rows", "hydration SQL"), (service.RecallService, "_evidence", "relevance"),
        (service, "review_page", "review blend"), (service, "annotate", "decay annotations"),
    ]


def legs(job: dict[str, Any]) -> dict[str, Any]:
    spent: dict[str, int] = defaultdict(int)
    for owner, name, label in _legs():
        original = getattr(owner, name)

        def timed(*args: Any, _original: Any = original, _label: str = label, **kwargs: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_label] += time.thread_time_ns() - started

        setattr(owner, name, functools.wraps(original)(timed))
    service = _open(job["db"])
    queries: list[str] = job["queries"]
    for query in queries[:5]:
        service.search(query, limit=10)
    per_query: list[dict[str, float]] = []
    cpu: list[float] = []
    for query in queries:
        before = dict(spent)
        started = time.thread_time()
        service.search(query, limit=10)
        cpu.append((time.thread_time() - started) * 1000)
        per_query.append({label: (spent[label] - before.get(label, 0)) / 1e6 for label in spent})
    service.uow.close()
    steps = {label: {"p50": statistics.median(q.get(label, 0.0) for q in per_query),
                     "mean": statistics.mean(q.get(label, 0.0) for q in per_query)} for label in spent}
    return {"db": job["db"], "queries": len(queries), "cpu_p50": statistics.median(cpu),
            "cpu_mean": statistics.mean(cpu), "steps": steps}


def results(job: dict[str, Any]) -> list[dict[str, Any]]:
    from graphmem.service.recall import engine

    raw: list[list[Any]] = []
    fused_ranking = engine.RecallEngine.fused_ranking

    def captured(self: Any, *args: Any, **kwargs: Any) -> Any:
        fused, activation = fused_ranking(self, *args, **kwargs)
        raw.append([(node, score.hex(), bm25, act) for node, score, bm25, act in fused])
        return fused, activation

    engine.RecallEngine.fused_ranking = captured  # type: ignore[method-assign]
    service = _open(job["db"])
    rows = []
    for query in job["queries"]:
        raw.clear()
        search = service.search(query, limit=10)
        associate = service.associate(query, max_results=10)
        composition = service.associate(query, mode="composition", max_results=5)
        rows.append({"search": _shown(search), "fused": raw[0], "associate": _shown(associate),
                     "composition": _shown(composition)})
    service.uow.close()
    return rows


def _shown(answer: object) -> str:
    return re.sub(r"decay_score=[0-9.e-]+, ", "", repr(answer))  # the clock's, not the ranking's


def _open(db: str) -> Any:
    from graphmem import MemoryService, Settings

    return MemoryService(Settings.load(environ={}, db=db))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    drawing = commands.add_parser("draw")
    drawing.add_argument("sizes", type=int, nargs="+")
    drawing.add_argument("--out", type=Path, required=True)
    for name in ("legs", "results"):
        command = commands.add_parser(name)
        command.add_argument("job", type=Path)
        command.add_argument("--json", type=Path, required=True)
    comparing = commands.add_parser("same")
    comparing.add_argument("files", type=Path, nargs=2)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.sizes, args.out)
    elif args.command == "legs":
        measured = legs(json.loads(args.job.read_text()))
        args.json.write_text(json.dumps(measured, indent=1))
        print(f"{measured['db']}: search CPU p50 {measured['cpu_p50']:.2f} ms, mean {measured['cpu_mean']:.2f}")
        for label, step in sorted(measured["steps"].items(), key=lambda item: -item[1]["mean"]):
            print(f"  {label:32s} p50 {step['p50']:7.3f}  mean {step['mean']:7.3f}")
    elif args.command == "results":
        args.json.write_text(json.dumps(results(json.loads(args.job.read_text()))))
    else:
        first, second = (json.loads(path.read_text()) for path in args.files)
        for part in ("search", "fused", "associate", "composition"):
            same = sum(a[part] == b[part] for a, b in zip(first, second, strict=True))
            print(f"{part}: {same} of {len(first)} identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())

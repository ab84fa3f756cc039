"""graphmem benchmark: speed, memory and retrieval quality, each beside its baseline from the same run.

    python scripts/bench.py                      # full run: 10k and 100k memories + retrieval eval
    python scripts/bench.py --sizes 10000 --queries 100 --no-eval   # quick run
    python scripts/bench.py --sizes 10000 --no-eval --conversational  # + the conversational set (retrieval_eval)
    python scripts/bench.py --sizes 10000 --no-eval --scaling   # + search time vs 1/5/50 conversation projects
    python scripts/bench.py --scale --sizes 10000 100000 1000000   # instead: the scale bench (bench_scale.py),
                                                                     # SQLite and PostgreSQL; not in CI

Baselines (measured in the same process, on the same data):
* store throughput: raw SQLite FTS5 insert of the same texts (no parsing, no graph);
* search/associate latency: SQLite FTS5 ``bm25()`` alone over the same store;
* retrieval quality: the BM25 baseline of ``scripts/eval_retrieval.py`` (multi-hop), and the same FTS5 baseline
  on the semantic set (``retrieval_eval/semantic.py``, run with the eval) and on the conversations.
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

import surface_sizes  # noqa: E402
import synthetic  # noqa: E402
from bench_startup import bench_startup  # noqa: E402
from concept_quality import concept_quality_rows  # noqa: E402

from graphmem import MemoryService, Settings  # noqa: E402


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _timed(fn: Callable[[str], Any], queries: list[str]) -> tuple[float, float]:
    for query in queries[:5]:  # warm caches and lazy builds outside the measurement
        fn(query)
    samples = []
    for query in queries:
        start = time.perf_counter()
        fn(query)
        samples.append((time.perf_counter() - start) * 1000)
    return _percentiles(samples)


def fts5_insert_rate(records: list[dict[str, Any]]) -> float:
    """Observations/s for a bare FTS5 insert of the same texts: the floor any store pays."""
    with tempfile.TemporaryDirectory() as scratch:
        db = sqlite3.connect(Path(scratch) / "fts.db")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='porter unicode61')")
        start = time.perf_counter()
        for begin in range(0, len(records), 512):
            db.executemany("INSERT INTO t(content) VALUES (?)", [(r["content"],) for r in records[begin:begin + 512]])
            db.commit()
        rate = len(records) / (time.perf_counter() - start)
        db.close()
    return rate


def store_rate(records: list[dict[str, Any]], nlp_model: str) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(environ={}, db=str(Path(scratch) / "s.db"), nlp_model=nlp_model))
        start = time.perf_counter()
        service.store_many(records)
        rate = len(records) / (time.perf_counter() - start)
        service.close()
    return rate


def bench_store(count: int) -> list[tuple[str, str, str]]:
    import spacy

    records = list(synthetic.observations(count, seed=3))
    rows = [("store throughput, blank+rules (obs/s)", f"{store_rate(records, 'blank'):,.0f}",
             f"{fts5_insert_rate(records):,.0f} (bare FTS5 insert)")]
    for model in ("en_core_web_sm", "en_core_web_md"):
        if spacy.util.is_package(model):
            rows.append((f"store throughput, {model} (obs/s)", f"{store_rate(records, model):,.0f}", "same baseline"))
    return rows


def bench_latency(sizes: list[int], query_count: int, scratch: Path) -> list[tuple[str, str, str]]:
    rows = []
    service = MemoryService(Settings.load(environ={}, db=str(scratch / "latency.db")))
    generated = list(synthetic.observations(max(sizes), seed=5))
    loaded = 0
    for size in sorted(sizes):
        start = time.perf_counter()
        service.store_many(generated[loaded:size])
        load_rate = (size - loaded) / (time.perf_counter() - start)
        loaded = size
        queries = synthetic.queries(generated[:size], query_count)
        bm25 = _timed(lambda q: service.repository.bm25(q, 10), queries)
        search = _timed(lambda q: service.search(q, limit=10), queries)
        associate = _timed(lambda q: service.associate(q, max_results=10), queries)
        compose = _timed(lambda q: service.associate(q, mode="composition", max_results=5), queries)
        base = f"{bm25[0]:.2f} / {bm25[1]:.2f} (FTS5 bm25 alone)"
        rows += [
            (f"{size:,} memories: bulk load of the increment (obs/s)", f"{load_rate:,.0f}", "-"),
            (f"{size:,} memories: memory_search p50 / p95 (ms)", f"{search[0]:.2f} / {search[1]:.2f}", base),
            (f"{size:,} memories: memory_associate p50 / p95 (ms)", f"{associate[0]:.2f} / {associate[1]:.2f}", base),
            (f"{size:,} memories: composition p50 / p95 (ms)", f"{compose[0]:.2f} / {compose[1]:.2f}", base),
        ]
        _progress(rows[-4:])
    service.close()
    return rows


def bench_eval() -> str:
    import eval_retrieval
    from retrieval_eval import load_dataset

    datasets = [load_dataset(name) for name in ("musique", "hotpotqa")]
    results, errors = eval_retrieval.run(datasets, ["graphmem-search", "graphmem-associate", "graphmem-compose"])
    if errors:
        raise RuntimeError("; ".join(errors))
    from retrieval_eval import format_deltas, format_table
    from retrieval_eval.bench_sections import semantic_section

    return format_table(results) + "\n\n" + format_deltas(results) + "\n\n" + semantic_section()


def _progress(rows: list[tuple[str, str, str]]) -> None:
    for row in rows:
        print("  " + " | ".join(row), file=sys.stderr, flush=True)


def _other_mode(args: argparse.Namespace) -> int:
    """``--fuzz`` (fuzz_tools.py) or ``--scale`` (bench_scale.py), each instead of the full bench."""
    if args.fuzz:
        from fuzz_tools import run_fuzz

        print(run_fuzz(args.fuzz, args.fuzz_seed, args.fuzz_log_dir).table())
        return 0
    from bench_scale import format_scale_table, run_scale

    print(format_scale_table(run_scale(args.sizes, args.backends, args.queries, None, args.json)))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--store-count", type=int, default=5_000)
    parser.add_argument("--no-eval", action="store_true")
    parser.add_argument("--conversational", action="store_true",
                        help="also run the conversational set (scripts/retrieval_eval/bench_sections.py)")
    parser.add_argument("--scaling", action="store_true",
                        help="search time vs other projects: 1/5/50 conversation-like projects "
                             "(scripts/retrieval_eval/scaling.py)")
    parser.add_argument("--mcp", type=int, metavar="N", default=2000,
                        help="MCP single calls beside the reference server at N memories (0: skip; bench_mcp.py)")
    parser.add_argument("--open", type=int, metavar="N", default=100_000,
                        help="open an N-memory store from its snapshot vs from the rows (0: skip; bench_open.py)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--scale", action="store_true",
                        help="instead: grow one store per backend through --sizes and report ingest, cold open, RSS, "
                             "projection bytes and latencies per size (scripts/bench_scale.py)")
    parser.add_argument("--backends", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"],
                        help="with --scale: the databases to grow")
    parser.add_argument("--fuzz", type=int, metavar="N", help="instead: fuzz every tool with N calls (fuzz_tools.py)")
    parser.add_argument("--fuzz-seed", type=int, help="replay a fuzz run's arguments (default: a random seed, printed)")
    parser.add_argument("--fuzz-log-dir", type=Path, help="where the fuzz failure log and server logs go (default: "
                        "the temporary directory)")
    args = parser.parse_args()
    if args.fuzz or args.scale:
        return _other_mode(args)
    rows = bench_startup()  # --help wall time and serve's initialize latency, fresh processes
    rows += bench_store(args.store_count)
    rows += concept_quality_rows()
    if args.mcp:
        from bench_mcp import mcp_rows  # single calls through stdio beside the reference memory server

        rows += mcp_rows(args.mcp)
    if args.open:
        from bench_open import open_rows  # a large store opened from its snapshot vs from the rows

        rows += open_rows(args.open)
    _progress(rows)
    with tempfile.TemporaryDirectory() as scratch:
        rows += bench_latency(args.sizes, args.queries, Path(scratch))
    import bench_learning  # near-duplicates on data/, clustering at the largest size, learn checks

    rows += bench_learning.rows(max(args.sizes), min(max(args.sizes), 20_000))
    rows.append(("peak RSS (MiB)", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f}", "-"))
    print("| measure | graphmem | baseline (same run) |\n|---|---|---|")
    for name, value, baseline in rows:
        print(f"| {name} | {value} | {baseline} |")
    if not args.no_eval:
        print()
        print(bench_eval())  # the multi-hop sets, then the semantic set, each beside its BM25
    if args.conversational:
        from retrieval_eval.bench_sections import conversational_section

        print()
        print(conversational_section())
    print()
    surface_sizes.report()  # tools/list per profile and result sizes (scripts/surface_sizes.py)
    if args.scaling:
        from retrieval_eval.scaling import project_scaling_section

        print()
        print(project_scaling_section())
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Retrieval ablations: one indexed store per dataset, many recall configurations over it.

    python scripts/ablate.py                 # the table in docs/retrieval.md
    python scripts/ablate.py --only default no-activation

Index-time choices (co-occurrence edges, hub cap) take effect when the projection is rebuilt from
the rows, so every configuration re-opens the same database with its own Settings: parsing and
storage happen once per dataset, the graph projection once per configuration.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_eval import BM25Baseline, load_dataset
from retrieval_eval.metrics import all_recall_at, recall_at

from graphmem import MemoryService, Settings

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "no activation leg (BM25 + bridge)": {"fusion": {"activation_weight": 0.0}},
    "no BM25 leg (activation + bridge)": {"fusion": {"bm25_weight": 0.0}},
    "no bridge": {"fusion": {"bridge_weight": 0.0}},
    "BM25 leg alone (common query words dropped)": {"fusion": {"bridge_weight": 0.0, "activation_weight": 0.0}},
    "personalized PageRank (alpha 0.5)": {"activation": {"method": "ppr"}},
    "personalized PageRank (alpha 0.7)": {"activation": {"method": "ppr", "alpha": 0.7}},
    "hop-limited, 2 hops": {"activation": {"hops": 2}},
    "no seed specificity": {"activation": {"specificity": False}},
    "no hub cap": {"activation": {"hub_cap": 10**9}},
    "hub cap 50": {"activation": {"hub_cap": 50}},
    "co-occurrence edges on": {"activation": {"cooccurrence": True}},
    "no length normalization": {"activation": {"length_norm": 0.0}},
    "length normalization 0.5": {"activation": {"length_norm": 0.5}},
    "topic exponent 1 (symmetric edges)": {"activation": {"topic_exponent": 1.0}},
    "topic exponent 2": {"activation": {"topic_exponent": 2.0}},
    "weighted-sum fusion": {"fusion": {"method": "weighted"}},
    "fusion bm25:activation 1:1": {"fusion": {"activation_weight": 1.0}},
    "fusion bm25:activation 1:3": {"fusion": {"activation_weight": 3.0}},
    "bridge weight 1": {"fusion": {"bridge_weight": 1.0}},
    "bridge sources 2": {"fusion": {"bridge_sources": 2}},
    "bridge hops 2": {"fusion": {"bridge_hops": 2}},
    "prune 1e-4": {"activation": {"prune": 1e-4}},
}


def evaluate(service: MemoryService, title_of: dict[str, str], questions: list[Any], mode: str) -> dict[str, float]:
    totals = {"R@2": 0.0, "R@5": 0.0, "AR@2": 0.0, "AR@5": 0.0}
    started = time.perf_counter()
    for question in questions:
        if mode == "search":
            ids = [h.id for h in service.search(question.question, limit=15).hits]
        else:
            ids = [m.id for m in service.associate(question.question, max_results=15).memories]
        ranked = list(dict.fromkeys(title_of[i] for i in ids))
        for k in (2, 5):
            totals[f"R@{k}"] += recall_at(ranked, question.gold_titles, k)
            totals[f"AR@{k}"] += all_recall_at(ranked, question.gold_titles, k)
    result = {name: value / len(questions) for name, value in totals.items()}
    result["ms"] = 1000 * (time.perf_counter() - started) / len(questions)
    return result


def bm25_row(dataset: Any) -> dict[str, float]:
    baseline = BM25Baseline()
    baseline.index(dataset.passages)
    totals = {"R@2": 0.0, "R@5": 0.0, "AR@2": 0.0, "AR@5": 0.0}
    for question in dataset.questions:
        ranked = baseline.retrieve(question.question, 10)
        for k in (2, 5):
            totals[f"R@{k}"] += recall_at(ranked, question.gold_titles, k)
            totals[f"AR@{k}"] += all_recall_at(ranked, question.gold_titles, k)
    return {name: value / len(dataset.questions) for name, value in totals.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", help="configuration names (prefix match)")
    parser.add_argument("--datasets", nargs="+", default=["musique", "hotpotqa"])
    parser.add_argument("--modes", nargs="+", default=["search", "associate"])
    args = parser.parse_args()
    configs = {n: c for n, c in CONFIGS.items() if not args.only or any(n.startswith(o) for o in args.only)}
    print("| dataset | configuration | mode | R@2 | R@5 | AR@2 | AR@5 | ms/query |\n|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        dataset = load_dataset(name)
        bm = bm25_row(dataset)
        print(f"| {name} | BM25 baseline (same run) | - | {bm['R@2']:.3f} | {bm['R@5']:.3f} | {bm['AR@2']:.3f} "
              f"| {bm['AR@5']:.3f} | - |", flush=True)
        with tempfile.TemporaryDirectory() as scratch:
            db = str(Path(scratch) / f"{name}.db")
            indexer = MemoryService(Settings.load(environ={}, db=db))
            results = indexer.store_many([{"content": f"{p.title}\n{p.text}"} for p in dataset.passages])
            title_of = {r.id: p.title for r, p in zip(results, dataset.passages, strict=True)}
            indexer.close()
            for config_name, overrides in configs.items():
                service = MemoryService(Settings.load(environ={}, db=db, **overrides))
                for mode in args.modes:
                    row = evaluate(service, title_of, dataset.questions, mode)
                    print(f"| {name} | {config_name} | {mode} | {row['R@2']:.3f} | {row['R@5']:.3f} | "
                          f"{row['AR@2']:.3f} | {row['AR@5']:.3f} | {row['ms']:.1f} |", flush=True)
                service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

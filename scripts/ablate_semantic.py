"""Ablate the semantic mechanisms on all four dev sets at once (docs/retrieval.md, "Semantic").

    python scripts/ablate_semantic.py                       # every variant below, in one run
    python scripts/ablate_semantic.py --only default off    # some of them
    python scripts/ablate_semantic.py --sets madial musique

Each variant is a settings override (``[semantic]``, or ``[activation]`` for the seeds). Every figure is
memory_search / memory_associate R@k through ``MemoryService`` with the sets' own protocols: MADial R@5 (no
filter, limit 5), LoCoMo R@10 (project filter, limit 10), MuSiQue and HotpotQA R@5 (limit 15, titles
deduplicated, as ``eval_retrieval.py``).
A setting is kept only if no set loses; the BM25 baselines are in ``scripts/bench.py``'s run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval_eval import load_dataset
from retrieval_eval.conversational import load_conversations
from retrieval_eval.semantic import load_semantic

VARIANTS: dict[str, dict[str, Any]] = {
    "off": {"semantic": {"enabled": False}},
    "default": {},
    "no joins": {"semantic": {"join_weight": 0.0}},
    "no names": {"semantic": {"name_weight": 0.0}},
    "rrf fusion": {"semantic": {"fusion": "rrf", "search_weight": 3.0}},
    "step gate at 0.12 (the previous default)": {"semantic": {"gate_open": 0.12, "gate_closed": 0.12}},
    "ramp to 0.30": {"semantic": {"gate_open": 0.1, "gate_closed": 0.3}},
    "ramp to 0.50": {"semantic": {"gate_open": 0.1, "gate_closed": 0.5}},
    "on turns too": {"semantic": {"turn_weight": 1.0}},
    "+ relatedness edges": {"semantic": {"related_k": 5, "related_threshold": 0.8, "related_weight": 0.2}},
    "+ semantic seeds": {"semantic": {"seed_threshold": 0.8}},
    "nested phrases at full weight (before)": {"activation": {"nested_phrase_weight": 1.0}},
    "nested phrases at 0.3": {"activation": {"nested_phrase_weight": 0.3}},
    "nested phrases at 0.7": {"activation": {"nested_phrase_weight": 0.7}},
    "nested phrases left out": {"activation": {"nested_phrase_weight": 0.0}},
}
Docs = list[tuple[str, str, str | None]]  # (id, text, project)
Queries = list[tuple[str, frozenset[str], str | None]]  # (query, gold ids, project filter)


def _madial() -> tuple[Docs, Queries, int, int]:
    data = load_semantic()
    return [(k, t, None) for k, t in data.memories.items()], [(q, g, None) for q, g in data.queries], 5, 5


def _multihop(name: str) -> tuple[Docs, Queries, int, int]:
    data = load_dataset(name)
    docs = [(p.title, f"{p.title}\n{p.text}", None) for p in data.passages]
    return docs, [(q.question, q.gold_titles, None) for q in data.questions], 5, 15


def _locomo() -> tuple[Docs, Queries, int, int]:
    data = load_conversations()
    docs = [(f"{t.dia_id}@{t.project}", t.text, t.project) for t in data.turns]
    queries = [(q.question, frozenset(f"{g}@{q.project}" for g in q.gold), q.project) for q in data.questions]
    return docs, queries, 10, 10


SETS: dict[str, Callable[[], tuple[Docs, Queries, int, int]]] = {
    "madial": _madial, "locomo": _locomo, "musique": lambda: _multihop("musique"),
    "hotpotqa": lambda: _multihop("hotpotqa")}


def measure(overrides: dict[str, Any], docs: Docs, queries: Queries, k: int, depth: int) -> tuple[float, float]:
    from graphmem import MemoryService, Settings

    service = MemoryService(Settings.load(environ={}, db=":memory:", **overrides))
    try:
        results = service.store_many([{"content": text, "project": project} for _, text, project in docs])
        ids: dict[str, list[str]] = {}
        for (doc, _, _), result in zip(docs, results, strict=True):
            ids.setdefault(result.id, []).append(doc)
        searched, associated = [], []
        for query, gold, project in queries:
            hits = [d for h in service.search(query, project=project, limit=depth).hits for d in ids[h.id]]
            recalled = [d for m in service.associate(query, project=project, max_results=depth).memories
                        for d in ids[m.id]]
            searched.append(len(gold.intersection(list(dict.fromkeys(hits))[:k])) / len(gold))
            associated.append(len(gold.intersection(list(dict.fromkeys(recalled))[:k])) / len(gold))
        return float(np.mean(searched)), float(np.mean(associated))
    finally:
        service.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    args = parser.parse_args()
    loaded = {name: SETS[name]() for name in args.sets}
    header = ["variant", *(f"{name} search / associate" for name in args.sets)]
    print("| " + " | ".join(header) + " |\n|" + "|".join("---" for _ in header) + "|")
    for variant in args.only:
        cells = [variant]
        for name in args.sets:
            search, associate = measure(VARIANTS[variant], *loaded[name])
            cells.append(f"{search:.3f} / {associate:.3f}")
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

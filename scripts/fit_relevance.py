"""Fit the relevance calibration on all four dev sets and measure the threshold (docs/retrieval.md, "Relevance").

    python scripts/fit_relevance.py                          # collect, fit, report
    python scripts/fit_relevance.py --save /tmp/evidence.json
    python scripts/fit_relevance.py --load /tmp/evidence.json # refit and report without re-running recall

Every question of MADial, LoCoMo, MuSiQue and HotpotQA is asked through ``MemoryService.search`` and
``associate`` (recall) with ``min_relevance=0`` and the sets' own protocols (``ablate_semantic.py``). Each hit of
the top ``depth`` is one example: its evidence (``graphmem.service.recall.relevance.Evidence``) and whether it is
gold. The dev sets only ask questions the store answers, where an agent also asks about things it never stored:
so each store is also asked 100 questions of another set (``FOREIGN``), whose every hit is filler (the fifth
"set", ``unanswerable``). A logistic regression per tool, the five weighted equally, gives the coefficients to
paste into ``COEFFICIENTS``. The report then applies them (with the running minimum the service applies) and prints the
calibration (relevance bins against the observed share of gold hits) and, per cut, precision and R@k per set.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from ablate_semantic import SETS, Docs, Queries

TOOLS = ("search", "associate")
# The store each set's questions are asked of as unanswerable ones: never two Wikipedia sets together.
FOREIGN = {"madial": "musique", "locomo": "hotpotqa", "musique": "locomo", "hotpotqa": "madial"}
FOREIGN_QUESTIONS = 100
CUTS = (0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
# One example: (set, tool, question index, rank, share, coverage, cosine, doc ids (json list), gold)
Example = dict[str, Any]


def collect(name: str, docs: Docs, queries: Queries, depth: int, foreign: Queries) -> list[Example]:
    """The examples of ``name``'s questions, and of ``foreign`` ones (set ``unanswerable``), over its store."""
    from graphmem import MemoryService, Settings

    service = MemoryService(Settings.load(environ={}, db=":memory:"))
    try:
        results = service.store_many([{"content": text, "project": project} for _, text, project in docs])
        ids: dict[str, list[str]] = {}
        for (doc, _, _), result in zip(docs, results, strict=True):
            ids.setdefault(result.id, []).append(doc)
        projects = [project for _, _, project in queries]
        asked = [(name, query, gold, project) for query, gold, project in queries]
        asked += [("unanswerable", query, frozenset(), projects[at % len(projects)])
                  for at, (query, _, _) in enumerate(foreign[:FOREIGN_QUESTIONS])]
        examples = []
        for index, (label, query, gold, project) in enumerate(asked):
            searched = service.search(query, project=project, limit=depth, min_relevance=0.0).hits
            recalled = service.associate(query, project=project, max_results=depth, min_relevance=0.0).memories
            for tool, hits in (("search", searched), ("associate", recalled)):
                examples += [_example(label, tool, index, hit.evidence, ids[hit.id], gold) for hit in hits]
        return [dict(e, store=name) for e in examples]
    finally:
        service.close()


def _example(name: str, tool: str, index: int, evidence: Any, docs: list[str], gold: frozenset[str]) -> Example:
    return {"set": name, "tool": tool, "q": index, "rank": evidence.rank, "share": evidence.share,
            "coverage": evidence.coverage, "cosine": evidence.cosine, "docs": docs, "gold": bool(gold & set(docs))}


def design(examples: list[Example]) -> np.ndarray:
    """The logistic's inputs, as ``Evidence.row``: intercept, coverage, cosine, log rank, share."""
    return np.array([[1.0, e["coverage"], e["cosine"], math.log(e["rank"]), e["share"]] for e in examples])


def fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton's method (a small ridge keeps it finite on separable data)."""
    beta = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-x @ beta))
        gradient = x.T @ (weight * (y - p)) - ridge * beta
        hessian = (x * (weight * p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    return beta


def equal_set_weights(examples: list[Example]) -> np.ndarray:
    counts: dict[str, int] = {}
    for e in examples:
        counts[e["set"]] = counts.get(e["set"], 0) + 1
    return np.array([len(examples) / (len(counts) * counts[e["set"]]) for e in examples])


def relevance(examples: list[Example], beta: np.ndarray) -> list[float]:
    """Each example's shown relevance: the logistic, then the running minimum down each question's list."""
    raw = 1.0 / (1.0 + np.exp(-design(examples) @ beta))
    shown: list[float] = []
    for at, e in enumerate(examples):
        same_list = at > 0 and (examples[at - 1]["store"], examples[at - 1]["q"]) == (e["store"], e["q"])
        value = float(raw[at])
        shown.append(round(min(value, shown[-1]) if same_list else value, 4))
    return shown


def calibration_table(examples: list[Example], shown: list[float]) -> list[str]:
    bins = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.01)
    weight = equal_set_weights(examples)
    lines = ["| relevance | hits | mean relevance | gold share (sets weighted equally) |", "|---|---|---|---|"]
    for low, high in itertools.pairwise(bins):
        at = [i for i, r in enumerate(shown) if low <= r < high]
        if at:
            w = weight[at]
            gold = np.array([examples[i]["gold"] for i in at], dtype=float)
            mean = float(np.average([shown[i] for i in at], weights=w))
            lines.append(f"| [{low:.2f}, {min(high, 1.0):.2f}) | {len(at)} | {mean:.3f} | "
                         f"{float(np.average(gold, weights=w)):.3f} |")
    return lines


def cut_figures(examples: list[Example], shown: list[float], gold_of: dict[tuple[str, int], frozenset[str]],
                k: int, cut: float) -> tuple[float, float, float]:
    """At ``cut``: precision of the top k kept, R@k (titles deduplicated, as the sets' protocols), hits kept."""
    lists: dict[tuple[str, int], list[str]] = {}
    for e, r in zip(examples, shown, strict=True):
        docs = lists.setdefault((e["set"], e["q"]), [])
        if r >= cut:
            docs.extend(e["docs"])
    precision, recall, kept = [], [], []
    for key, gold in gold_of.items():
        top = list(dict.fromkeys(lists.get(key, [])))[:k]
        kept.append(len(top))
        recall.append(len(gold.intersection(top)) / len(gold))
        if top:
            precision.append(len(gold.intersection(top)) / len(top))
    return float(np.mean(precision)) if precision else 0.0, float(np.mean(recall)), float(np.mean(kept))


def unanswerable_cell(examples: list[Example], shown: list[float], loaded: dict[str, tuple[Docs, Queries, int, int]],
                      cut: float) -> str:
    """Hits shown of the store's top k to the questions no memory answers, and the share shown none."""
    kept: dict[tuple[str, int], int] = {}
    for e, r in zip(examples, shown, strict=True):
        if e["set"] == "unanswerable":
            key = (e["store"], e["q"])
            kept[key] = kept.get(key, 0) + int(r >= cut and e["rank"] <= loaded[e["store"]][2])
    if not kept:
        return "-"
    return f"{np.mean(list(kept.values())):.2f} / {np.mean([v == 0 for v in kept.values()]):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path)
    parser.add_argument("--load", type=Path)
    args = parser.parse_args()
    loaded = {name: SETS[name]() for name in SETS}
    if args.load:
        examples = json.loads(args.load.read_text())
    else:
        examples = [e for name, (docs, queries, _, depth) in loaded.items()
                    for e in collect(name, docs, queries, depth, loaded[FOREIGN[name]][1])]
    if args.save:
        args.save.write_text(json.dumps(examples))
    for tool in TOOLS:
        report(tool, [e for e in examples if e["tool"] == tool], loaded)
    return 0


def report(tool: str, examples: list[Example], loaded: dict[str, tuple[Docs, Queries, int, int]]) -> None:
    beta = fit_logistic(design(examples), np.array([e["gold"] for e in examples], dtype=float),
                        equal_set_weights(examples))
    print(f"\n## {tool}: coefficients (intercept, coverage, cosine, log rank, share)")
    print("(" + ", ".join(f"{b:.3f}" for b in beta) + ")")
    shown = relevance(examples, beta)
    print("\n".join(calibration_table(examples, shown)))
    header = ["cut", *(f"{name} P / R@{loaded[name][2]} / hits" for name in loaded),
              "unanswerable: hits / none shown"]
    print("\n| " + " | ".join(header) + " |\n|" + "|".join("---" for _ in header) + "|")
    for cut in CUTS:
        cells = [f"{cut:.3f}"]
        for name, (_, queries, k, _) in loaded.items():
            mine = [e for e in examples if e["set"] == name]
            gold_of = {(name, i): gold for i, (_, gold, _) in enumerate(queries)}
            precision, recall, kept = cut_figures(mine, [r for e, r in zip(examples, shown, strict=True)
                                                         if e["set"] == name], gold_of, k, cut)
            cells.append(f"{precision:.3f} / {recall:.3f} / {kept:.2f}")
        cells.append(unanswerable_cell(examples, shown, loaded, cut))
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())

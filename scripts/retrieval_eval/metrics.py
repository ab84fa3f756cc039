"""Scoring a retriever on a dataset, and rendering results as markdown.

* ``R@k``  = |gold ∩ top-k titles| / |gold|, averaged over questions.
* ``AR@k`` = fraction of questions whose every gold title is in the top k.
* Set mode (retrievers with ``retrieve_set``): ``AR@|set|`` / ``R@|set|`` score the returned set itself, and
  ``BM25 AR@|set|`` / ``BM25 R@|set|`` score BM25's top-n where n is that question's set size, so a
  composition of n passages is compared with BM25 given the same budget.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .data import Dataset
from .protocol import Retriever, dedupe

DEFAULT_KS: tuple[int, ...] = (2, 5, 10)
BASELINE_NAME = "bm25"


def recall_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(gold.intersection(ranked[:k])) / len(gold)


def all_recall_at(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return 1.0 if gold.issubset(ranked[:k]) else 0.0


@dataclass(slots=True)
class QueryResult:
    id: str
    question: str
    gold: list[str]
    ranked: list[str]
    latency_ms: float
    set_titles: list[str] | None = None
    set_latency_ms: float | None = None
    baseline_same_size: list[str] | None = None  # BM25 top-|set| for this question (set mode only)

    @property
    def missed(self) -> list[str]:
        """Gold titles absent from the ranked list (what error analysis looks at first)."""
        return [g for g in self.gold if g not in self.ranked]


@dataclass(slots=True)
class EvalResult:
    dataset: str
    retriever: str
    n_questions: int
    n_passages: int
    ks: tuple[int, ...]
    metrics: dict[str, float]
    latencies_ms: list[float]
    index_seconds: float
    per_query: list[QueryResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ks"] = list(self.ks)
        return out


def _percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")


def evaluate(
    retriever: Retriever,
    dataset: Dataset,
    ks: Sequence[int] = DEFAULT_KS,
    *,
    baseline: Retriever | None = None,
    indexed: bool = False,
) -> EvalResult:
    """Index ``dataset.passages`` into ``retriever`` (unless ``indexed``) and score every question.

    If the retriever has ``retrieve_set(question)``, set-mode metrics are added; they need a BM25 ranking of
    each question to the same depth, taken from ``baseline`` (already indexed on the same passages) or, when
    none is given, from a BM25Baseline built here.
    """
    ks = tuple(sorted(set(ks)))
    if not ks or ks[0] < 1:
        raise ValueError("ks must be positive integers")
    depth = ks[-1]

    t0 = time.perf_counter()
    if not indexed:
        retriever.index(dataset.passages)
    index_seconds = time.perf_counter() - t0

    retrieve_set = getattr(retriever, "retrieve_set", None)
    set_mode = callable(retrieve_set)
    own_baseline = None
    if set_mode and baseline is None:
        from .bm25 import BM25Baseline

        own_baseline = baseline = BM25Baseline()
        baseline.index(dataset.passages)

    per_query: list[QueryResult] = []
    try:
        for q in dataset.questions:
            start = time.perf_counter()
            raw = retriever.retrieve(q.question, depth)
            latency_ms = (time.perf_counter() - start) * 1000.0
            qr = QueryResult(q.id, q.question, sorted(q.gold_titles), dedupe(raw)[:depth], latency_ms)
            if set_mode:
                start = time.perf_counter()
                qr.set_titles = dedupe(retrieve_set(q.question))
                qr.set_latency_ms = (time.perf_counter() - start) * 1000.0
                n = len(qr.set_titles)
                assert baseline is not None
                qr.baseline_same_size = dedupe(baseline.retrieve(q.question, n))[:n] if n else []
            per_query.append(qr)
    finally:
        if own_baseline is not None:
            own_baseline.close()

    metrics: dict[str, float] = {}
    n_q = len(per_query)
    for k in ks:
        metrics[f"R@{k}"] = (
            sum(recall_at(r.ranked, frozenset(r.gold), k) for r in per_query) / n_q if n_q else 0.0
        )
    for k in ks:
        metrics[f"AR@{k}"] = (
            sum(all_recall_at(r.ranked, frozenset(r.gold), k) for r in per_query) / n_q if n_q else 0.0
        )
    lat = [r.latency_ms for r in per_query]
    metrics["p50_ms"] = _percentile(lat, 50)
    metrics["p95_ms"] = _percentile(lat, 95)
    if set_mode and n_q:
        metrics.update(_set_metrics(per_query))

    return EvalResult(
        dataset=dataset.name,
        retriever=getattr(retriever, "name", type(retriever).__name__),
        n_questions=n_q,
        n_passages=len(dataset.passages),
        ks=ks,
        metrics=metrics,
        latencies_ms=lat,
        index_seconds=index_seconds,
        per_query=per_query,
    )


def _set_metrics(per_query: Sequence[QueryResult]) -> dict[str, float]:
    n_q = len(per_query)
    ar = r = b_ar = b_r = size = 0.0
    for qr in per_query:
        gold = frozenset(qr.gold)
        chosen = qr.set_titles or []
        base = qr.baseline_same_size or []
        n = len(chosen)
        size += n
        ar += all_recall_at(chosen, gold, n)
        r += recall_at(chosen, gold, n)
        b_ar += all_recall_at(base, gold, n)
        b_r += recall_at(base, gold, n)
    set_lat = [qr.set_latency_ms or 0.0 for qr in per_query]
    return {
        "mean_set_size": size / n_q,
        "AR@|set|": ar / n_q,
        "R@|set|": r / n_q,
        "BM25 AR@|set|": b_ar / n_q,
        "BM25 R@|set|": b_r / n_q,
        "set_p50_ms": _percentile(set_lat, 50),
        "set_p95_ms": _percentile(set_lat, 95),
    }


# ----------------------------------------------------------------------------------------------- rendering


def _fmt(x: float | None, digits: int = 3) -> str:
    if x is None or math.isnan(x):
        return "—"
    return f"{x:.{digits}f}"


def _vs(value: float, base: float) -> str:
    delta = value - base
    ratio = f"×{value / base:.2f}" if base > 0 else "×—"
    return f"{delta:+.3f} ({ratio})"


def _baseline_for(result: EvalResult, results: Sequence[EvalResult], baseline: str) -> EvalResult | None:
    for other in results:
        if other.dataset == result.dataset and other.retriever == baseline:
            return other
    return None


def format_table(results: Sequence[EvalResult], baseline: str = BASELINE_NAME, vs_metric: str = "R@5") -> str:
    """Markdown table, one row per (dataset, retriever), with a "vs BM25" column for ``vs_metric``.

    The vs column is ``delta (×ratio)`` against the baseline row of the same dataset in ``results``.
    A second table is appended for retrievers evaluated in set (composition) mode; its headers say
    ``AR@set`` for the metric keyed ``AR@|set|`` (a pipe would split a markdown cell).
    """
    if not results:
        return "(no results)"
    ks = sorted({k for r in results for k in r.ks})
    metric_cols = [f"R@{k}" for k in ks] + [f"AR@{k}" for k in ks]
    header = [
        "dataset",
        "retriever",
        "n",
        *metric_cols,
        "p50 ms",
        "p95 ms",
        f"{vs_metric} vs {baseline.upper()}",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for res in results:
        base = _baseline_for(res, results, baseline)
        if res.retriever == baseline:
            vs = "(baseline)"
        elif base is None or vs_metric not in res.metrics or vs_metric not in base.metrics:
            vs = "—"
        else:
            vs = _vs(res.metrics[vs_metric], base.metrics[vs_metric])
        cells = [
            res.dataset,
            res.retriever,
            str(res.n_questions),
            *(_fmt(res.metrics.get(m)) for m in metric_cols),
            _fmt(res.metrics.get("p50_ms"), 2),
            _fmt(res.metrics.get("p95_ms"), 2),
            vs,
        ]
        lines.append("| " + " | ".join(cells) + " |")

    set_rows = [r for r in results if "AR@|set|" in r.metrics]
    if set_rows:
        head = [
            "dataset",
            "retriever",
            "mean set size",
            "AR@set",
            f"{baseline.upper()} AR@set",
            "Δ AR",
            "R@set",
            f"{baseline.upper()} R@set",
            "set p50 ms",
        ]
        lines += ["", "Composition (set) mode — the baseline gets each question's set size as its k:", ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        for res in set_rows:
            m = res.metrics
            cells = [
                res.dataset,
                res.retriever,
                _fmt(m["mean_set_size"], 2),
                _fmt(m["AR@|set|"]),
                _fmt(m["BM25 AR@|set|"]),
                f"{m['AR@|set|'] - m['BM25 AR@|set|']:+.3f}",
                _fmt(m["R@|set|"]),
                _fmt(m["BM25 R@|set|"]),
                _fmt(m["set_p50_ms"], 2),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_deltas(results: Sequence[EvalResult], baseline: str = BASELINE_NAME) -> str:
    """Every ranking metric of every non-baseline row printed beside the same-run baseline figure."""
    out: list[str] = []
    for res in results:
        if res.retriever == baseline:
            continue
        base = _baseline_for(res, results, baseline)
        if base is None:
            continue
        parts = []
        for key in [f"R@{k}" for k in res.ks] + [f"AR@{k}" for k in res.ks]:
            if key in res.metrics and key in base.metrics:
                parts.append(
                    f"{key} {res.metrics[key]:.3f} vs {base.metrics[key]:.3f} "
                    f"({res.metrics[key] - base.metrics[key]:+.3f})"
                )
        out.append(f"{res.dataset} / {res.retriever} vs {baseline}: " + "; ".join(parts))
    return "\n".join(out)

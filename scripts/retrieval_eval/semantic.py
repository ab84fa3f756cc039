"""The semantic set: recall a user's past memories from a conversation's context (MADial-Bench, dev half).

Protocol (``../shared/eval/README.md``): one store, one project; every memory stored as
``"{event} ({time})"``; for each dialogue the query is its lines before ``test-turn[0]`` (``<BOD>`` dropped,
stripped, joined by spaces), asked with no project filter; gold = ``relevant-id``; R@5 and R@10. BM25 is the
same FTS5 baseline as the other sets, computed in the same run.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .bm25 import fts_query

__all__ = ["SEMANTIC_RETRIEVERS", "SemanticSet", "format_semantic_table", "load_semantic", "run_semantic"]


@dataclass(frozen=True, slots=True)
class SemanticSet:
    memories: dict[str, str]  # id → stored text
    queries: list[tuple[str, frozenset[str]]]  # (context, gold ids)


def default_semantic_dir() -> Path:
    return (Path(__file__).resolve().parents[2] / ".." / "shared" / "eval" / "semantic").resolve()


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_semantic(directory: str | Path | None = None, dialogues: str = "madial_dev_dialogues.json") -> SemanticSet:
    """The memories and the dialogues' contexts, exactly as the protocol writes them."""
    base = Path(directory) if directory is not None else default_semantic_dir()
    memories = {}
    for record in _lines(base / "madial_memories.json"):
        for key, value in record.items():
            memories[str(key)] = f"{value['event']} ({value['time']})"
    queries = []
    for record in _lines(base / dialogues):
        before = [line.strip() for line in record["dialogue"][1:record["test-turn"][0]]]
        queries.append((" ".join(before), frozenset(str(i) for i in record["relevant-id"])))
    return SemanticSet(memories, queries)


class SemanticRetriever(Protocol):
    name: str

    def index(self, memories: dict[str, str]) -> None: ...

    def retrieve(self, query: str, k: int) -> list[str]: ...


class SemanticBM25:
    """FTS5 porter unicode61, the query's non-stopword tokens OR-ed, ranked by bm25()."""

    name = "bm25"

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:")
        self._conn.execute("CREATE VIRTUAL TABLE m USING fts5(content, mid UNINDEXED, tokenize='porter unicode61')")

    def index(self, memories: dict[str, str]) -> None:
        self._conn.executemany("INSERT INTO m(content, mid) VALUES (?, ?)", [(t, i) for i, t in memories.items()])

    def retrieve(self, query: str, k: int) -> list[str]:
        match = fts_query(query)
        if not match:
            return []
        return [row[0] for row in self._conn.execute(
            "SELECT mid FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT ?", (match, k))]

    def close(self) -> None:
        self._conn.close()


class _Graphmem:
    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        from graphmem import MemoryService, Settings

        self.service = MemoryService(Settings.load(environ={}, db=":memory:", **(overrides or {})))
        self.ids: dict[str, str] = {}

    def index(self, memories: dict[str, str]) -> None:
        results = self.service.store_many([{"content": text} for text in memories.values()])
        for key, result in zip(memories, results, strict=True):
            self.ids.setdefault(result.id, key)

    def close(self) -> None:
        self.service.close()


class SemanticSearch(_Graphmem):
    name = "graphmem-search"

    def retrieve(self, query: str, k: int) -> list[str]:
        return [self.ids[hit.id] for hit in self.service.search(query, limit=k).hits]


class SemanticAssociate(_Graphmem):
    name = "graphmem-associate"

    def retrieve(self, query: str, k: int) -> list[str]:
        return [self.ids[m.id] for m in self.service.associate(query, max_results=k).memories]


SEMANTIC_RETRIEVERS: dict[str, Callable[[], SemanticRetriever]] = {
    "graphmem-search": SemanticSearch, "graphmem-associate": SemanticAssociate}


@dataclass(slots=True)
class SemanticResult:
    retriever: str
    metrics: dict[str, float]
    per_query: list[dict[str, Any]] = field(default_factory=list)


def evaluate_semantic(retriever: SemanticRetriever, dataset: SemanticSet,
                      ks: Sequence[int] = (5, 10)) -> SemanticResult:
    retriever.index(dataset.memories)
    per_query = []
    for query, gold in dataset.queries:
        began = time.perf_counter()
        ranked = list(dict.fromkeys(retriever.retrieve(query, max(ks))))
        latency = (time.perf_counter() - began) * 1000
        per_query.append({"gold": sorted(gold), "ranked": ranked, "latency_ms": latency,
                          **{f"R@{k}": len(gold.intersection(ranked[:k])) / len(gold) for k in ks}})
    metrics = {f"R@{k}": float(np.mean([q[f"R@{k}"] for q in per_query])) for k in ks}
    metrics["p50_ms"] = float(np.percentile([q["latency_ms"] for q in per_query], 50))
    return SemanticResult(retriever.name, metrics, per_query)


def run_semantic(dataset: SemanticSet, factories: dict[str, Callable[[], SemanticRetriever]],
                 ks: Sequence[int] = (5, 10)) -> list[SemanticResult]:
    """BM25 first, then every retriever, each on a fresh store."""
    results = []
    for name, factory in {"bm25": SemanticBM25, **factories}.items():
        retriever = factory()
        try:
            result = evaluate_semantic(retriever, dataset, ks)
        finally:
            close = getattr(retriever, "close", None)
            if callable(close):
                close()
        result.retriever = name
        results.append(result)
    return results


def format_semantic_table(results: Sequence[SemanticResult], ks: Sequence[int] = (5, 10)) -> str:
    header = ["retriever", *(f"R@{k}" for k in ks), "p50 ms"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for result in results:
        cells = [result.retriever, *(f"{result.metrics[f'R@{k}']:.3f}" for k in ks), f"{result.metrics['p50_ms']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)

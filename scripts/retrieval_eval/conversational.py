"""The conversational set (LoCoMo shape): every turn one memory, one project per conversation, R@k per category.

The protocol is fixed by ``../shared/eval/README.md``:

* one project per conversation; every turn of every ``session_<n>`` is one memory with the text
  ``"{speaker}: {text}"`` + `` [shares a photo: {blip_caption}]`` (when captioned) + `` (said on {date})``;
* all conversations in one store; every question of categories 1-4 whose evidence has at least one
  ``D<n>:<m>`` id is asked with its conversation's project as the filter (category 5 is left out);
* R@k = |gold turns ∩ top-k turns| / |gold turns|, reported overall and per category.

The BM25 baseline is the README's (FTS5 ``porter unicode61``, non-stopword query tokens OR-ed), restricted to
the question's project, and it always runs first, in the same process.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .bm25 import fts_query

__all__ = [
    "CATEGORIES", "CONVERSATION_RETRIEVERS", "ConvBM25", "ConvQuestion", "ConvResult", "ConversationSet", "Turn",
    "default_conversation_path", "evaluate_conversations", "format_conversation_table", "load_conversations",
    "run_conversations", "summarize", "turn_text",
]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_DIA_ID = re.compile(r"D\d+:\d+")


@dataclass(frozen=True, slots=True)
class Turn:
    project: str
    dia_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ConvQuestion:
    id: str
    project: str
    question: str
    category: int
    gold: frozenset[str]


@dataclass(slots=True)
class ConversationSet:
    name: str
    turns: list[Turn]
    questions: list[ConvQuestion]

    def limited(self, projects: int | None) -> ConversationSet:
        """The first ``projects`` conversations (all turns and questions of each)."""
        if projects is None:
            return self
        keep = list(dict.fromkeys(t.project for t in self.turns))[:projects]
        return ConversationSet(self.name, [t for t in self.turns if t.project in keep],
                               [q for q in self.questions if q.project in keep])


def default_conversation_path() -> Path:
    """``<repo>/../shared/eval/conversational/locomo_dev.json``."""
    repo_root = Path(__file__).resolve().parents[2]
    return (repo_root / ".." / "shared" / "eval" / "conversational" / "locomo_dev.json").resolve()


def turn_text(turn: dict[str, Any], said_on: str) -> str:
    """The memory text of one turn, exactly as the README's protocol writes it."""
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return f"{text} (said on {said_on})"


def _sessions(conversation: dict[str, Any]) -> list[tuple[list[dict[str, Any]], str]]:
    numbers = sorted(int(key.split("_")[1]) for key in conversation
                     if re.fullmatch(r"session_\d+", key) and isinstance(conversation[key], list))
    return [(conversation[f"session_{n}"], conversation.get(f"session_{n}_date_time", "")) for n in numbers]


def load_conversations(path: str | Path | None = None) -> ConversationSet:
    """Load a LoCoMo-shaped file: ``[{sample_id, conversation: {session_<n>, session_<n>_date_time}, qa}]``."""
    path = Path(path) if path is not None else default_conversation_path()
    raw = json.loads(path.read_text(encoding="utf-8"))
    turns: list[Turn] = []
    questions: list[ConvQuestion] = []
    for sample in raw:
        project = str(sample["sample_id"])
        for session, said_on in _sessions(sample["conversation"]):
            turns.extend(Turn(project, str(t["dia_id"]), turn_text(t, said_on)) for t in session)
        for number, qa in enumerate(sample.get("qa", [])):
            gold = frozenset(e for e in qa.get("evidence", []) if _DIA_ID.fullmatch(str(e)))
            category = int(qa.get("category", 0))
            if category in CATEGORIES and gold:
                questions.append(ConvQuestion(f"{project}#{number}", project, str(qa["question"]), category, gold))
    return ConversationSet(path.stem, turns, questions)


class ConvRetriever(Protocol):
    name: str

    def index(self, turns: Sequence[Turn]) -> None: ...

    def retrieve(self, question: str, project: str, k: int) -> list[str]: ...


class ConvBM25:
    """The README's BM25 over turns, filtered to the question's project (stdlib sqlite3, FTS5)."""

    name = "bm25"

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:")
        self._conn.execute("CREATE VIRTUAL TABLE turn USING fts5(content, project UNINDEXED, dia_id UNINDEXED, "
                           "tokenize='porter unicode61')")

    def index(self, turns: Sequence[Turn]) -> None:
        self._conn.executemany("INSERT INTO turn(content, project, dia_id) VALUES (?, ?, ?)",
                               [(t.text, t.project, t.dia_id) for t in turns])

    def retrieve(self, question: str, project: str, k: int) -> list[str]:
        match = fts_query(question)
        if not match:
            return []
        rows = self._conn.execute("SELECT dia_id FROM turn WHERE turn MATCH ? AND project = ? "
                                  "ORDER BY bm25(turn) LIMIT ?", (match, project, k))
        return [row[0] for row in rows]

    def close(self) -> None:
        self._conn.close()


@dataclass(slots=True)
class ConvResult:
    dataset: str
    retriever: str
    metrics: dict[str, float]
    latencies_ms: list[float]
    index_seconds: float
    per_query: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "retriever": self.retriever, "metrics": self.metrics,
                "index_seconds": self.index_seconds, "per_query": self.per_query}


def _recall(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(gold.intersection(ranked[:k])) / len(gold)


def evaluate_conversations(retriever: ConvRetriever, dataset: ConversationSet, ks: Sequence[int] = (5, 10), *,
                           indexed: bool = False) -> ConvResult:
    """Index every turn (unless ``indexed``), ask every question with its project filter, score R@k."""
    started = time.perf_counter()
    if not indexed:
        retriever.index(dataset.turns)
    index_seconds = time.perf_counter() - started
    depth = max(ks)
    per_query: list[dict[str, Any]] = []
    for question in dataset.questions:
        began = time.perf_counter()
        ranked = list(dict.fromkeys(retriever.retrieve(question.question, question.project, depth)))[:depth]
        latency = (time.perf_counter() - began) * 1000.0
        per_query.append({"id": question.id, "category": question.category, "gold": sorted(question.gold),
                          "ranked": ranked, "latency_ms": latency,
                          **{f"R@{k}": _recall(ranked, question.gold, k) for k in ks}})
    return ConvResult(dataset.name, retriever.name, summarize(per_query, ks), [q["latency_ms"] for q in per_query],
                      index_seconds, per_query)


def summarize(per_query: Sequence[dict[str, Any]], ks: Sequence[int]) -> dict[str, float]:
    """R@k overall and per category (``R@10 multi-hop``), plus latency p50/p95."""
    metrics: dict[str, float] = {"n": float(len(per_query))}
    groups: dict[str, list[dict[str, Any]]] = {"": list(per_query)}
    for number, label in CATEGORIES.items():
        groups[f" {label}"] = [q for q in per_query if q["category"] == number]
    for suffix, members in groups.items():
        for k in ks:
            metrics[f"R@{k}{suffix}"] = float(np.mean([q[f"R@{k}"] for q in members])) if members else float("nan")
    latencies = [q["latency_ms"] for q in per_query]
    metrics["p50_ms"] = float(np.percentile(latencies, 50)) if latencies else float("nan")
    metrics["p95_ms"] = float(np.percentile(latencies, 95)) if latencies else float("nan")
    return metrics


def format_conversation_table(results: Sequence[ConvResult], ks: Sequence[int] = (5, 10)) -> str:
    """Markdown: one row per retriever, R@k overall and R@max(k) per category, latency."""
    k = max(ks)
    header = ["dataset", "retriever", "n", *(f"R@{x}" for x in ks), *(f"{c} R@{k}" for c in CATEGORIES.values()),
              "p50 ms", "p95 ms"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for result in results:
        m = result.metrics
        cells = [result.dataset, result.retriever, f"{m['n']:.0f}", *(f"{m[f'R@{x}']:.3f}" for x in ks),
                 *(f"{m[f'R@{k} {c}']:.3f}" for c in CATEGORIES.values()), f"{m['p50_ms']:.2f}", f"{m['p95_ms']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _search() -> ConvRetriever:
    from .graphmem_retrievers import GraphmemConversationSearch

    return GraphmemConversationSearch()


def _associate() -> ConvRetriever:
    from .graphmem_retrievers import GraphmemConversationAssociate

    return GraphmemConversationAssociate()


CONVERSATION_RETRIEVERS: dict[str, Callable[[], ConvRetriever]] = {
    "graphmem-search": _search, "graphmem-associate": _associate}


def run_conversations(dataset: ConversationSet, factories: dict[str, Callable[[], ConvRetriever]],
                      ks: Sequence[int] = (5, 10),
                      log: Callable[[str], None] = lambda _msg: None) -> list[ConvResult]:
    """BM25 first, then every retriever, each on a fresh store holding every conversation."""
    results = []
    for name, factory in {"bm25": ConvBM25, **factories}.items():
        retriever = factory()
        try:
            result = evaluate_conversations(retriever, dataset, ks)
        finally:
            close = getattr(retriever, "close", None)
            if callable(close):
                close()
        result.retriever = name
        log(f"  {dataset.name} / {name}: index {result.index_seconds:.1f}s, R@10 {result.metrics['R@10']:.3f}")
        results.append(result)
    return results

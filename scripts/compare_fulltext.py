"""The keyword leg alone: the projection's keyword index beside SQLite FTS5 ``bm25()`` and PostgreSQL's BM25 SQL.

    python scripts/compare_fulltext.py                 # MuSiQue, HotpotQA and the LoCoMo conversations
    python scripts/compare_fulltext.py --backends index sqlite      # no PostgreSQL server
    python scripts/compare_fulltext.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432

``index`` is what ``memory_search``'s keyword leg ranks with on every database
(``graphmem.store.keyword_index.KeywordIndex``, the texts indexed as the projection indexes them, the same
query words, the conversations' projects as an allowed-node mask). The database rows below it:

Each text is inserted as a bare ``memory`` row of a store built by graphmem (``open_engine``: the same tables,
the same full-text index as ``graphmem serve``), with no concept extraction, and every question goes through
``graphmem.store.fulltext.rank``, the function behind ``memory_search``'s keyword leg: the same query terms
(``nlp.query.query_terms``), OR-ed, the conversations filtered by project before the cut. So the two rows of a
table differ only in the engine's tokenisation, stemming and ranking function (docs/retrieval.md). PostgreSQL
is a private server started for the run unless ``--postgres`` names one that lets the user create databases.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import Engine

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

from private_postgres import create_database, drop_database, private_server  # noqa: E402
from retrieval_eval.conversational import load_conversations  # noqa: E402
from retrieval_eval.data import load_dataset  # noqa: E402

from graphmem.store import fulltext  # noqa: E402
from graphmem.store.engine import open_engine  # noqa: E402
from graphmem.store.keyword_index import KeywordIndex  # noqa: E402
from nlp.query import query_terms  # noqa: E402

KS = (5, 10)


class IndexStore:
    """The keyword index in place of a database: seqs are positions, ranked as the keyword leg ranks."""

    def __init__(self) -> None:
        self.index = KeywordIndex()
        self.count = 0

    def insert(self, texts: Sequence[tuple[str, str]]) -> list[int]:
        seqs = list(range(self.count, self.count + len(texts)))
        self.index.add(seqs, [content for _, content in texts])
        self.count += len(texts)
        return seqs

    def rank(self, question: str, limit: int, allowed: list[int] | None) -> list[tuple[int, float]]:
        mask = None
        if allowed is not None:
            mask = np.zeros(self.count, dtype=bool)
            mask[allowed] = True
        return self.index.rank(query_terms(question), limit, mask)

    def dispose(self) -> None:
        pass


def _insert(engine: Engine | IndexStore, texts: Sequence[tuple[str, str]]) -> list[int]:
    """Insert (project, content) rows in order; return their seqs."""
    if isinstance(engine, IndexStore):
        return engine.insert(texts)
    rows = [{"id": f"mem_{n:020d}", "content": content, "hash": hashlib.sha256(f"{project}\0{content}".encode())
             .hexdigest(), "project": project} for n, (project, content) in enumerate(texts)]
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO memory (id, content, content_hash, kind, project_key, tags, entities, meta, created_at, "
            "last_used_at, use_count, strength, status, valid_from, concept_count) VALUES (:id, :content, :hash, "
            "'note', :project, '[]', '[]', '{}', 0, 0, 0, 1.0, 'active', 0, 0)"), rows)
        by_id = dict(connection.execute(text("SELECT id, seq FROM memory")).all())
    return [int(by_id[row["id"]]) for row in rows]


def _recall(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold) if gold else 0.0


def multihop(engine: Engine | IndexStore, name: str) -> dict[str, float]:
    dataset = load_dataset(name)
    seqs = _insert(engine, [("", f"{p.title}\n{p.text}") for p in dataset.passages])
    title_of = {seq: p.title for seq, p in zip(seqs, dataset.passages, strict=True)}
    return _score(engine, [(q.question, None, q.gold_titles) for q in dataset.questions],
                  lambda hits: list(dict.fromkeys(title_of[seq] for seq, _ in hits)))


def conversations(engine: Engine | IndexStore) -> dict[str, float]:
    dataset = load_conversations()
    seqs = _insert(engine, [(t.project, t.text) for t in dataset.turns])
    turn_of = {seq: t.dia_id for seq, t in zip(seqs, dataset.turns, strict=True)}
    by_project: dict[str, list[int]] = {}
    for seq, turn in zip(seqs, dataset.turns, strict=True):
        by_project.setdefault(turn.project, []).append(seq)
    return _score(engine, [(q.question, by_project[q.project], q.gold) for q in dataset.questions],
                  lambda hits: [turn_of[seq] for seq, _ in hits])


def _score(engine: Engine | IndexStore, questions: Sequence[tuple[str, list[int] | None, frozenset[str]]],
           names: Callable[[list[tuple[int, float]]], list[str]]) -> dict[str, float]:
    recalls: dict[int, list[float]] = {k: [] for k in KS}
    latencies: list[float] = []
    with ExitStack() as stack:
        if isinstance(engine, IndexStore):
            index = engine

            def rank(question: str, allowed: list[int] | None) -> list[tuple[int, float]]:
                return index.rank(question, 3 * max(KS), allowed)
        else:
            connection = stack.enter_context(engine.connect())

            def rank(question: str, allowed: list[int] | None) -> list[tuple[int, float]]:
                return fulltext.rank(connection, question, 3 * max(KS), allowed_seqs=allowed)
        for question, allowed, gold in questions:
            began = time.perf_counter()
            hits = rank(question, allowed)
            latencies.append((time.perf_counter() - began) * 1000)
            ranked = names(hits)
            for k in KS:
                recalls[k].append(_recall(ranked, gold, k))
    return {**{f"R@{k}": float(np.mean(values)) for k, values in recalls.items()}, "n": len(questions),
            "p50_ms": float(np.percentile(latencies, 50))}


@contextmanager
def _stores(postgres: str | None, backends: Sequence[str]) -> Iterator[dict[str, object]]:
    """A factory of fresh stores per backend; everything is removed afterwards."""
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        server = ""
        if "postgres" in backends:
            server = stack.enter_context(private_server()) if postgres is None else postgres.rstrip("/")
        created: list[str] = []

        def sqlite(label: str) -> Engine:
            return open_engine(str(folder / f"{label}.db"))

        def postgresql(_label: str) -> Engine:
            created.append(create_database(server))
            engine = open_engine(f"{server}/{created[-1]}")
            with engine.begin() as connection:  # the reference index: a store keeps none since schema 5
                fulltext.ensure_reference_index(connection)
            return engine

        try:
            factories = {"index": ("keyword index (projection)", lambda _label: IndexStore()),
                         "sqlite": ("SQLite FTS5 bm25", sqlite), "postgres": ("PostgreSQL BM25 SQL", postgresql)}
            yield {factories[name][0]: factories[name][1] for name in backends}
        finally:
            for name in created:
                drop_database(server, name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", metavar="SERVER_URL", help="an existing server (default: a private one)")
    parser.add_argument("--datasets", nargs="+", default=["musique", "hotpotqa", "locomo_dev"],
                        choices=["musique", "hotpotqa", "locomo_dev"])
    parser.add_argument("--backends", nargs="+", default=["index", "sqlite", "postgres"],
                        choices=["index", "sqlite", "postgres"])
    args = parser.parse_args(argv)
    print("| dataset | full text | n | R@5 | R@10 | p50 ms |\n|---|---|---|---|---|---|")
    with _stores(args.postgres, args.backends) as backends:
        for dataset in args.datasets:
            for label, open_store in backends.items():
                engine = open_store(f"{dataset}")  # type: ignore[operator]
                try:
                    result = conversations(engine) if dataset == "locomo_dev" else multihop(engine, dataset)
                finally:
                    engine.dispose()
                print(f"| {dataset} | {label} | {result['n']:.0f} | {result['R@5']:.3f} | {result['R@10']:.3f} | "
                      f"{result['p50_ms']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

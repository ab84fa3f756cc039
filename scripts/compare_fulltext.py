"""The keyword leg alone on both backends: SQLite FTS5 ``bm25()`` vs PostgreSQL ``ts_rank_cd`` over the same texts.

    python scripts/compare_fulltext.py                 # MuSiQue, HotpotQA and the LoCoMo conversations
    python scripts/compare_fulltext.py --postgres postgresql+psycopg://postgres@127.0.0.1:5432

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

KS = (5, 10)


def _insert(engine: Engine, texts: Sequence[tuple[str, str]]) -> list[int]:
    """Insert (project, content) rows in order; return their seqs."""
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


def multihop(engine: Engine, name: str) -> dict[str, float]:
    dataset = load_dataset(name)
    seqs = _insert(engine, [("", f"{p.title}\n{p.text}") for p in dataset.passages])
    title_of = {seq: p.title for seq, p in zip(seqs, dataset.passages, strict=True)}
    return _score(engine, [(q.question, None, q.gold_titles) for q in dataset.questions],
                  lambda hits: list(dict.fromkeys(title_of[seq] for seq, _ in hits)))


def conversations(engine: Engine) -> dict[str, float]:
    dataset = load_conversations()
    seqs = _insert(engine, [(t.project, t.text) for t in dataset.turns])
    turn_of = {seq: t.dia_id for seq, t in zip(seqs, dataset.turns, strict=True)}
    by_project: dict[str, list[int]] = {}
    for seq, turn in zip(seqs, dataset.turns, strict=True):
        by_project.setdefault(turn.project, []).append(seq)
    return _score(engine, [(q.question, by_project[q.project], q.gold) for q in dataset.questions],
                  lambda hits: [turn_of[seq] for seq, _ in hits])


def _score(engine: Engine, questions: Sequence[tuple[str, list[int] | None, frozenset[str]]],
           names: Callable[[list[tuple[int, float]]], list[str]]) -> dict[str, float]:
    recalls: dict[int, list[float]] = {k: [] for k in KS}
    latencies: list[float] = []
    with engine.connect() as connection:
        for question, allowed, gold in questions:
            began = time.perf_counter()
            hits = fulltext.rank(connection, question, 3 * max(KS), allowed_seqs=allowed)
            latencies.append((time.perf_counter() - began) * 1000)
            ranked = names(hits)
            for k in KS:
                recalls[k].append(_recall(ranked, gold, k))
    return {**{f"R@{k}": float(np.mean(values)) for k, values in recalls.items()}, "n": len(questions),
            "p50_ms": float(np.percentile(latencies, 50))}


@contextmanager
def _stores(postgres: str | None) -> Iterator[dict[str, object]]:
    """A factory of fresh stores per backend; everything is removed afterwards."""
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        server = stack.enter_context(private_server()) if postgres is None else postgres.rstrip("/")
        created: list[str] = []

        def sqlite(label: str) -> Engine:
            return open_engine(str(folder / f"{label}.db"))

        def postgresql(_label: str) -> Engine:
            created.append(create_database(server))
            return open_engine(f"{server}/{created[-1]}")

        try:
            yield {"SQLite FTS5 bm25": sqlite, "PostgreSQL BM25 (graphmem)": postgresql}
        finally:
            for name in created:
                drop_database(server, name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", metavar="SERVER_URL", help="an existing server (default: a private one)")
    parser.add_argument("--datasets", nargs="+", default=["musique", "hotpotqa", "locomo_dev"],
                        choices=["musique", "hotpotqa", "locomo_dev"])
    args = parser.parse_args(argv)
    print("| dataset | full text | n | R@5 | R@10 | p50 ms |\n|---|---|---|---|---|---|")
    with _stores(args.postgres) as backends:
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

"""The keyword leg alone on one store's memories: the projection's keyword index beside ``fulltext.rank``.

``memory_search`` ranks with the keyword index (``graphmem.store.keyword_index``) on every database; this
times it, built from the same rows, query by query in turns with ``graphmem.store.fulltext.rank`` (FTS5's
``bm25()``, PostgreSQL's BM25 SQL), and compares its rankings with each database's.

The memories of a store that ``scripts/bench_scale.py --keep DIR`` kept are read from its SQLite file; the
PostgreSQL side copies their seq, content and project into a private server's ``memory`` table with the
generated tsvector and GIN index ``fulltext.ensure_reference_index`` builds (a store keeps none since schema
5), so both databases rank the same texts. The queries are drawn as the scale bench draws them (half agent
notes, half chat turns).

Each query runs through the current ``rank`` and, on PostgreSQL, through the BM25 SQL of an older tree
(``--baseline-tree``, e.g. a ``git archive`` of main) on the same connection, in turns, and the two
rankings are compared (same seqs, scores within 1e-9).

    python scripts/bench_keywords.py --store ~/scale-stores/scale-100000.db --baseline-tree /tmp/base
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

import conversation_synthetic  # noqa: E402
import synthetic  # noqa: E402

__all__ = ["common_words", "main"]

_LIMIT = 100  # the engine asks the keyword leg for fusion.candidates (100) hits


def _rows(store: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        return [(int(seq), str(content), str(project or "")) for seq, content, project in
                connection.execute("SELECT seq, content, project_key FROM memory ORDER BY seq")]


def _queries(rows: list[tuple[int, str, str]], count: int) -> list[str]:
    chats = [{"content": c} for _, c, _ in rows if ": " in c and "(said on" in c]
    notes = [{"content": c} for _, c, _ in rows if not (": " in c and "(said on" in c)]
    half = count // 2
    picked = synthetic.queries(notes, half, seed=3) + conversation_synthetic.queries(chats, count - half, seed=4)
    random.Random(5).shuffle(picked)
    return [query for query in picked if query.strip()]


def _timed(fns: list[Callable[[str], Any]], queries: list[str]) -> list[tuple[float, float, list[Any]]]:
    """p50, p95 (ms) and the results of each function over the queries, the functions taking turns query
    by query, so that all of them meet the same load."""
    samples: list[list[float]] = [[] for _ in fns]
    results: list[list[Any]] = [[] for _ in fns]
    for query in queries[:5]:
        for fn in fns:
            fn(query)
    for query in queries:
        for index, fn in enumerate(fns):
            start = time.perf_counter()
            results[index].append(fn(query))
            samples[index].append((time.perf_counter() - start) * 1000)
    return [(statistics.median(times), sorted(times)[int(0.95 * (len(times) - 1))], found)
            for times, found in zip(samples, results, strict=True)]


def _same(a: list[list[tuple[int, float]]], b: list[list[tuple[int, float]]]) -> str:
    """How many queries rank the same: the same scores in order (within 1e-9) and the same seqs apart from
    the order of ties (the SQL orders by score alone, so equal scores come in any order)."""
    same = sum(len(x) == len(y) and all(abs(p - q) < 1e-9 for (_, p), (_, q) in zip(x, y, strict=True))
               and _untied(x) == _untied(y) for x, y in zip(a, b, strict=True))
    return f"{same} of {len(a)}"


def _overlap(a: list[list[tuple[int, float]]], b: list[list[tuple[int, float]]], k: int = 10) -> str:
    """How much of each query's top k two rankings share (mean), and how many queries share all of it in
    order. The keyword index counts a memory's content tokens; the store's FTS5 index also counts the
    project's scope token in a document's length (store/fulltext.py), so scores differ slightly."""
    shared = [len({n for n, _ in x[:k]} & {n for n, _ in y[:k]}) / max(min(k, len(y)), 1)
              for x, y in zip(a, b, strict=True)]
    exact = sum([n for n, _ in x[:k]] == [n for n, _ in y[:k]] for x, y in zip(a, b, strict=True))
    return f"{100 * sum(shared) / max(len(shared), 1):.1f} % shared, {exact} of {len(a)} in the same order"


def _untied(ranking: list[tuple[int, float]]) -> set[int]:
    """The seqs whose score no other hit shares, and every seq above the last score (a tie at the cut may
    keep different members)."""
    last = ranking[-1][1] if ranking else 0.0
    return {seq for seq, score in ranking if abs(score - last) >= 1e-9}


def _load_postgres(url: str, rows: list[tuple[int, str, str]]) -> Any:
    from sqlalchemy import create_engine, text

    from graphmem.store import fulltext

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1) if "+" not in url else url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE memory (seq bigint PRIMARY KEY, content text NOT NULL, "
                                "project_key text NOT NULL DEFAULT '')"))
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        buffer = io.StringIO("".join(f"{seq}\t{_tsv(content)}\t{_tsv(project)}\n" for seq, content, project in rows))
        with cursor.copy("COPY memory (seq, content, project_key) FROM STDIN") as copy:
            copy.write(buffer.getvalue())
        fulltext.ensure_reference_index(connection)
        connection.execute(text("ANALYZE memory"))
    return engine


def _load_sqlite(path: Path, rows: list[tuple[int, str, str]]) -> Any:
    """A SQLite file with only the memory table's three columns and the store's FTS5 index over them."""
    from sqlalchemy import create_engine, text

    from graphmem.store import fulltext

    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE memory (seq INTEGER PRIMARY KEY, content TEXT NOT NULL, "
                                "project_key TEXT NOT NULL DEFAULT '')"))
        connection.connection.dbapi_connection.executemany(  # type: ignore[union-attr]
            "INSERT INTO memory (seq, content, project_key) VALUES (?, ?, ?)", rows)
        fulltext.ensure_index(connection)
        connection.execute(text("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')"))
    return engine


def _tsv(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _module(tree: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("baseline_fulltext", tree / "graphmem" / "store" / "fulltext.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def common_words(store: Path, queries: list[str], share: float = 0.05, total: int = 0,
                 seqs: int = 0) -> dict[str, set[str]]:
    """Per query, the words in more than ``share`` of the memories: the keyword leg leaves them out of the
    match when the filter is larger than ``fusion.bm25_guard_scope`` (``KeywordLeg._common_words``, which
    reads the concepts' document frequency; here FTS5's, for the same words)."""
    from nlp.query import query_terms

    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as connection:
        total = total or connection.execute("SELECT count(*) FROM memory").fetchone()[0]
        last = seqs or connection.execute("SELECT max(seq) FROM memory").fetchone()[0]
        words = {word for query in queries for word in query_terms(query)}
        df = {word: connection.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ? AND rowid <= ?",
                                       ['content : "' + word.replace('"', '""') + '"', last]).fetchone()[0]
              for word in words}
    return {query: {w for w in query_terms(query) if df[w] > share * total} for query in queries}


class IndexRank:
    """The projection's keyword index over the same rows, behind ``fulltext.rank``'s signature (seqs are the
    index's nodes; the words kept as ``rank`` keeps them)."""

    def __init__(self, rows: list[tuple[int, str, str]]) -> None:
        from graphmem.store.keyword_index import KeywordIndex

        self.index = KeywordIndex()
        began = time.perf_counter()
        self.index.add([seq for seq, _, _ in rows], [content for _, content, _ in rows])
        self.index.merge()
        self.build_seconds = time.perf_counter() - began

    def rank(self, _connection: Any, query: str, limit: int, skip_terms: Any = ()) -> list[tuple[int, float]]:
        from nlp.query import query_terms

        words = query_terms(query)
        kept = [word for word in words if word not in skip_terms]
        return self.index.rank(kept or words, limit)


class ExhaustiveRank(IndexRank):
    """The same index without the top-k cut: every matching memory scored (k above the store), then cut."""

    def __init__(self, index: IndexRank) -> None:
        self.index, self.build_seconds = index.index, index.build_seconds

    def rank(self, _connection: Any, query: str, limit: int, skip_terms: Any = ()) -> list[tuple[int, float]]:
        return super().rank(_connection, query, self.index.documents + 1, skip_terms)[:limit]


def _bench(name: str, connection: Any, queries: list[str], baseline: ModuleType | None,
           skip: dict[str, set[str]], index: IndexRank | None = None) -> list[str]:
    from graphmem.store import fulltext

    lines = []
    for label, skipped in (("every word", {q: set() for q in queries}), ("common words left out", skip)):
        modules: list[Any] = [fulltext] + ([] if baseline is None else [baseline])
        modules += [] if index is None else [index, ExhaustiveRank(index)]
        timed = _timed([lambda q, m=m, s=skipped: m.rank(connection, q, _LIMIT, skip_terms=s[q]) for m in modules],
                       queries)
        (p50, p95, current), *others = timed
        cell = ""
        if baseline is not None:
            b50, b95, found = others.pop(0)
            cell = f"{b50:.2f} / {b95:.2f} (same rankings: {_same(current, found)})"
        index_cell = ""
        if index is not None:
            i50, i95, found = others.pop(0)
            e50, e95, every = others.pop(0)
            same = sum(x == y for x, y in zip(found, every, strict=True))
            index_cell = (f"{i50:.2f} / {i95:.2f} (top 10 as {name}'s: {_overlap(found, current)}) "
                          f"| {e50:.2f} / {e95:.2f} (the cut's ranking the same: {same} of {len(found)})")
        lines.append(f"| {name}, {label} | {p50:.2f} / {p95:.2f} | {cell} | {index_cell or ' |'} |")
    return lines


def _run_backends(args: argparse.Namespace, rows: list[tuple[int, str, str]], queries: list[str],
                  skip: dict[str, set[str]], baseline: ModuleType | None, whole: bool) -> list[str]:
    lines: list[str] = []
    index = IndexRank(rows) if args.index else None
    if index is not None:
        lines.append(f"| keyword index built from the rows in {index.build_seconds:.1f} s: "
                     f"{len(index.index.vocabulary):,} terms, {index.index.postings:,} postings, "
                     f"{index.index.nbytes() / 2**20:.1f} MiB of arrays | | | | |")
    if "sqlite" in args.backends:
        with tempfile.TemporaryDirectory() as scratch:
            from sqlalchemy import create_engine

            engine = create_engine(f"sqlite:///{args.store}") if whole else _load_sqlite(Path(scratch) / "k.db", rows)
            with engine.connect() as connection:
                lines += _bench("sqlite", connection, queries, baseline, skip, index)
            engine.dispose()
    if "postgres" in args.backends:
        from private_postgres import create_database, private_server

        with private_server() as server:
            engine = _load_postgres(f"{server}/{create_database(server)}", rows)
            with engine.connect() as connection:
                for jit in (["on", "off"] if args.jit == "both" else [args.jit]):
                    connection.exec_driver_sql(f"SET jit = {jit}")
                    lines += _bench(f"postgres, jit {jit}", connection, queries, baseline, skip, index)
            engine.dispose()
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True, help="a SQLite store (e.g. bench_scale.py --keep)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--baseline-tree", type=Path, help="also time this tree's graphmem/store/fulltext.py")
    parser.add_argument("--sizes", type=int, nargs="+",
                        help="rank over the store's first N memories for each N (a fresh index each), not the store")
    parser.add_argument("--jit", choices=["on", "off", "both"], default="both",
                        help="PostgreSQL: time with the JIT compiler on, off, or both")
    parser.add_argument("--backends", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"])
    parser.add_argument("--no-index", dest="index", action="store_false",
                        help="leave out the projection's keyword index (timed beside each database by default)")
    parser.add_argument("--replicate", type=int, default=1, metavar="K",
                        help="also: the keyword index alone over the store's memories repeated K times (every "
                             "posting list K times longer, the statistics alike): the growth to K× the store "
                             "without ingesting it")
    args = parser.parse_args()
    baseline = _module(args.baseline_tree) if args.baseline_tree else None
    every_row = _rows(args.store)
    for size in args.sizes or [len(every_row)]:
        rows = every_row[:size]
        queries = _queries(rows, args.queries)
        skip = common_words(args.store, queries, total=len(rows), seqs=rows[-1][0] if rows else 0)
        print(f"\n{len(rows):,} memories, {len(queries)} queries")
        print("| keyword leg (100 hits) | fulltext.rank p50 / p95 (ms) | baseline tree p50 / p95 (ms) "
              "| keyword index p50 / p95 (ms) | keyword index without the top-k cut p50 / p95 (ms) |")
        print("|---|---|---|---|---|")
        for line in _run_backends(args, rows, queries, skip, baseline, whole=size >= len(every_row)):
            print(line, flush=True)
    if args.replicate > 1:
        _replicated(every_row, args.replicate, args.queries)
    return 0


def _replicated(rows: list[tuple[int, str, str]], times: int, count: int) -> None:
    """The keyword index with and without the top-k cut over ``rows`` repeated ``times`` times (seqs offset),
    the queries drawn from the rows as above, the same every-word / common-words-left-out split (common: in
    more than 5 % of the memories, by the index's own document frequencies)."""
    from nlp.query import query_terms

    top = max(seq for seq, _, _ in rows) + 1
    copies = [(seq + copy * top, content, project) for copy in range(times) for seq, content, project in rows]
    queries = _queries(rows, count)
    index = IndexRank(copies)
    limit = 0.05 * index.index.documents
    skip = {query: {word for word in query_terms(query)
                    if any(index.index._df[term] > limit for term in index.index.query_weights([word]))}
            for query in queries}
    print(f"\n{len(copies):,} memories ({times}x the store), {len(queries)} queries: the keyword index alone, "
          f"built in {index.build_seconds:.1f} s, {index.index.postings:,} postings, "
          f"{index.index.nbytes() / 2**20:.1f} MiB")
    print("| keyword index (100 hits) | with the top-k cut p50 / p95 (ms) | without the cut p50 / p95 (ms) |")
    print("|---|---|---|")
    for label, skipped in (("every word", {q: set() for q in queries}), ("common words left out", skip)):
        rankers = (index, ExhaustiveRank(index))
        (c50, c95, cut), (e50, e95, every) = _timed(
            [lambda q, m=m, s=skipped: m.rank(None, q, _LIMIT, skip_terms=s[q]) for m in rankers], queries)
        same = sum(x == y for x, y in zip(cut, every, strict=True))
        print(f"| {label} | {c50:.2f} / {c95:.2f} | {e50:.2f} / {e95:.2f} (the same ranking: {same} of {len(cut)}) |",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Evaluate retrievers on multi-hop QA sets beside a BM25 baseline computed in the same run.

Usage (from the repo root, inside the venv)::

    python scripts/eval_retrieval.py                          # BM25 on MuSiQue and HotpotQA
    python scripts/eval_retrieval.py --dataset musique --limit 20 --retriever bm25 graphmem-search
    python scripts/eval_retrieval.py --corpus my_corpus.json --questions my_questions.json --json out.json
    python scripts/eval_retrieval.py --conversational --retriever graphmem-search graphmem-associate
    python scripts/eval_retrieval.py --postgres --retriever graphmem-search   # graphmem on PostgreSQL

``--postgres`` stores graphmem's memories in PostgreSQL instead of an in-memory SQLite store: a fresh
database per retriever and dataset, on a private server started from the installed binaries for the run
(``private_postgres.py``, as the tests do), or, given ``--postgres URL`` (e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432``), on that server, which must let the user create and drop
databases. The BM25 baseline is the harness's own and does not change.

``--conversational [PATH]`` runs the LoCoMo-shaped conversation set instead (default
``<repo>/../shared/eval/conversational/locomo_dev.json``) with the README's protocol: one project per
conversation, all in one store, R@5/R@10 overall and per category, BM25 filtered by project in the same run
(``retrieval_eval/conversational.py``). ``--projects N`` keeps the first N conversations.

Data: ``--data-dir`` (default ``<repo>/../shared/eval/multihop``) holds ``<name>_train.json`` and
``<name>_train_corpus.json`` for ``musique`` and ``hotpotqa``; ``--corpus``/``--questions`` take your own
files in either shape (see ``retrieval_eval/data.py``). ``--limit N`` keeps the first N questions and the
whole passage pool. Metrics: R@k, AR@k (k = 2, 5, 10), per-query latency p50/p95 (wall time of ``retrieve``
only; index time is reported separately). BM25 always runs, first, on each dataset, so every figure is printed
beside a baseline measured on the same machine in the same run.

Adding a retriever
------------------
Register a zero-argument factory in ``RETRIEVERS`` below (or from your own script, before calling ``main``)::

    def _graphmem_search() -> Retriever:
        from graphmem import MemoryService   # import inside the factory: bm25-only runs need no graphmem
        return GraphmemSearch(MemoryService(...))

    RETRIEVERS["graphmem-search"] = _graphmem_search

The object returned must satisfy ``retrieval_eval.Retriever``:

* ``name: str`` — the row label (use the registry key);
* ``index(passages)`` — store every ``Passage(title, text)`` (e.g. one memory each, title + text as content,
  the title kept as metadata); called once per dataset on a fresh instance, timed as index time;
* ``retrieve(question, k) -> list[str]`` — passage *titles*, best first (map hits back through the stored
  title metadata); the harness deduplicates titles keeping the first occurrence;
* optional ``retrieve_set(question) -> list[str]`` — a variable-size set (composition mode, e.g.
  ``graphmem-compose``); the harness then also reports AR@|set| / R@|set| and BM25's AR/R at the same
  per-question size;
* optional ``close()`` — called after the dataset is done (temp databases, threads).

A factory that raises, or a retriever that raises mid-run, is reported and skipped; the exit code is then 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:  # allow `python -m scripts.eval_retrieval` and imports from tests
    sys.path.insert(0, str(_HERE))

from retrieval_eval import (  # noqa: E402
    BM25Baseline,
    Dataset,
    EvalResult,
    Retriever,
    evaluate,
    format_deltas,
    format_table,
    load_dataset,
)
from retrieval_eval.data import BUILTIN_DATASETS, default_data_dir, load_files  # noqa: E402
from retrieval_eval.metrics import BASELINE_NAME, DEFAULT_KS  # noqa: E402

RETRIEVERS: dict[str, Callable[[], Retriever]] = {
    BASELINE_NAME: BM25Baseline,
}


def _register_graphmem() -> None:
    from retrieval_eval.graphmem_retrievers import GraphmemAssociate, GraphmemCompose, GraphmemSearch

    RETRIEVERS["graphmem-search"] = GraphmemSearch
    RETRIEVERS["graphmem-associate"] = GraphmemAssociate
    RETRIEVERS["graphmem-compose"] = GraphmemCompose  # retrieve_set -> composition-mode metrics


_register_graphmem()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Retrieval evaluation (R@k, AR@k, latency) beside a same-run BM25 baseline.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset", choices=[*BUILTIN_DATASETS, "all"], default="all")
    p.add_argument("--data-dir", type=Path, default=None, help=f"default: {default_data_dir()}")
    p.add_argument("--corpus", type=Path, help="your own corpus file (use with --questions)")
    p.add_argument("--questions", type=Path, help="your own questions file (use with --corpus)")
    p.add_argument("--name", help="dataset label for --corpus/--questions (default: questions file stem)")
    p.add_argument("--limit", type=int, default=None, help="first N questions only (full passage pool kept)")
    p.add_argument("--ks", type=int, nargs="+", default=list(DEFAULT_KS), help="cut-offs (default 2 5 10)")
    p.add_argument(
        "--retriever",
        nargs="+",
        action="extend",
        default=None,
        metavar="NAME",
        help=f"registered retrievers to run (BM25 always runs too); known: {', '.join(RETRIEVERS)}",
    )
    p.add_argument("--conversational", type=Path, nargs="?", const=True, default=None, metavar="PATH",
                   help="run the conversational set (LoCoMo shape) instead of the multi-hop sets")
    p.add_argument("--projects", type=int, default=None, help="conversational: first N conversations only")
    p.add_argument("--postgres", nargs="?", const="private", default=None, metavar="SERVER_URL",
                   help="graphmem stores in PostgreSQL: a private server for the run, or this server URL")
    p.add_argument("--json", type=Path, help="write metrics, latencies and per-question rankings here")
    p.add_argument("--quiet", action="store_true", help="print only the tables")
    return p


def _load(args: argparse.Namespace) -> list[Dataset]:
    if args.corpus or args.questions:
        if not (args.corpus and args.questions):
            raise SystemExit("error: --corpus and --questions go together")
        return [load_files(args.corpus, args.questions, name=args.name)]
    names = list(BUILTIN_DATASETS) if args.dataset == "all" else [args.dataset]
    return [load_dataset(n, data_dir=args.data_dir) for n in names]


def run(
    datasets: Sequence[Dataset],
    retriever_names: Sequence[str],
    ks: Sequence[int] = DEFAULT_KS,
    log: Callable[[str], None] = lambda _msg: None,
) -> tuple[list[EvalResult], list[str]]:
    """Evaluate BM25 then every named retriever on every dataset. Returns (results, error messages)."""
    names = [BASELINE_NAME, *(n for n in dict.fromkeys(retriever_names) if n != BASELINE_NAME)]
    results: list[EvalResult] = []
    errors: list[str] = []
    for ds in datasets:
        baseline = BM25Baseline()
        try:
            for name in names:
                retriever: Retriever | None = None
                t0 = time.perf_counter()
                try:
                    if name == BASELINE_NAME:
                        retriever = baseline
                        res = evaluate(baseline, ds, ks)
                    else:
                        retriever = RETRIEVERS[name]()
                        res = evaluate(retriever, ds, ks, baseline=baseline)
                    res.retriever = name
                    results.append(res)
                    log(
                        f"  {ds.name:>10} / {name:<20} index {res.index_seconds:6.2f}s, "
                        f"total {time.perf_counter() - t0:6.2f}s"
                    )
                except Exception as exc:
                    errors.append(f"{ds.name} / {name}: {type(exc).__name__}: {exc}")
                    log(traceback.format_exc())
                    if name == BASELINE_NAME:
                        break  # nothing to compare against
                finally:
                    close = getattr(retriever, "close", None)
                    if retriever is not baseline and callable(close):
                        close()
        finally:
            baseline.close()
    return results, errors


@contextmanager
def _graphmem_store(postgres: str | None, log: Callable[[str], None]) -> Iterator[None]:
    """With ``--postgres``: every graphmem retriever opened inside stores into a new PostgreSQL database."""
    if postgres is None:
        yield
        return
    from private_postgres import create_database, drop_database, private_server
    from retrieval_eval.graphmem_retrievers import use_store

    with ExitStack() as stack:
        server = stack.enter_context(private_server()) if postgres == "private" else postgres.rstrip("/")
        created: list[str] = []

        def new_store() -> str:
            created.append(create_database(server))
            return f"{server}/{created[-1]}"

        log(f"graphmem stores in PostgreSQL: {server}")
        use_store(new_store)
        try:
            yield
        finally:
            for name in created:
                drop_database(server, name)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with _graphmem_store(args.postgres, lambda msg: None if args.quiet else print(msg, file=sys.stderr)):
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    requested = args.retriever or [BASELINE_NAME]
    unknown = [n for n in requested if n not in RETRIEVERS]
    if unknown:
        print(f"error: unknown retriever(s) {unknown}; registered: {sorted(RETRIEVERS)}", file=sys.stderr)
        return 2
    if args.limit is not None and args.limit < 1:
        print("error: --limit must be >= 1", file=sys.stderr)
        return 2

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr)

    if args.conversational is not None:
        return run_conversational(args, requested, log)
    t_start = time.perf_counter()
    datasets = [ds.limited(args.limit) for ds in _load(args)]
    for ds in datasets:
        missing = ds.missing_gold()
        log(f"{ds.name}: {len(ds.questions)} questions, {len(ds.passages)} passages")
        if missing:
            log(
                f"  warning: {len(missing)} question(s) have gold titles absent from the corpus: "
                f"{dict(list(missing.items())[:3])}"
            )
    t_loaded = time.perf_counter()

    results, errors = run(datasets, requested, args.ks, log=log)
    elapsed = time.perf_counter() - t_start

    print(format_table(results))
    deltas = format_deltas(results)
    if deltas:
        print()
        print(deltas)
    log(f"\nload {t_loaded - t_start:.2f}s, total {elapsed:.2f}s")
    for err in errors:
        print(f"error: {err}", file=sys.stderr)

    if args.json:
        payload = {
            "config": {
                "datasets": [ds.name for ds in datasets],
                "retrievers": [BASELINE_NAME, *(n for n in requested if n != BASELINE_NAME)],
                "limit": args.limit,
                "ks": sorted(set(args.ks)),
            },
            "elapsed_seconds": elapsed,
            "errors": errors,
            "results": [r.to_dict() for r in results],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
        log(f"wrote {args.json}")
    return 1 if errors else 0


def run_conversational(args: argparse.Namespace, requested: Sequence[str], log: Callable[[str], None]) -> int:
    """The conversational protocol: BM25 then the requested graphmem tools, one store, R@k per category."""
    from retrieval_eval.conversational import (
        CONVERSATION_RETRIEVERS,
        format_conversation_table,
        load_conversations,
        run_conversations,
    )

    path = None if args.conversational is True else args.conversational
    dataset = load_conversations(path).limited(args.projects)
    log(f"{dataset.name}: {len(dataset.questions)} questions, {len(dataset.turns)} turns")
    factories = {name: CONVERSATION_RETRIEVERS[name] for name in requested if name in CONVERSATION_RETRIEVERS}
    results = run_conversations(dataset, factories, log=log)
    print(format_conversation_table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([r.to_dict() for r in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

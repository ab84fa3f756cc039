"""Where the bulk writer's time goes (issue 22): the write path alone, its phases, on a store of a given size.

    python scripts/profile_writer.py --base 10000 --backend sqlite                # fresh store grown to 10k
    python scripts/profile_writer.py --base 100000 --backend postgres --keep DIR  # keeps the grown store
    python scripts/profile_writer.py --from DIR/store.db --measure 5000           # a copy of a kept store
    python scripts/profile_writer.py --single 600 --measure 300                   # single memory_store calls

The store is grown to ``--base`` observations with ``store_many`` (the scale bench's corpus: half agent
notes, half chat turns), then ``--measure`` more observations of the same corpus are drafted in this
process (the parse, timed apart) and written batch by batch through ``MemoryWrites.insert``, the bulk
import's write step, with each phase of the write timed by CPU (``time.process_time``) and wall clock:
the memory rows (with the FTS5 trigger on SQLite), concept upserts, mentions, co-occurrence upserts, the
rest of the transaction (sessions, change log, commit) and the projection's follow. ``--profile`` adds
the top of a cProfile of the write loop. On PostgreSQL the server's CPU is not in the CPU columns.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

import bench_scale  # noqa: E402

__all__ = ["main"]

_PHASES = ("validate", "parse", "duplicates", "memory rows", "concept upsert", "mentions", "co-occurrence",
           "projection follow")


def _timed_phases(totals: dict[str, list[float]]) -> Iterator[None]:
    """Wrap the repository's write steps and the projection's apply with CPU / wall accumulators."""
    from graphmem.service.memories import drafts, writes
    from graphmem.store import projection, repository

    targets = {"validate": (drafts, "validate_observation"), "parse": (writes, "build_drafts"),
               "duplicates": (repository, "_split_duplicates"),
               "memory rows": (repository.bulk, "run"), "concept upsert": (repository, "_upsert_concepts"),
               "mentions": (repository, "_insert_mentions"), "co-occurrence": (repository, "_add_cooccurrences"),
               "projection follow": (projection.GraphProjection, "apply_batches")}
    originals: dict[str, Any] = {}
    depth = [0]

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if name == "memory rows" and depth[0]:  # bulk.run inside another phase belongs to it
                return fn(*args, **kwargs)
            depth[0] += 1
            cpu, wall = time.process_time(), time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
                totals[name][0] += time.process_time() - cpu
                totals[name][1] += time.perf_counter() - wall
        return timed

    started = [0.0, 0.0]

    def collecting(phase: str, _info: dict[str, Any]) -> None:  # the garbage collector's time, inside the phases
        if phase == "start":
            started[:] = [time.process_time(), time.perf_counter()]
        else:
            totals["(gc, inside the above)"][0] += time.process_time() - started[0]
            totals["(gc, inside the above)"][1] += time.perf_counter() - started[1]

    for name, (owner, attr) in targets.items():
        originals[name] = getattr(owner, attr)
        setattr(owner, attr, wrap(name, originals[name]))
    gc.callbacks.append(collecting)
    try:
        yield
    finally:
        gc.callbacks.remove(collecting)
        for name, (owner, attr) in targets.items():
            setattr(owner, attr, originals[name])


def _store(args: argparse.Namespace, stack: ExitStack) -> str:
    if args.source:
        if "://" in args.source:  # a copy of that database on its server, dropped at the end
            import private_postgres

            server, name = str(args.source).rsplit("/", 1)
            copy = private_postgres.create_database(server, template=name)
            stack.callback(private_postgres.drop_database, server, copy)
            return f"{server}/{copy}"
        copy = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=args.scratch))) / "store.db"
        shutil.copy(args.source, copy)
        snapshot = Path(f"{args.source}.projection.npz")  # a kept store opens from its snapshot, not its rows
        if snapshot.exists():
            shutil.copy(snapshot, f"{copy}.projection.npz")
        return str(copy)
    if args.backend == "postgres":
        import private_postgres

        server = args.server or stack.enter_context(private_postgres.private_server())
        return f"{server}/{private_postgres.create_database(server)}"
    folder = Path(args.keep) if args.keep else Path(stack.enter_context(tempfile.TemporaryDirectory()))
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / "store.db")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--base", type=int, default=10_000, help="observations stored before the measured ones")
    parser.add_argument("--measure", type=int, default=5_000, help="observations written and timed")
    parser.add_argument("--from", dest="source", help="a kept store (copied) or a database URL, instead of growing")
    parser.add_argument("--scratch", help="the directory a kept store is copied into (default: the system's)")
    parser.add_argument("--keep", help="grow the SQLite store in this directory and keep it")
    parser.add_argument("--server", help="grow in a new database on this PostgreSQL server and keep it")
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile of the write loop")
    parser.add_argument("--store-many", action="store_true", help="time store_many end to end instead")
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() before the timed writes")
    parser.add_argument("--single", type=int, help="single stores into a fresh store of this many passages")
    args = parser.parse_args()
    if args.single is not None:
        _single(args)
    else:
        _bulk(args)


def _bulk(args: argparse.Namespace) -> None:
    from graphmem import MemoryService, Settings
    from graphmem.service.memories.drafts import build_drafts
    from graphmem.service.memories.writes import IMPORT_BATCH, _validated

    with ExitStack() as stack:
        db = _store(args, stack)
        service = MemoryService(Settings.load(environ={}, db=db))
        corpus = bench_scale._corpus()
        base = 0 if args.source else args.base
        if base:
            started = time.perf_counter()
            service.store_many([next(corpus) for _ in range(base)])
            print(f"grown to {base:,} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        else:  # skip past what the kept store holds, so the measured texts are new
            for _ in range(service.projection.memory_count):
                next(corpus)
        records = [next(corpus) for _ in range(args.measure)]
        if args.store_many:
            _store_many(service, records, db)
            return
        observations = [_validated(service.uow, n, record) for n, record in enumerate(records, start=1)]
        batches = [observations[i : i + IMPORT_BATCH] for i in range(0, len(observations), IMPORT_BATCH)]
        cpu = time.process_time()
        drafted = [build_drafts(service.uow.extractor, batch) for batch in batches]
        parse_cpu = time.process_time() - cpu
        totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        profiler = cProfile.Profile() if args.profile else None
        if args.gc_freeze:
            gc.freeze()  # what the store holds so far is left out of every collection of the write loop
        with contextmanager(_timed_phases)(totals):
            cpu, wall = time.process_time(), time.perf_counter()
            if profiler:
                profiler.enable()
            for batch, drafts in zip(batches, drafted, strict=True):
                service.writes.insert(batch, drafts)
            service.uow.fresh()  # the writes' queued projection effects, applied as a read would apply them
            if profiler:
                profiler.disable()
            write_cpu, write_wall = time.process_time() - cpu, time.perf_counter() - wall
        n = len(observations)
        backend = "postgres" if "://" in db else "sqlite"
        print(f"{db.rsplit('/', 1)[-1]}: {backend} at {service.projection.memory_count - n:,} memories, "
              f"{n:,} observations written")
        print(f"parse (drafting, in this process): {parse_cpu / n * 1e3:.3f} ms CPU per observation")
        print(f"write: {write_cpu / n * 1e3:.3f} ms CPU, {write_wall / n * 1e3:.3f} ms wall per observation "
              f"({n / write_wall:,.0f} obs/s wall)")
        named_cpu = sum(totals[name][0] for name in _PHASES)
        named_wall = sum(totals[name][1] for name in _PHASES)
        for name in _PHASES:
            print(f"  {name:<20} {totals[name][0] / n * 1e3:6.3f} ms CPU {totals[name][1] / n * 1e3:6.3f} ms wall")
        print(f"  {'rest (tx, commit)':<20} {(write_cpu - named_cpu) / n * 1e3:6.3f} ms CPU "
              f"{(write_wall - named_wall) / n * 1e3:6.3f} ms wall")
        _print_gc(totals, n)
        if profiler:
            order, rows = os.environ.get("PROFILE_SORT", "tottime"), int(os.environ.get("PROFILE_ROWS", "25"))
            pstats.Stats(profiler).sort_stats(order).print_stats(rows)
        service.uow.close()


def _store_many(service: Any, records: list[dict[str, object]], db: str) -> None:
    """The import as a user runs it: ``store_many``, drafting worker and all, with each process's CPU."""
    import resource

    def used(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    own, worker, wall = used(resource.RUSAGE_SELF), used(resource.RUSAGE_CHILDREN), time.perf_counter()
    service.store_many(records)
    own, worker = used(resource.RUSAGE_SELF) - own, used(resource.RUSAGE_CHILDREN) - worker
    wall = time.perf_counter() - wall
    n = len(records)
    print(f"{db.rsplit('/', 1)[-1]}: store_many of {n:,} at {service.projection.memory_count:,}: "
          f"{n / wall:,.0f} obs/s wall, {n / (own + worker):,.0f} obs per CPU-second; ms CPU per observation: "
          f"importing process {own / n * 1e3:.3f}, drafting worker {worker / n * 1e3:.3f}")
    service.uow.close()


def _single(args: argparse.Namespace) -> None:
    import bench_mcp

    from graphmem import MemoryService, Settings

    texts = bench_mcp.passages(args.single + args.measure)
    with tempfile.TemporaryDirectory() as folder:
        service = MemoryService(Settings.load(environ={}, db=str(Path(folder) / "store.db")))
        for content in texts[: args.single]:
            service.store(content)
        totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        walls, cpus = [], []
        with contextmanager(_timed_phases)(totals):
            for content in texts[args.single :]:
                cpu, wall = time.process_time(), time.perf_counter()
                service.store(content)
                cpus.append(time.process_time() - cpu)
                walls.append(time.perf_counter() - wall)
        service.close()
    n = len(walls)
    print(f"single store at {args.single:,} memories, {n} calls: p50 {sorted(walls)[n // 2] * 1e3:.2f} ms wall, "
          f"{sorted(cpus)[n // 2] * 1e3:.2f} ms CPU; mean {sum(cpus) / n * 1e3:.2f} ms CPU")
    for name in _PHASES:
        print(f"  {name:<20} {totals[name][0] / n * 1e3:6.3f} ms CPU {totals[name][1] / n * 1e3:6.3f} ms wall")
    _print_gc(totals, n)


def _print_gc(totals: dict[str, list[float]], n: int) -> None:
    cpu, wall = totals["(gc, inside the above)"]
    print(f"  {'(gc, inside the above)':<20} {cpu / n * 1e3:6.3f} ms CPU {wall / n * 1e3:6.3f} ms wall")


if __name__ == "__main__":
    main()

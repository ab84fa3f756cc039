"""Opening a large store: the projection built from the rows beside the same store opened from its snapshot.

    python scripts/bench_open.py --memories 100000        # builds the store once under ~/.cache/graphmem-bench

Both figures come from the same run on the same store: a cold open with the snapshot removed (every row
read), then an open from the snapshot that the first open wrote, plus the change log since.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))

import synthetic  # noqa: E402

from graphmem import MemoryService, Settings  # noqa: E402

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "graphmem-bench"

__all__ = ["open_rows"]


def _store(memories: int) -> Path:
    db = CACHE / f"open-{memories}.db"
    if not db.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        service = MemoryService(Settings.load(environ={}, db=str(db)))
        service.store_many(synthetic.observations(memories, seed=7))
        service.close()
    return db


def _open_seconds(db: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds to open the store (projection ready), and the memories it holds."""
    wall, cpu = time.perf_counter(), time.process_time()
    service = MemoryService(Settings.load(environ={}, db=str(db)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    count = service.projection.memory_count
    service.uow.close()  # no close(): this measurement must not refresh the snapshot
    return wall, cpu, count


def open_rows(memories: int) -> list[tuple[str, str, str]]:
    """Rows for scripts/bench.py: (measure, graphmem, baseline)."""
    db = _store(memories)
    snapshot = Path(f"{db}.projection.npz")
    snapshot.unlink(missing_ok=True)
    rows_wall, rows_cpu, count = _open_seconds(db)  # a full load, which writes the snapshot
    assert snapshot.exists(), "the full load of a large store writes its snapshot"
    snap_wall, snap_cpu, _ = _open_seconds(db)
    size_mb = snapshot.stat().st_size / 2**20
    return [(f"open a {count:,}-memory store from its snapshot (s, wall / CPU)",
             f"{snap_wall:.2f} / {snap_cpu:.2f}",
             f"{rows_wall:.2f} / {rows_cpu:.2f} (built from the rows); snapshot {size_mb:.0f} MB")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    args = parser.parse_args()
    for measure, value, baseline in open_rows(args.memories):
        print(f"| {measure} | {value} | {baseline} |")


if __name__ == "__main__":
    main()

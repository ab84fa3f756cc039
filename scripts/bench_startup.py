"""Start-up figures for ``scripts/bench.py``: ``graphmem --help`` wall time and ``serve``'s ``initialize`` latency.

Both run ``graphmem`` as a fresh process, the way a shell or an MCP client does, so the figures include
interpreter start and every import. The baseline column is ``python -c pass``: the floor any Python CLI pays.
The server's CPU seconds up to its answer are given too: on a shared, busy machine they move far less than
wall time does.

    python scripts/bench_startup.py              # the rows alone
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["bench_startup", "help_seconds", "initialize_seconds"]

_INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "0"}}}


def _graphmem() -> list[str]:
    return [sys.executable, "-m", "graphmem.cli"]


def _wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    return time.perf_counter() - start


def help_seconds(runs: int = 5) -> float:
    """Median wall time of ``graphmem --help``."""
    return statistics.median(_wall([*_graphmem(), "--help"]) for _ in range(runs))


def initialize_seconds(db: Path, timeout: float = 60.0) -> tuple[float, float]:
    """Wall time and the server's CPU time, from starting ``graphmem serve`` (stdio) to its ``initialize`` answer."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    server = subprocess.Popen([*_graphmem(), "--db", str(db), "--create", "serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ})
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write((json.dumps(_INITIALIZE) + "\n").encode())
        server.stdin.flush()
        with selectors.DefaultSelector() as selector:
            selector.register(server.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                raise TimeoutError(f"graphmem serve did not answer initialize within {timeout} s")
        answer = json.loads(server.stdout.readline())
        elapsed = time.perf_counter() - start
        if answer.get("id") != 1 or "result" not in answer:
            raise RuntimeError(f"unexpected answer to initialize: {answer}")
    finally:
        server.kill()
        server.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # a killed child's CPU counts once it is reaped
    return elapsed, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def bench_startup(runs: int = 5) -> list[tuple[str, str, str]]:
    """The start-up rows: (measure, graphmem, baseline from the same run)."""
    floor = statistics.median(_wall([sys.executable, "-c", "pass"]) for _ in range(runs))
    walls, cpus = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as scratch:  # an empty store each time
            wall, cpu = initialize_seconds(Path(scratch) / "memory.db")
        walls.append(wall)
        cpus.append(cpu)
    return [
        ("`graphmem --help` wall (s, median)", f"{help_seconds(runs):.2f}", f"{floor:.2f} (python -c pass)"),
        ("`serve` stdio initialize, empty store: wall (s, median)", f"{statistics.median(walls):.2f}",
         f"{floor:.2f} (python -c pass)"),
        ("`serve` stdio initialize, empty store: server CPU (s, median)", f"{statistics.median(cpus):.2f}", "-"),
    ]


if __name__ == "__main__":
    for row in bench_startup():
        print(" | ".join(row))

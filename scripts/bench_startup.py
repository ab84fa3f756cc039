"""Start-up figures for ``scripts/bench.py``: ``graphmem --help`` wall time and ``serve``'s ``initialize`` latency.

Both run ``graphmem`` as a fresh process, the way a shell or an MCP client does, so the figures include
interpreter start and every import. The baseline column is ``python -c pass``: the floor any Python CLI pays.
The server's CPU seconds up to its answer are given too: on a shared, busy machine they move far less than
wall time does.

    python scripts/bench_startup.py              # the rows alone
    python scripts/bench_startup.py --cli --baseline-tree /tmp/base   # the CLI rows, this tree and another in turns
    python scripts/bench_startup.py --baseline-tree /tmp/base         # serve's initialize: this tree, another
                                                                      # and the reference server in turns
"""

from __future__ import annotations

import compileall
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
TREE = Path(__file__).resolve().parents[1]  # "this tree": the graphmem beside this script

__all__ = ["bench_startup", "cli_rows", "cli_versus", "compiled", "help_seconds", "initialize_seconds",
           "serve_versus"]

_INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "0"}}}


def _graphmem() -> list[str]:
    # -P: the working directory is not put on sys.path, so the tree measured is the one PYTHONPATH names
    # (run from a checkout, ``-m`` imported that checkout's graphmem whatever --baseline-tree said)
    return [sys.executable, "-P", "-m", "graphmem.cli"]


def _env(tree: Path | None = None) -> dict[str, str]:
    """The environment of a graphmem process importing ``tree`` (default: this tree)."""
    return {**os.environ, "PYTHONPATH": str(tree or TREE)}


def compiled(*trees: Path | None) -> None:
    """Write the bytecode of each tree's packages, as ``pip install`` does. Without it, a process under
    ``PYTHONDONTWRITEBYTECODE=1`` (set on this project's machines) or on a read-only checkout compiles every
    graphmem module it imports, each time it starts: 0.25 s of CPU of a ``graphmem show`` at load 5."""
    for tree in trees:
        for package in ("graphmem", "nlp"):
            compileall.compile_dir((tree or TREE) / package, quiet=1)


def _wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, timeout=60, env=_env())
    return time.perf_counter() - start


def help_seconds(runs: int = 5) -> float:
    """Median wall time of ``graphmem --help``."""
    return statistics.median(_wall([*_graphmem(), "--help"]) for _ in range(runs))


def initialize_seconds(db: Path, timeout: float = 60.0, argv: list[str] | None = None,
                       env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall time and the server's CPU time, from starting ``graphmem serve`` (stdio; or ``argv``) to its
    ``initialize`` answer."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    server = subprocess.Popen(argv or [*_graphmem(), "--db", str(db), "--create", "serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env or _env())
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


def _reference_initialize(scratch: Path) -> float | None:
    """The MCP reference memory server's ``initialize`` wall time, or ``None`` without node and the package."""
    from bench_mcp import reference_server

    command = reference_server()
    if command is None:
        return None
    env = {**os.environ, "MEMORY_FILE_PATH": str(scratch / "reference.jsonl")}
    return initialize_seconds(scratch / "unused.db", argv=command, env=env)[0]


def serve_versus(baseline: Path, runs: int = 5) -> list[str]:
    """``serve``'s ``initialize`` on an empty store: this tree, ``baseline`` and the reference server taking turns
    run by run (same load); median wall and server CPU seconds of each."""
    compiled(None, baseline)
    costs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(runs):
        for label, tree in (("this tree", None), ("baseline", baseline)):
            with tempfile.TemporaryDirectory() as scratch:
                costs.setdefault(label, []).append(initialize_seconds(Path(scratch) / "memory.db", env=_env(tree)))
        with tempfile.TemporaryDirectory() as scratch:
            reference = _reference_cost(Path(scratch))
            if reference is not None:
                costs.setdefault("reference", []).append(reference)
    lines = ["| `serve` stdio initialize, empty store | wall / CPU (s, median) | runs |", "|---|---|---|"]
    for label, measured in costs.items():
        lines.append(f"| {label} | {statistics.median(w for w, _ in measured):.2f} / "
                     f"{statistics.median(c for _, c in measured):.2f} | {len(measured)} |")
    return lines


def _reference_cost(scratch: Path) -> tuple[float, float] | None:
    """The reference server's ``initialize`` wall and CPU seconds, or ``None`` without node and the package."""
    from bench_mcp import reference_server

    command = reference_server()
    if command is None:
        return None
    env = {**os.environ, "MEMORY_FILE_PATH": str(scratch / "reference.jsonl")}
    return initialize_seconds(scratch / "unused.db", argv=command, env=env)


def _cli_seconds(db: Path, command: list[str]) -> float:
    return _wall([*_graphmem(), "--db", str(db), *command])


def _small_store(db: Path) -> str:
    """A store of three memories; returns one id (for ``show``)."""
    done = subprocess.run([*_graphmem(), "--db", str(db), "--create", "--json", "store",
                           "Canary deploys use the flamingo feature flag service"], check=True,
                          capture_output=True, text=True, env=_env())
    for text in ("The worker retries webhooks three times", "Sessions are kept in Redis for a day"):
        subprocess.run([*_graphmem(), "--db", str(db), "store", text], check=True, capture_output=True, env=_env())
    return str(json.loads(done.stdout)["id"])


def _cli_cost(db: Path, command: list[str], tree: Path | None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one CLI run; ``tree``: import graphmem from there instead."""
    env = _env(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*_graphmem(), "--db", str(db), *command], check=True, capture_output=True, timeout=60, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def cli_versus(baseline: Path, runs: int = 5) -> list[str]:
    """The CLI commands that parse no text, this tree and ``baseline`` taking turns run by run (same load):
    median wall and CPU seconds of each."""
    compiled(None, baseline)
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "small.db"
        memory_id = _small_store(db)
        commands = {"show": ["show", memory_id], "stats": ["stats"], "sessions": ["sessions"], "export": ["export"]}
        costs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(runs):
            for name, argv in commands.items():
                for label, tree in (("this tree", None), ("baseline", baseline)):
                    costs.setdefault((name, label), []).append(_cli_cost(db, argv, tree))
    lines = ["| command, 3-memory store | this tree wall / CPU (s, median) | baseline tree wall / CPU (s, median) |",
             "|---|---|---|"]
    for name in commands:
        cells = [f"{statistics.median(w for w, _ in costs[name, label]):.2f} / "
                 f"{statistics.median(c for _, c in costs[name, label]):.2f}" for label in ("this tree", "baseline")]
        lines.append(f"| `graphmem {name}` | {cells[0]} | {cells[1]} |")
    return lines


def cli_rows(runs: int = 5) -> list[tuple[str, str, str]]:
    """Wall time of the CLI commands that parse no text, on a small store (median of ``runs``)."""
    compiled(None)
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "small.db"
        memory_id = _small_store(db)
        commands = {"show": ["show", memory_id], "stats": ["stats"], "sessions": ["sessions"],
                    "export": ["export"]}
        return [(f"`graphmem {name}`, 3-memory store: wall (s, median)",
                 f"{statistics.median(_cli_seconds(db, argv) for _ in range(runs)):.2f}", "target <= 1.0")
                for name, argv in commands.items()]


def bench_startup(runs: int = 5) -> list[tuple[str, str, str]]:
    """The start-up rows: (measure, graphmem, baseline from the same run). The graphmem and reference
    servers start in turns, so both meet the same load."""
    compiled(None)
    floor = statistics.median(_wall([sys.executable, "-c", "pass"]) for _ in range(runs))
    walls, cpus, reference = [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as scratch:  # an empty store each time
            wall, cpu = initialize_seconds(Path(scratch) / "memory.db")
            reference_wall = _reference_initialize(Path(scratch))
        walls.append(wall)
        cpus.append(cpu)
        if reference_wall is not None:
            reference.append(reference_wall)
    versus = f"{statistics.median(reference):.2f} (reference server)" if reference else "reference unavailable"
    return [
        ("`graphmem --help` wall (s, median)", f"{help_seconds(runs):.2f}", f"{floor:.2f} (python -c pass)"),
        ("`serve` stdio initialize, empty store: wall (s, median)", f"{statistics.median(walls):.2f}", versus),
        ("`serve` stdio initialize, empty store: server CPU (s, median)", f"{statistics.median(cpus):.2f}",
         f"{floor:.2f} (python -c pass, wall)"),
        *cli_rows(runs),
    ]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", action="store_true", help="only the CLI commands that parse no text")
    parser.add_argument("--baseline-tree", type=Path, help="also run this tree's graphmem, in turns")
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    # On a shared machine wall time is CPU time over the share of a core a process gets: say what the load was.
    load_before = os.getloadavg()[0]
    if options.cli and options.baseline_tree:
        print("\n".join(cli_versus(options.baseline_tree, options.runs)))
    elif options.baseline_tree:
        print("\n".join(serve_versus(options.baseline_tree, options.runs)))
    else:
        for row in (cli_rows(options.runs) if options.cli else bench_startup(options.runs)):
            print(" | ".join(row))
    print(f"load average (1 min) {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, {os.cpu_count()} cores")

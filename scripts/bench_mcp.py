"""Single calls through a real MCP client over stdio: graphmem beside the MCP reference memory server.

Both servers run as subprocesses and receive the same texts in the same run:

* ``memory_store`` of one passage  vs  the reference server's ``create_entities`` with that passage as the
  entity's one observation (the reference server rewrites its JSON-lines file on every call);
* ``memory_search``                vs  ``search_nodes`` (a substring scan of every entity), both once the
  store holds ``--memories`` passages;
* the freshness check a graphmem read makes when nothing changed (in-process, microseconds).

The reference server is ``@modelcontextprotocol/server-memory`` from npm, installed on first use into
``~/.cache/graphmem-bench`` (pinned below).

    python scripts/bench_mcp.py --memories 2000 --calls 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

REFERENCE_PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "graphmem-bench"
CI_COPY = Path(__file__).resolve().parents[1] / ".ci" / "refserver"
MUSIQUE = Path(__file__).resolve().parents[2] / "shared" / "eval" / "multihop" / "musique_train_corpus.json"

__all__ = ["mcp_rows", "reference_server"]


def reference_server() -> list[str] | None:
    """The command that starts the reference server: the CI's copy (``.ci/refserver``, installed with
    ``npm install --prefix .ci/refserver @modelcontextprotocol/server-memory``), else the cache's, installed once."""
    package = Path("node_modules") / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
    if (CI_COPY / package).exists():
        return ["node", str(CI_COPY / package)]
    entry = CACHE / package
    if not entry.exists():
        if not shutil.which("npm"):
            return None
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["npm", "install", "--silent", "--prefix", str(CACHE), REFERENCE_PACKAGE],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0 or not entry.exists():
            print(f"reference server not installed: {done.stderr.strip()[:200]}", file=sys.stderr)
            return None
    return ["node", str(entry)]


def passages(count: int) -> list[str]:
    corpus = json.loads(MUSIQUE.read_text())
    texts = [f"{p['title']}: {p['text']}" for p in corpus]
    return [texts[i % len(texts)] + ("" if i < len(texts) else f" (copy {i // len(texts)})") for i in range(count)]


def _p50(samples: list[float]) -> float:
    return statistics.median(samples)


class _Server:
    """One server under test: its connection parameters and how it stores a text and searches."""

    def __init__(self, params: StdioServerParameters, store: Callable[[Client, str], Awaitable[Any]],
                 search: Callable[[Client, str], Awaitable[Any]]) -> None:
        self.params, self.store, self.search = params, store, search
        self.client: Client | None = None
        self.samples: dict[str, list[float]] = {"store": [], "search": []}

    async def call(self, what: str, text: str, timed: bool) -> None:
        assert self.client is not None
        start = time.perf_counter()
        result = await (self.store if what == "store" else self.search)(self.client, text)
        if timed:
            self.samples[what].append((time.perf_counter() - start) * 1000)
        if getattr(result, "is_error", False):
            raise RuntimeError(f"tool error: {result.content}")


async def _run(servers: list[_Server], texts: list[str], queries: list[str], timed_stores: int) -> list[float]:
    """Fill both stores, then time the last ``timed_stores`` stores and every search, the two servers taking
    turns call by call: on a shared machine the load changes within seconds, and alternating puts both
    servers' samples under the same load (run one after the other, the ratio moved by 2x between runs).
    Returns each server's connect + initialize time (ms)."""
    connect_ms = []
    async with AsyncExitStack() as stack:
        for server in servers:
            started = time.perf_counter()
            server.client = await stack.enter_async_context(Client(server.params))
            connect_ms.append((time.perf_counter() - started) * 1000)
        for index, text in enumerate(texts):
            for server in servers:
                await server.call("store", text, timed=index >= len(texts) - timed_stores)
        for index, query in enumerate([*queries[:5], *queries]):  # five warm-up queries
            for server in servers:
                await server.call("search", query, timed=index >= 5)
    return connect_ms


def _graphmem(db: Path, tree: Path | None = None) -> StdioServerParameters:
    """``graphmem serve`` on a new empty store; with ``tree``, the code of that source tree (the same
    interpreter and packages), so an older commit runs beside this one in the same run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    subprocess.run([sys.executable, "-m", "graphmem.cli", "--db", str(db), "init"], env=env, check=True,
                   capture_output=True)  # an empty store, as `graphmem init` makes
    env["GRAPHMEM_DB"] = str(db)
    return StdioServerParameters(command=sys.executable, args=["-m", "graphmem.cli", "serve"], env=env)


def _reference(command: list[str], memory_file: Path) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:],
                                 env={**os.environ, "MEMORY_FILE_PATH": str(memory_file)})


async def _measure(memories: int, calls: int, baseline_tree: Path | None = None) -> list[tuple[str, str, str]]:
    texts = passages(memories)
    queries = [" ".join(t.split(":", 1)[0].split()[:3]) for t in texts[:: max(1, memories // calls)]][:calls]
    with tempfile.TemporaryDirectory() as scratch:
        graphmem = _Server(_graphmem(Path(scratch) / "g.db"),
                           lambda c, t: c.call_tool("memory_store", {"content": t}),
                           lambda c, q: c.call_tool("memory_search", {"query": q}))
        command = reference_server()
        if command is None:
            await _run([graphmem], texts, queries, min(calls, memories // 2))
            return [("MCP memory_store p50 (ms)", f"{_p50(graphmem.samples['store']):.2f}",
                     "reference server unavailable")]
        counter = iter(range(10**9))
        reference = _Server(_reference(command, Path(scratch) / "ref.jsonl"),
                            lambda c, t: c.call_tool("create_entities", {"entities": [
                                {"name": f"passage {next(counter)}", "entityType": "passage", "observations": [t]}]}),
                            lambda c, q: c.call_tool("search_nodes", {"query": q}))
        servers = [graphmem, reference]
        if baseline_tree is not None:
            servers.append(_Server(_graphmem(Path(scratch) / "b.db", baseline_tree), graphmem.store, graphmem.search))
        g_connect, r_connect, *_ = await _run(servers, texts, queries, min(calls, memories // 2))
    g_store, r_store = _p50(graphmem.samples["store"]), _p50(reference.samples["store"])
    g_search, r_search = _p50(graphmem.samples["search"]), _p50(reference.samples["search"])
    return [*_baseline_rows(servers[2:], memories, r_store, r_search),
        (f"MCP memory_store p50, store of {memories:,} (ms)", f"{g_store:.2f} ({g_store / r_store:.2f}x)",
         f"{r_store:.2f} (reference create_entities)"),
        (f"MCP memory_search p50 at {memories:,} (ms)", f"{g_search:.2f} ({g_search / r_search:.2f}x)",
         f"{r_search:.2f} (reference search_nodes)"),
        ("MCP connect + initialize, empty store (ms)", f"{g_connect:.0f}", f"{r_connect:.0f} (reference)"),
    ]


def _baseline_rows(baseline: list[_Server], memories: int, r_store: float, r_search: float
                   ) -> list[tuple[str, str, str]]:
    if not baseline:
        return []
    b_store, b_search = _p50(baseline[0].samples["store"]), _p50(baseline[0].samples["search"])
    return [(f"baseline tree: memory_store p50, store of {memories:,} (ms)",
             f"{b_store:.2f} ({b_store / r_store:.2f}x)", f"{r_store:.2f} (reference create_entities)"),
            (f"baseline tree: memory_search p50 at {memories:,} (ms)",
             f"{b_search:.2f} ({b_search / r_search:.2f}x)", f"{r_search:.2f} (reference search_nodes)")]


def freshness_row() -> tuple[str, str, str]:
    """The per-read freshness check when nothing changed, in-process."""
    from graphmem import MemoryService, Settings

    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(environ={}, db=str(Path(scratch) / "f.db")))
        service.store("Zebra-striped canary deploys use the flamingo feature flag service")
        rounds = 20_000
        start = time.perf_counter()
        for _ in range(rounds):
            service.uow.fresh()
        per_call_ms = (time.perf_counter() - start) * 1000 / rounds
        service.close()
    return ("freshness check per read, nothing changed (ms)", f"{per_call_ms:.4f}", "target <= 0.2")


def mcp_rows(memories: int = 2000, calls: int = 300) -> list[tuple[str, str, str]]:
    """Rows for scripts/bench.py: (measure, graphmem, baseline)."""
    return [*asyncio.run(_measure(memories, calls)), freshness_row()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[600, 2000],
                        help="store sizes, each a fresh store (default: 600 2000)")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--baseline-tree", type=Path,
                        help="also run graphmem from this source tree (e.g. `git archive` of main), call by call")
    args = parser.parse_args()
    for memories in args.memories:
        for measure, value, baseline in asyncio.run(_measure(memories, args.calls, args.baseline_tree)):
            print(f"| {measure} | {value} | {baseline} |", flush=True)
    measure, value, baseline = freshness_row()
    print(f"| {measure} | {value} | {baseline} |")


if __name__ == "__main__":
    main()

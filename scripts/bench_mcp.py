"""Single calls through a real MCP client over stdio: graphmem beside the MCP reference memory server.

Both servers run as subprocesses and receive the same texts in the same run:

* ``memory_store`` of one passage  vs  the reference server's ``create_entities`` with that passage as the
  entity's one observation (the reference server rewrites its JSON-lines file on every call);
* ``memory_search``                vs  ``search_nodes`` (a substring scan of every entity), both once the
  store holds ``--memories`` passages;
* the freshness check a graphmem read makes when nothing changed (in-process, microseconds).

Two clients (``--client sdk raw``; default ``sdk``): ``sdk`` is the Python SDK's ``mcp.Client``, which
validates every structured result against the tool's output schema (jsonschema) inside the timer; ``raw``
writes newline-delimited JSON-RPC to the server's stdin and reads its answer line, after the ``initialize``
handshake, and parses nothing but the answer's id and error flag: the client the issue measured with. Each
client talks to its own server processes; every server of the run takes turns with every other, call by
call. Beside each p50 the server's own CPU per call, read from ``/proc/<pid>/stat`` (the CPU between the start
of the first and the end of the last timed call of a phase, over the calls: the server idles while the
others answer), and the client's CPU per call (this process's thread, where the client runs, during the
call; p50).

The reference server is ``@modelcontextprotocol/server-memory`` from npm, installed on first use into
``~/.cache/graphmem-bench`` (pinned below).

    python scripts/bench_mcp.py --memories 2000 --calls 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
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
from mcp_types.version import LATEST_HANDSHAKE_VERSION

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


class _RawResult:
    def __init__(self, answer: dict[str, Any]) -> None:
        self.is_error = "error" in answer or bool(answer.get("result", {}).get("isError"))
        self.content = answer.get("error") or answer.get("result", {}).get("content")


class RawClient:
    """A bare MCP client over stdio: newline-delimited JSON-RPC, the ``initialize`` handshake, then one
    request at a time; an answer is matched by its id and not validated (notifications are skipped)."""

    def __init__(self, params: StdioServerParameters) -> None:
        self.params = params
        self.process: asyncio.subprocess.Process | None = None
        self._ids = iter(range(1, 10**12))

    async def __aenter__(self) -> RawClient:
        self.process = await asyncio.create_subprocess_exec(
            self.params.command, *self.params.args, env=self.params.env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=None, limit=1 << 26)
        await self.request("initialize", {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                                          "clientInfo": {"name": "bench_mcp", "version": "0"}})
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process is not None and self.process.stdout is not None
        ident = next(self._ids)
        await self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            line = await self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.params.command}: the server closed its output")
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == ident and ("result" in answer or "error" in answer):
                return answer

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> _RawResult:
        return _RawResult(await self.request("tools/call", {"name": name, "arguments": arguments}))


def _children() -> set[int]:
    """This process's child processes (a server's pid, read before and after it starts)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found.add(int(entry.name))
    return found


def _cpu_seconds(pid: int | None) -> float:
    """A process's user + system CPU time (s), from /proc; NaN when unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Server:
    """One server under test: its connection parameters, its client (``sdk`` or ``raw``) and how it stores a
    text and searches."""

    def __init__(self, params: StdioServerParameters, store: Callable[[Any, str], Awaitable[Any]],
                 search: Callable[[Any, str], Awaitable[Any]], client: str = "sdk") -> None:
        self.params, self.store, self.search, self.kind = params, store, search, client
        self.client: Any = None
        self.pid: int | None = None
        self.samples: dict[str, list[float]] = {"store": [], "search": []}
        self.cpu: dict[str, list[float]] = {"store": [], "search": []}  # CPU (s) at the first and last timed call
        # The client's own CPU per call (ms): the bench's thread, where the client's tasks run, during the call
        self.client_cpu: dict[str, list[float]] = {"store": [], "search": []}

    async def connect(self, stack: AsyncExitStack) -> None:
        before = _children()
        self.client = await stack.enter_async_context(Client(self.params) if self.kind == "sdk"
                                                      else RawClient(self.params))
        started = _children() - before
        self.pid = started.pop() if len(started) == 1 else None

    async def call(self, what: str, text: str, timed: bool) -> None:
        assert self.client is not None
        if timed and not self.cpu[what]:
            self.cpu[what].append(_cpu_seconds(self.pid))
        start, client_start = time.perf_counter(), time.thread_time()
        result = await (self.store if what == "store" else self.search)(self.client, text)
        if timed:
            self.samples[what].append((time.perf_counter() - start) * 1000)
            self.client_cpu[what].append((time.thread_time() - client_start) * 1000)
            self.cpu[what][1:] = [_cpu_seconds(self.pid)]
        if getattr(result, "is_error", False):
            raise RuntimeError(f"tool error: {result.content}")

    def cpu_ms(self, what: str) -> float:
        """The server's CPU per timed call (ms): from the first timed call's start to the last one's end (the
        server idles while the others answer), over the timed calls."""
        first, *last = self.cpu[what]
        return (last[0] - first) * 1000 / len(self.samples[what]) if last else float("nan")


def _turn(servers: list[_Server], index: int) -> list[_Server]:
    """The servers in the order of round ``index``: a shuffle seeded by the round, so every server follows every
    other equally often. In a fixed order (and in a rotation of it, which keeps each server's predecessor) a
    server always came after the same one, and a graphmem server still busy after its answer slowed the next:
    at load 15-20 the same code measured 19-38 ms after the reference server and 38-74 ms after a graphmem
    server, with the same server CPU per call."""
    order = list(servers)
    random.Random(index).shuffle(order)
    return order


async def _run(servers: list[_Server], texts: list[str], queries: list[str], timed_stores: int) -> list[float]:
    """Fill every store, then time the last ``timed_stores`` stores and every search, the servers taking
    turns call by call (:func:`_turn`): on a shared machine the load changes within seconds, and alternating
    puts every server's samples under the same load (run one after the other, the ratio moved by 2x between runs).
    Returns each server's connect + initialize time (ms)."""
    connect_ms = []
    async with AsyncExitStack() as stack:
        for server in servers:
            started = time.perf_counter()
            await server.connect(stack)
            connect_ms.append((time.perf_counter() - started) * 1000)
        for index, text in enumerate(texts):
            for server in _turn(servers, index):
                await server.call("store", text, timed=index >= len(texts) - timed_stores)
        for index, query in enumerate([*queries[:5], *queries]):  # five warm-up queries
            for server in _turn(servers, index):
                await server.call("search", query, timed=index >= 5)
    return connect_ms


def _graphmem(db: Path, tree: Path | None = None) -> StdioServerParameters:
    """``graphmem serve`` on a new empty store; with ``tree``, the code of that source tree (the same
    interpreter and packages), so an older commit runs beside this one in the same run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    subprocess.run([sys.executable, "-P", "-m", "graphmem.cli", "--db", str(db), "init"], env=env, check=True,
                   capture_output=True)  # an empty store, as `graphmem init` makes
    env["GRAPHMEM_DB"] = str(db)
    # -P: the working directory is not put on sys.path, so the tree measured is the one PYTHONPATH names (run
    # from a checkout, ``-m`` imported that checkout's graphmem whatever --baseline-tree said)
    return StdioServerParameters(command=sys.executable, args=["-P", "-m", "graphmem.cli", "serve"], env=env)


def _reference(command: list[str], memory_file: Path) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:],
                                 env={**os.environ, "MEMORY_FILE_PATH": str(memory_file)})


async def _measure(memories: int, calls: int, baseline_tree: Path | None = None,
                   clients: tuple[str, ...] = ("sdk",)) -> list[tuple[str, str, str]]:
    texts = passages(memories)
    queries = [" ".join(t.split(":", 1)[0].split()[:3]) for t in texts[:: max(1, memories // calls)]][:calls]
    command = reference_server()
    counter = iter(range(10**9))

    async def g_store(c: Any, t: str) -> Any:
        return await c.call_tool("memory_store", {"content": t})

    async def g_search(c: Any, q: str) -> Any:
        return await c.call_tool("memory_search", {"query": q})

    async def r_store(c: Any, t: str) -> Any:
        return await c.call_tool("create_entities", {"entities": [
            {"name": f"passage {next(counter)}", "entityType": "passage", "observations": [t]}]})

    async def r_search(c: Any, q: str) -> Any:
        return await c.call_tool("search_nodes", {"query": q})

    with tempfile.TemporaryDirectory() as scratch:
        trios: list[tuple[_Server, _Server | None, _Server | None]] = []
        for client in clients:
            graphmem = _Server(_graphmem(Path(scratch) / f"g-{client}.db"), g_store, g_search, client)
            reference = (None if command is None else
                         _Server(_reference(command, Path(scratch) / f"ref-{client}.jsonl"), r_store, r_search, client))
            baseline = (None if baseline_tree is None else
                        _Server(_graphmem(Path(scratch) / f"b-{client}.db", baseline_tree), g_store, g_search, client))
            trios.append((graphmem, reference, baseline))
        servers = [server for trio in trios for server in trio if server is not None]
        connect_ms = dict(zip(servers, await _run(servers, texts, queries, min(calls, memories // 2)), strict=True))
    rows = []
    for client, (graphmem, reference, baseline) in zip(clients, trios, strict=True):
        rows += _rows(client, memories, graphmem, reference, baseline)
        rows.append((f"[{client} client] MCP connect + initialize, empty store (ms)", f"{connect_ms[graphmem]:.0f}",
                     f"{connect_ms[reference]:.0f} (reference)" if reference else "reference server unavailable"))
    return rows


def _rows(client: str, memories: int, graphmem: _Server, reference: _Server | None,
          baseline: _Server | None) -> list[tuple[str, str, str]]:
    """A p50 (with the ratio to the reference's) and the server's CPU per call, per server and call."""
    names = {"store": ("memory_store", f"store of {memories:,}", "create_entities"),
             "search": ("memory_search", f"at {memories:,}", "search_nodes")}
    rows = []
    for what, (tool, where, theirs) in names.items():
        r_p50 = _p50(reference.samples[what]) if reference else float("nan")
        r_text = (f"{r_p50:.2f} (reference {theirs}; server CPU {reference.cpu_ms(what):.2f}, client CPU p50 "
                  f"{_p50(reference.client_cpu[what]):.2f})" if reference else "reference server unavailable")
        for label, server in (("baseline tree: ", baseline), ("", graphmem)):
            if server is None:
                continue
            p50 = _p50(server.samples[what])
            rows.append((f"[{client} client] {label}MCP {tool} p50, {where} (ms)",
                         f"{p50:.2f} ({p50 / r_p50:.2f}x; server CPU {server.cpu_ms(what):.2f}, client CPU p50 "
                         f"{_p50(server.client_cpu[what]):.2f})", r_text))
    return rows


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
    """Rows for scripts/bench.py: (measure, graphmem, baseline), through the SDK's client."""
    return [*asyncio.run(_measure(memories, calls)), freshness_row()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, nargs="+", default=[600, 2000],
                        help="store sizes, each a fresh store (default: 600 2000)")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--baseline-tree", type=Path,
                        help="also run graphmem from this source tree (e.g. `git archive` of main), call by call")
    parser.add_argument("--client", nargs="+", choices=("sdk", "raw"), default=["sdk"],
                        help="sdk: the Python SDK's mcp.Client (validates results); raw: bare JSON-RPC lines; "
                             "both: each its own servers, all in turns (default: sdk)")
    args = parser.parse_args()
    for memories in args.memories:
        for measure, value, baseline in asyncio.run(_measure(memories, args.calls, args.baseline_tree,
                                                             tuple(dict.fromkeys(args.client)))):
            print(f"| {measure} | {value} | {baseline} |", flush=True)
    measure, value, baseline = freshness_row()
    print(f"| {measure} | {value} | {baseline} |")


if __name__ == "__main__":
    main()

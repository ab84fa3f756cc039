"""Time and answer size of the issue-25 calls on a store of maximal memories, through an in-process MCP client.

    python scripts/bench_bounds.py [--memories 12] [--source DIR] [--bystander]

Builds a store of ``--memories`` memories at the documented maxima (50,000 characters of about 6,000 distinct
words, ``fuzz_attacks.maximal_note``) plus one short one, then calls composition (a 3-word and a
10,000-character query), recall and search with the long query, the conflict scan and two export pages, and
prints each call's seconds and answer size. ``--source`` runs another checkout's code (``git archive <commit> |
tar -x -C DIR``) on the same kind of store, for a before/after in one run (docs/security.md, "Answer sizes").
``--bystander`` runs a second client meanwhile, asking a short search every 50 ms, and prints its latencies: what
another agent on the same server sees during the attack.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=12)
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--bystander", action="store_true", help="a second client's short searches meanwhile")
    args = parser.parse_args()
    sys.path.insert(0, str(args.source))
    asyncio.run(_run(args.memories, args.bystander))


async def _bystander(server: object, done: asyncio.Event, seconds: list[float]) -> None:
    from mcp import Client

    async with Client(server) as client:
        while not done.is_set():
            started = time.perf_counter()
            await client.call_tool("memory_search", {"query": "deploy on Fridays", "limit": 5})
            seconds.append(time.perf_counter() - started)
            await asyncio.sleep(0.05)


async def _run(count: int, bystander: bool) -> None:
    from mcp import Client

    from graphmem import MemoryService, Settings
    from graphmem.server import build_server
    from scripts.fuzz_attacks import maximal_note

    folder = tempfile.mkdtemp(prefix="graphmem-bounds-")
    settings = Settings.load(db=str(Path(folder) / "memory.db"), environ={})
    service = MemoryService(settings)
    rng = random.Random(25)
    started = time.perf_counter()
    for index in range(count):
        service.store(maximal_note(rng, f"Always deploy service {index} with tool {index}."), kind="decision")
    service.store("Never deploy a service on Fridays", kind="decision")
    print(f"stored {count} maximal memories in {time.perf_counter() - started:.1f} s")
    long = maximal_note(random.Random(7), "deploy service tool")[:10_000]
    calls = [("composition, 3 words", "memory_associate", {"query": "deploy service tool", "mode": "composition"}),
             ("composition, 3 words, again", "memory_associate",
              {"query": "deploy service tool", "mode": "composition"}),
             ("composition, 10,000 characters", "memory_associate",
              {"query": long, "mode": "composition", "max_results": 100}),
             ("recall, 10,000 characters", "memory_associate", {"query": long, "max_results": 100}),
             ("search, 10,000 characters", "memory_search", {"query": long, "limit": 100}),
             ("conflict scan", "memory_scan_conflicts", {}),
             ("export, default page", "memory_export", {}),
             ("export, 500 nodes of 5,000 characters", "memory_export", {"limit": 500, "max_content_chars": 5_000})]
    server = build_server(settings, tools="full", service=service)
    done, waits = asyncio.Event(), []
    async with Client(server) as client:
        await client.call_tool("memory_status", {})
        other = asyncio.create_task(_bystander(server, done, waits)) if bystander else None
        for label, tool, arguments in calls:
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            seconds = time.perf_counter() - started
            body = result.structured_content if result.structured_content is not None else result.content[0].text
            print(f"{label}: {seconds:.2f} s, {len(json.dumps(body, ensure_ascii=False)) / 1000:.0f} KB"
                  + (" (error)" if result.is_error else ""))
        if other is not None:
            done.set()
            await other
            ordered = sorted(waits)
            p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
            print(f"second client, {len(ordered)} searches meanwhile: p50 {ordered[len(ordered) // 2]:.3f} s, "
                  f"p95 {p95:.3f} s, max {ordered[-1]:.3f} s")
    service.close()


if __name__ == "__main__":
    main()

"""Several real processes on one store: every process sees every write, and overlapping ones are safe.

The servers are ``graphmem serve`` subprocesses driven by a real MCP client over stdio; the writers are
``graphmem`` CLI subprocesses. Nothing here sleeps to wait for a result: a server's next call must
already reflect a write that another process has committed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from graphmem import MemoryService, Settings
from graphmem.errors import StorageError
from tests.conftest import ORDERS, WEBHOOK

pytestmark = pytest.mark.anyio

GRAPHMEM = str(Path(sys.executable).with_name("graphmem"))
ZEBRA = "Zebra-striped canary deploys use the flamingo feature flag service"


def _env(db: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_DB"] = db
    return env


def _cli(db: str, *args: str) -> Any:
    """Run one CLI command against ``db`` and return its JSON output."""
    done = subprocess.run([GRAPHMEM, "--db", db, *args, "--json"], capture_output=True, text=True,
                          env=_env(db), timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@asynccontextmanager
async def _server(db: str) -> AsyncIterator[Client]:
    async with Client(StdioServerParameters(command=GRAPHMEM, args=["serve"], env=_env(db))) as client:
        yield client


async def _search_ids(client: Client, query: str, **filters: str) -> list[str]:
    result = await client.call_tool("memory_search", {"query": query, **filters})
    assert not result.is_error, result.content
    return [hit["id"] for hit in result.structured_content["hits"]]


def _create_store(db: str, extractor: Any) -> None:
    MemoryService(Settings.load(db=db, environ={}), extractor=extractor).close()


@pytest.fixture
def sqlite_db(tmp_path: Path, extractor: Any) -> str:
    db = str(tmp_path / "shared.db")
    _create_store(db, extractor)
    return db


async def test_a_running_server_sees_cli_store_import_forget_and_relate(sqlite_db, tmp_path):
    async with _server(sqlite_db) as server:
        assert await _search_ids(server, "flamingo canary") == []
        zebra = _cli(sqlite_db, "store", ZEBRA, "--project", "deploys")["id"]
        assert await _search_ids(server, "flamingo canary") == [zebra]

        observations = tmp_path / "observations.jsonl"
        observations.write_text("\n".join(json.dumps({"content": text, "project": "payments"})
                                          for text in (WEBHOOK, ORDERS)) + "\n")
        assert _cli(sqlite_db, "import", str(observations))["added"] == {"memories": 2}
        webhook_hits = await _search_ids(server, "webhook deliveries idempotency", project="payments")
        assert len(webhook_hits) == 2

        _cli(sqlite_db, "forget", zebra)
        assert zebra not in await _search_ids(server, "flamingo canary")

        newer, older = webhook_hits
        _cli(sqlite_db, "relate", newer, older, "supersedes")
        assert older not in await _search_ids(server, "webhook deliveries idempotency", project="payments")
        opened = (await server.call_tool("memory_open", {"ids": [older]})).structured_content
        assert [r["type"] for r in opened["relations"]] == ["supersedes"]
        associated = await server.call_tool("memory_associate", {"query": "webhook deliveries"})
        assert older not in [m["id"] for m in associated.structured_content["memories"]]


async def _two_servers_see_each_other(db: str) -> None:
    async with _server(db) as first, _server(db) as second:
        from_first = (await first.call_tool("memory_store", {"content": WEBHOOK})).structured_content["id"]
        assert await _search_ids(second, "webhook deliveries") == [from_first]
        from_second = (await second.call_tool("memory_store", {"content": ZEBRA})).structured_content["id"]
        assert (await _search_ids(first, "flamingo canary"))[:1] == [from_second]
        again = (await second.call_tool("memory_store", {"content": WEBHOOK})).structured_content
        assert (again["id"], again["duplicate"]) == (from_first, True)


async def test_two_servers_on_one_sqlite_store_see_each_others_writes(sqlite_db):
    await _two_servers_see_each_other(sqlite_db)


@pytest.mark.postgres
async def test_two_servers_on_one_postgresql_database_see_each_others_writes(pg_url, extractor):
    _create_store(pg_url, extractor)
    await _two_servers_see_each_other(pg_url)


def _concurrent_duplicate_stores(db: str) -> None:
    processes = [subprocess.Popen([GRAPHMEM, "--db", db, "store", ZEBRA, "--json"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=_env(db)) for _ in range(3)]
    answers = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        answers.append(json.loads(out))
    assert len({answer["id"] for answer in answers}) == 1
    assert sorted(answer["duplicate"] for answer in answers) == [False, True, True]


def test_processes_storing_the_same_text_at_once_get_one_id(sqlite_db):
    _concurrent_duplicate_stores(sqlite_db)


@pytest.mark.postgres
def test_processes_storing_the_same_text_at_once_get_one_id_on_postgresql(pg_url, extractor):
    _create_store(pg_url, extractor)
    _concurrent_duplicate_stores(pg_url)


def test_readers_never_crash_while_another_process_imports(sqlite_db, tmp_path, extractor):
    source = tmp_path / "bulk.jsonl"
    source.write_text("\n".join(json.dumps({"content": f"Service {i} calls queue q{i % 37} with retry policy "
                                                       f"p{i % 11} and owner team t{i % 13}",
                                            "project": f"p{i % 5}"}) for i in range(1500)) + "\n")
    importer = subprocess.Popen([GRAPHMEM, "--db", sqlite_db, "import", str(source), "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(sqlite_db))
    settings = Settings.load(db=sqlite_db, environ={})
    follower = MemoryService(settings, extractor=extractor)
    opened = 0
    while importer.poll() is None or opened == 0:
        reader = MemoryService(settings, extractor=extractor)  # a full projection load mid-import
        reader.search("retry policy queue")
        follower.search("owner team")  # follows the change log incrementally
        # One projection read once: ``MemoryService.projection`` follows the change log on every access, so
        # two accesses straddling one of the importer's commits compared two states (1,024 against 1,500).
        projection = reader.projection
        assert projection.memory_count == len(projection.memory_nodes)
        reader.close()
        opened += 1
    assert importer.returncode == 0, importer.stderr.read() if importer.stderr else ""
    fresh = MemoryService(settings, extractor=extractor)
    _assert_same_projection(follower, fresh)
    follower.close()
    fresh.close()


def _assert_same_projection(followed: MemoryService, loaded: MemoryService) -> None:
    """A projection kept fresh from the change log answers exactly like one loaded from the rows."""
    a, b = followed.projection, loaded.projection
    assert a.memory_nodes.keys() == b.memory_nodes.keys()
    assert a.concept_nodes.keys() == b.concept_nodes.keys()
    for memory_id in list(a.memory_nodes)[::50]:
        assert sorted(a.names[c] for c, _ in a.concepts_of(a.memory_nodes[memory_id])) == sorted(
            b.names[c] for c, _ in b.concepts_of(b.memory_nodes[memory_id]))
    for query in ("retry policy queue q3", "owner team t7", "service calls"):
        assert [h.id for h in followed.search(query).hits] == [h.id for h in loaded.search(query).hits]


@pytest.mark.sqlite_only("SQLite's write lock: BEGIN IMMEDIATE and busy_timeout")
def test_a_write_that_waits_too_long_for_the_lock_says_so(sqlite_db, extractor, monkeypatch):
    from graphmem.store import engine

    monkeypatch.setattr(engine, "WRITE_WAIT_S", 1)
    service = MemoryService(Settings.load(db=sqlite_db, environ={}), extractor=extractor)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
        "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); sys.stdin.read()"), sqlite_db],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        before = service.status()["memories"]
        with pytest.raises(StorageError, match=r"busy.*more than 1 s.*nothing was written"):
            service.store(ORDERS)
    finally:
        holder.communicate("", timeout=20)
    assert service.status()["memories"] == before
    assert not service.store(ORDERS).duplicate  # the store works again once the lock is released
    service.close()


def test_killing_an_import_kills_its_drafting_workers(sqlite_db, tmp_path):
    source = tmp_path / "big.jsonl"
    source.write_text("\n".join(json.dumps({"content": f"Worker {i} drains queue q{i % 91} into table t{i % 17}"})
                                for i in range(60_000)) + "\n")
    env = {**_env(sqlite_db), "GRAPHMEM_IMPORT_WORKERS": "1"}
    importer = subprocess.Popen([GRAPHMEM, "--db", sqlite_db, "import", str(source)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    workers = _wait_for_children(importer.pid)
    os.kill(importer.pid, signal.SIGKILL)
    importer.wait(timeout=30)
    for pid in workers:
        _wait_for_exit(pid)


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def _wait_for_children(pid: int) -> list[int]:
    """Block until the importer has started its drafting worker (polls /proc; bounded by the event)."""
    found: list[int] = []
    done = threading.Event()

    def poll() -> None:
        while not done.wait(0.05):
            found.extend(c for c in _children(pid) if c not in found)
            if found:
                done.set()

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    assert done.wait(120), "the import never started a drafting worker"
    return found


def _wait_for_exit(pid: int) -> None:
    finished = threading.Event()

    def poll() -> None:
        while Path(f"/proc/{pid}").exists() and _state(pid) != "Z":
            if finished.wait(0.05):
                return
        finished.set()

    threading.Thread(target=poll, daemon=True).start()
    assert finished.wait(30), f"worker {pid} outlived its killed import"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0]
    except (FileNotFoundError, IndexError):
        return "X"

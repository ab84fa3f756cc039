"""Shared fixtures: one spaCy pipeline per test session, a fresh store per test on every backend.

Every fixture that builds a store (``settings``, hence ``service`` and ``client``; ``new_store`` for tests
that need more than one) runs its tests twice: on a SQLite file, and on a fresh PostgreSQL database of the
session's private server (``tests/postgres.py``), copied from a template that already holds the schema.
The PostgreSQL run carries the ``postgres`` marker, so ``-m "not postgres"`` is the SQLite-only suite, and
is skipped, with the reason, when the server binaries are not installed.

A test that is about SQLite itself (a file path, WAL, FTS5's bytes on disk, ``BEGIN IMMEDIATE``) says so with
``@pytest.mark.sqlite_only("why")`` and runs on SQLite alone (docs/testing.md lists them).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection

from graphmem import MemoryService, Settings
from nlp import ConceptExtractor
from tests.postgres import drop_database, new_database, pg_template, pg_url, postgres_server  # noqa: F401

WEBHOOK = ("Stripe retries webhook deliveries for three days, so every webhook handler needs an "
           "idempotency key")
ORDERS = "Use an idempotency key header check before creating orders"

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only(reason): runs on the SQLite backend only, for the reason given")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that builds a store over the backends: ``backend`` is the switch of a test's own
    stores, ``module_backend`` the switch of a store shared by a module's tests (one per backend)."""
    for switch, scope in (("backend", "function"), ("module_backend", "module")):
        if switch not in metafunc.fixturenames:
            continue
        marker = metafunc.definition.get_closest_marker("sqlite_only")
        if marker is not None and not (marker.args and isinstance(marker.args[0], str) and marker.args[0]):
            raise pytest.UsageError(f"{metafunc.definition.nodeid}: sqlite_only needs a reason")
        backends = ["sqlite"] if marker is not None else list(BACKENDS)
        metafunc.parametrize(switch, [pytest.param(name, marks=[pytest.mark.postgres] if name == "postgresql" else [])
                                      for name in backends], indirect=True, scope=scope)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The store backend of this run of the test: ``"sqlite"`` or ``"postgresql"``."""
    return str(request.param)


@pytest.fixture(scope="module")
def module_backend(request: pytest.FixtureRequest) -> str:
    """The backend of a store that a module's tests share (``module_store``)."""
    return str(request.param)


@pytest.fixture(scope="module")
def module_store(module_backend: str, tmp_path_factory: pytest.TempPathFactory,
                 request: pytest.FixtureRequest) -> Iterator[Callable[[str], str]]:
    """``new_store`` for stores that live as long as the module (a corpus imported once)."""
    if module_backend == "sqlite":
        folder = tmp_path_factory.mktemp("store")
        yield lambda name: str(folder / name)
        return
    yield from _postgres_stores(request)


def indexed_documents(connection: Connection) -> int:
    """How many memories the store's full-text index holds: FTS5's rows on SQLite; 0 on PostgreSQL, whose store
    keeps no full-text index since schema version 5 (``store/fulltext.py``)."""
    if connection.dialect.name != "sqlite":
        return 0
    return int(connection.execute(text("SELECT count(*) FROM memory_fts")).scalar_one())


def copy_store(db: str, target: str) -> str:
    """A new store with the rows of the closed store ``db``: a file copy to the path ``target``, or on
    PostgreSQL a new database made from ``db`` as a template (``target`` unused). Drop it with
    :func:`drop_store`."""
    if "://" not in db:
        shutil.copyfile(db, target)
        return target
    server, name = db.rsplit("/", 1)
    return f"{server}/{new_database(server, name)}"


def drop_store(db: str) -> None:
    """Drop a PostgreSQL store made by :func:`copy_store` (a SQLite copy goes with its temporary folder)."""
    if "://" in db:
        server, name = db.rsplit("/", 1)
        drop_database(server, name)


@pytest.fixture
def new_store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[[str], str]]:
    """A factory of fresh, empty stores on the test's backend: ``new_store(name)`` returns the ``db`` setting,
    a SQLite file ``name`` in ``tmp_path``, or the URL of a new PostgreSQL database with the schema built."""
    if backend == "sqlite":
        yield lambda name: str(tmp_path / name)
        return
    yield from _postgres_stores(request)


def _postgres_stores(request: pytest.FixtureRequest) -> Iterator[Callable[[str], str]]:
    """Yield a factory of new databases copied from the schema template; drop them afterwards."""
    server: str = request.getfixturevalue("postgres_server")
    template: str = request.getfixturevalue("pg_template")
    created: list[str] = []

    def make(_name: str) -> str:
        created.append(new_database(server, template))
        return f"{server}/{created[-1]}"

    yield make
    for name in created:
        drop_database(server, name)


@pytest.fixture(scope="session")
def extractor() -> ConceptExtractor:
    return ConceptExtractor("blank")


@pytest.fixture
def settings(new_store: Callable[[str], str]) -> Settings:
    return Settings.load(db=new_store("memory.db"), environ={})


@pytest.fixture
def service(settings: Settings, extractor: ConceptExtractor) -> Iterator[MemoryService]:
    memory = MemoryService(settings, extractor=extractor)
    yield memory
    memory.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(service: MemoryService, settings: Settings) -> AsyncIterator[object]:
    """A real MCP client session connected in-process to graphmem's server (every tool: ``full``)."""
    from mcp import Client

    from graphmem.server import build_server

    async with Client(build_server(settings, tools="full", service=service)) as connected:
        yield connected

"""Shared fixtures: one spaCy pipeline per test session, a fresh in-memory store per test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from graphmem import MemoryService, Settings
from nlp import ConceptExtractor
from tests.postgres import pg_url, postgres_server  # noqa: F401 - fixtures shared by every test module

WEBHOOK = ("Stripe retries webhook deliveries for three days, so every webhook handler needs an "
           "idempotency key")
ORDERS = "Use an idempotency key header check before creating orders"


@pytest.fixture(scope="session")
def extractor() -> ConceptExtractor:
    return ConceptExtractor("blank")


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings.load(db=str(tmp_path / "memory.db"), environ={})


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

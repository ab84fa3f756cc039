"""A private PostgreSQL 15 server for the tests: started from the image's binaries on a temporary
directory and a free loopback port (``scripts/private_postgres.py``, shared with the evals), one fresh
database per test, stopped and deleted at the end of the session.

Two kinds of fresh database: ``pg_url`` is empty (the migration tests build their own schema), and
``new_database(server, pg_template)`` copies a template that already holds graphmem's current schema,
which every backend-parametrized store fixture of ``tests/conftest.py`` uses: copying the template costs
a fraction of building the schema again for each test.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from private_postgres import binaries, create_database, drop_database, private_server

__all__ = ["drop_database", "new_database", "pg_template", "pg_url", "postgres_server", "server_binaries_installed"]


def server_binaries_installed() -> bool:
    """Whether ``initdb`` and ``pg_ctl`` can be found (on ``PATH`` or under ``/usr/lib/postgresql``)."""
    return binaries() is not None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """Start a throw-away PostgreSQL server; yield the admin URL; stop it and delete its files."""
    if not server_binaries_installed():
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    with private_server() as url:
        yield url


@pytest.fixture
def pg_url(postgres_server: str) -> str:
    """A fresh, empty database on the shared server."""
    return f"{postgres_server}/{new_database(postgres_server)}"


@pytest.fixture(scope="session")
def pg_template(postgres_server: str) -> str:
    """The name of a database that holds graphmem's current schema, built once per session by graphmem
    itself (``open_engine``), to be copied by :func:`new_database`."""
    from graphmem.store.engine import open_engine

    name = new_database(postgres_server)
    open_engine(f"{postgres_server}/{name}").dispose()  # no connection may stay open on a template
    return name


def new_database(postgres_server: str, template: str | None = None) -> str:
    """Create an empty database (or a copy of ``template``) on the server and return its name."""
    return create_database(postgres_server, template)

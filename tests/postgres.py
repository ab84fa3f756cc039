"""A private PostgreSQL 15 server for the tests: started from the image's binaries on a temporary
directory and a free loopback port, one fresh database per test, stopped and deleted at the end."""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

__all__ = ["new_database", "pg_url", "postgres_server", "private_server", "server_binaries_installed"]


def _server_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    return str(candidates[0]) if candidates else None


def _as_unprivileged(root: Path) -> list[str]:
    """A command prefix that drops root: initdb and postgres refuse to run as root."""
    if os.geteuid() != 0:
        return []
    user = "postgres" if _user_exists("postgres") else "nobody"
    shutil.chown(root, user=user)
    if shutil.which("runuser"):
        return ["runuser", "-u", user, "--"]
    return ["su", user, "-s", "/bin/sh", "-c"]  # the caller joins the command into one argument


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _run(prefix: list[str], command: list[str]) -> subprocess.CompletedProcess[str]:
    argv = [*prefix, shlex.join(command)] if prefix[:1] == ["su"] else [*prefix, *command]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_binaries_installed() -> bool:
    """Whether initdb and pg_ctl are on this machine (PATH or /usr/lib/postgresql/*/bin)."""
    return bool(_server_binary("initdb") and _server_binary("pg_ctl"))


@contextmanager
def private_server() -> Iterator[str]:
    """Start a throw-away PostgreSQL server; yield the admin URL; stop it and delete its files.

    Plain context manager (no pytest), so benchmarks start the same server as the tests."""
    initdb, pg_ctl = _server_binary("initdb"), _server_binary("pg_ctl")
    if not (initdb and pg_ctl):
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    root = Path(tempfile.mkdtemp(prefix="graphmem-pg-"))
    prefix = _as_unprivileged(root)
    data, port = root / "data", _free_port()
    created = _run(prefix, [initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8",
                            "--locale=C"])
    if created.returncode != 0:
        raise RuntimeError(created.stderr)
    # fsync off: a test server's data is thrown away, and durability costs most of the start-up time.
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    log = root / "server.log"
    started = _run(prefix, [pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"])
    if started.returncode != 0:
        raise RuntimeError(started.stderr + (log.read_text(errors="replace") if log.exists() else ""))
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        _run(prefix, [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """:func:`private_server` for the whole test session (skipped where PostgreSQL is not installed)."""
    if not server_binaries_installed():
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    with private_server() as url:
        yield url


@pytest.fixture
def pg_url(postgres_server: str) -> str:
    """A fresh, empty database on the shared server."""
    return f"{postgres_server}/{new_database(postgres_server)}"


def new_database(postgres_server: str) -> str:
    name = f"gm_{uuid.uuid4().hex[:12]}"
    admin = create_engine(f"{postgres_server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return name

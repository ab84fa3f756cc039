"""A private, throw-away PostgreSQL server started from the installed binaries (the tests and the evals).

    with private_server() as server:          # initdb into a temp dir, start on a free loopback port
        name = create_database(server)        # an empty database (or a copy of a template)
        url = f"{server}/{name}"              # a GRAPHMEM_DB value
    # stopped (immediate) and its directory deleted

    with private_replicated_servers() as (primary, standby):   # a primary and its streaming hot standby
        ...                                                     # (pg_basebackup -R), each on its own port

A kept server (a benchmark's store to measure again later) has its data directory where you say, and a fixed port,
so its URL, and with it the projection snapshot's name in the cache (``snapshot_path``), stay the same:

    python scripts/private_postgres.py start DIR --port 55432   # initdb DIR/data if new; prints the admin URL
    python scripts/private_postgres.py stop DIR                 # a fast shutdown; the files stay

The binaries come from ``PATH`` or ``/usr/lib/postgresql/*/bin`` (the newest). PostgreSQL refuses to run as
root, so as root the server runs as the ``postgres`` user (or ``nobody``) through ``runuser`` (or ``su``).
Durability is off (``fsync``, ``full_page_writes``, ``synchronous_commit``): the data is thrown away.
"""

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

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine

__all__ = [
    "binaries", "create_database", "drop_database", "private_replicated_servers", "private_server", "start_kept_server",
    "stop_kept_server",
]


def binaries() -> tuple[str, str] | None:
    """``(initdb, pg_ctl)`` when both are installed, else ``None``."""
    initdb, pg_ctl = _server_binary("initdb"), _server_binary("pg_ctl")
    return (initdb, pg_ctl) if initdb and pg_ctl else None


@contextmanager
def private_server() -> Iterator[str]:
    """Start a server; yield its admin URL (no database name); stop it and delete its files.

    Raises ``RuntimeError`` when the binaries are missing or the server does not start.
    """
    found = binaries()
    if found is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    initdb, pg_ctl = found
    root = Path(tempfile.mkdtemp(prefix="graphmem-pg-"))
    try:
        prefix = _as_unprivileged(root)
        data, port = root / "data", _free_port()
        created = _run(prefix, [initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8",
                                "--locale=C"])
        if created.returncode != 0:
            raise RuntimeError(f"initdb failed: {created.stderr}")
        _start(prefix, pg_ctl, root, data, port, "server.log")
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}"
        _ROOTS[url] = root
        try:
            yield url
        finally:
            _ROOTS.pop(url, None)
            admin = _ADMIN.pop(url, None)
            if admin is not None:
                admin.dispose()
            _run(prefix, [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"])
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def private_replicated_servers() -> Iterator[tuple[str, str]]:
    """Start a primary and a hot standby streaming from it (``pg_basebackup -R`` writes the standby signal and
    its ``primary_conninfo``); yield both admin URLs; stop both and delete their files.

    A database created on the primary appears on the standby once replayed; the standby is read-only.
    """
    found, basebackup = binaries(), _server_binary("pg_basebackup")
    if found is None or basebackup is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) are not installed")
    with private_server() as primary:
        _initdb, pg_ctl = found
        port = int(primary.rsplit(":", 1)[1])
        root = _ROOTS[primary]
        prefix = _as_unprivileged(root)
        standby_data, standby_port = root / "standby", _free_port()
        copied = _run(prefix, [basebackup, "-D", str(standby_data), "-h", "127.0.0.1", "-p", str(port), "-U",
                               "postgres", "-X", "stream", "-R", "-c", "fast"])
        if copied.returncode != 0:
            raise RuntimeError(f"pg_basebackup failed: {copied.stderr}")
        _start(prefix, pg_ctl, root, standby_data, standby_port, "standby.log")
        try:
            yield primary, f"postgresql+psycopg://postgres@127.0.0.1:{standby_port}"
        finally:
            _run(prefix, [pg_ctl, "-D", str(standby_data), "-m", "immediate", "-w", "stop"])


def create_database(server: str, template: str | None = None) -> str:
    """Create an empty database (or a copy of ``template``, which must have no open connection) on
    ``server`` and return its name."""
    name = f"gm_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with _admin(server) as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"{copy}'))
    return name


def drop_database(server: str, name: str) -> None:
    """Drop a database, closing whatever connections are still open on it."""
    with _admin(server) as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def start_kept_server(directory: Path, port: int) -> str:
    """Start a server on ``directory/data`` (created by initdb when missing) at ``port``; return its admin URL.

    The same durability settings as :func:`private_server`; nothing is deleted: :func:`stop_kept_server` stops it.
    """
    found = binaries()
    if found is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    initdb, pg_ctl = found
    directory.mkdir(parents=True, exist_ok=True)
    prefix = _as_unprivileged(directory)
    data = directory / "data"
    if not data.exists():
        created = _run(prefix, [initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-N", "-E", "UTF8",
                                "--locale=C"])
        if created.returncode != 0:
            raise RuntimeError(f"initdb failed: {created.stderr}")
    _start(prefix, pg_ctl, directory, data, port, "server.log")
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}"


def stop_kept_server(directory: Path) -> None:
    """Stop the server :func:`start_kept_server` started on ``directory`` (a fast shutdown: it checkpoints)."""
    found = binaries()
    if found is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    stopped = _run(_as_unprivileged(directory), [found[1], "-D", str(directory / "data"), "-m", "fast", "-w", "stop"])
    if stopped.returncode != 0:
        raise RuntimeError(f"pg_ctl stop failed: {stopped.stderr}")


_ADMIN: dict[str, Engine] = {}
_ROOTS: dict[str, Path] = {}  # each running private server's directory


def _start(prefix: list[str], pg_ctl: str, root: Path, data: Path, port: int, log_name: str) -> None:
    # Durability off: the data is thrown away, and fsync costs most of the start-up and CREATE DATABASE.
    options = (f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off "
               "-c synchronous_commit=off")
    log = root / log_name
    started = _run(prefix, [pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start"])
    if started.returncode != 0:
        raise RuntimeError(f"pg_ctl start failed: {started.stderr}"
                           + (log.read_text(errors="replace") if log.exists() else ""))


@contextmanager
def _admin(server: str) -> Iterator[Connection]:
    """An autocommit connection to the ``postgres`` database, pooled per server: a fresh database per
    test must not also cost a fresh connection."""
    engine = _ADMIN.get(server)
    if engine is None:
        engine = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
        _ADMIN[server] = engine
    with engine.connect() as connection:
        yield connection


def _server_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=_version, reverse=True)
    return str(candidates[0]) if candidates else None


def _version(path: Path) -> int:
    folder = path.parents[1].name  # /usr/lib/postgresql/<version>/bin/<name>
    return int(folder) if folder.isdigit() else 0


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


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Start or stop a kept private PostgreSQL server.")
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("directory", type=Path, help="holds data/ (the cluster) and server.log")
    parser.add_argument("--port", type=int, default=55432)
    args = parser.parse_args()
    if args.action == "start":
        print(start_kept_server(args.directory.resolve(), args.port))
    else:
        stop_kept_server(args.directory.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

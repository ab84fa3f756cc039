"""Read replicas: writes go to the primary, reads to a PostgreSQL streaming replica once it has replayed what the
process reflects (``graphmem/store/replicas.py``).

The PostgreSQL tests start a real primary and a real hot standby (``pg_basebackup -R``, both from the installed
server binaries, on loopback ports) and make the standby lag with ``pg_wal_replay_pause()``. The rule itself is
also checked on SQLite, where a file copy stands in for a replica that stopped replaying.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import create_engine, text

from graphmem import MemoryService, Settings
from graphmem.errors import StorageError
from graphmem.server.models.recall import StatusOut
from graphmem.store.engine import open_engine
from graphmem.store.replicas import ReadRouter
from tests.postgres import server_binaries_installed  # also puts scripts/ on sys.path

from private_postgres import create_database, drop_database, private_replicated_servers  # isort: skip



def needs_servers(test: Callable[..., None]) -> Callable[..., None]:
    """A test that starts a primary and a standby: marked ``postgres``, skipped without the server binaries."""
    skip = pytest.mark.skipif(not server_binaries_installed(), reason="PostgreSQL server binaries missing")
    return pytest.mark.postgres(skip(test))


def test_the_router_reads_the_primary_until_the_replica_has_reached_the_floor(tmp_path, extractor):
    db = tmp_path / "memory.db"
    service = MemoryService(Settings.load(db=str(db), environ={}), extractor=extractor)
    service.store("The billing worker retries a charge three times")
    service.close()
    shutil.copyfile(db, tmp_path / "replica.db")  # a replica that replayed generation 1, then stopped
    service = MemoryService(Settings.load(db=str(db), environ={}), extractor=extractor)
    service.store("Refunds need a second approver above 500 euros")
    primary, replica = service.engine, open_engine(str(tmp_path / "replica.db"))
    router = ReadRouter(primary, replica)
    try:
        assert router.generation(primary) == 2 and router.replica_generation() == 1
        assert router.reader(1) is replica and router.freshest(1) == (replica, 1)
        assert router.reader(2) is primary and router.freshest(2) == (primary, 2)
    finally:
        router.close()
        service.close()


def test_a_replica_must_be_postgresql_and_nothing_is_left_open(tmp_path, extractor):
    settings = Settings.load(db=str(tmp_path / "memory.db"), replica_db=str(tmp_path / "copy.db"), environ={})
    with pytest.raises(StorageError, match="must be a PostgreSQL streaming replica"):
        MemoryService(settings, extractor=extractor)


# --- a real primary and a real standby ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def replicated() -> Iterator[tuple[str, str]]:
    with private_replicated_servers() as servers:
        yield servers


@pytest.fixture
def store(replicated: tuple[str, str]) -> Iterator[tuple[str, str]]:
    """A new graphmem store on the primary, and its URL on the standby once the standby has replayed it."""
    primary, standby = replicated
    name = create_database(primary)
    open_engine(f"{primary}/{name}").dispose()
    _until(lambda: _generation(f"{standby}/{name}") is not None)
    yield f"{primary}/{name}", f"{standby}/{name}"
    drop_database(primary, name)


def _generation(url: str) -> int | None:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT generation FROM store_generation")).scalar_one())
    except Exception:  # the database or its schema has not been replayed yet
        return None
    finally:
        engine.dispose()


def _replay(standby_url: str, action: str) -> None:
    engine = create_engine(standby_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f"SELECT pg_wal_replay_{action}()"))
    engine.dispose()


def _until(condition: Callable[[], object], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the standby did not catch up"
        time.sleep(0.05)


@needs_servers
def test_a_write_through_one_server_is_seen_by_another_reading_the_replica(store, extractor):
    primary, standby = store
    writer = MemoryService(Settings.load(db=primary, environ={}), extractor=extractor)
    reader = MemoryService(Settings.load(db=primary, replica_db=standby, environ={}), extractor=extractor)
    try:
        _replay(standby, "pause")
        stored = writer.store("Stripe retries webhook deliveries for three days", project="billing").id
        # The reader reads the paused replica: the write is not there yet (so its reads really go there) ...
        assert [h.id for h in reader.search("webhook deliveries", project="billing").hits] == []
        assert reader.uow.router.reader(reader.uow.generation) is reader.uow.router.replica
        _replay(standby, "resume")
        # ... and shows once the replica has replayed it, rows and projection alike.
        _until(lambda: [h.id for h in reader.search("webhook deliveries", project="billing").hits] == [stored])
        assert reader.open([stored]).memories[0].content.startswith("Stripe retries")
    finally:
        _replay(standby, "resume")
        reader.close()
        writer.close()


@needs_servers
def test_a_server_sees_its_own_write_on_its_next_read_while_the_replica_lags(store, extractor):
    primary, standby = store
    server = MemoryService(Settings.load(db=primary, replica_db=standby, environ={}), extractor=extractor)
    try:
        first = server.store("The ledger closes at midnight UTC", project="billing").id
        _until(lambda: _generation(standby) == server.uow.generation)
        assert server.uow.router.reader(server.uow.generation) is server.uow.router.replica
        _replay(standby, "pause")
        second = server.store("Refunds need a second approver above 500 euros", project="billing").id
        assert _generation(standby) == server.uow.generation - 1  # the replica really lags this write
        assert [h.id for h in server.search("refunds approver", project="billing").hits][:1] == [second]
        assert {m.id for m in server.open([first, second]).memories} == {first, second}
        assert server.uow.router.reader(server.uow.generation) is server.uow.router.primary
        server.edits.forget(second)
        assert [h.id for h in server.search("refunds approver", project="billing").hits] == []
        _replay(standby, "resume")
        _until(lambda: server.uow.router.reader(server.uow.generation) is server.uow.router.replica)
        assert [h.id for h in server.search("ledger midnight", project="billing").hits][:1] == [first]
    finally:
        _replay(standby, "resume")
        server.close()


@needs_servers
def test_metrics_read_back_from_the_primary_while_the_replica_lags(store, extractor):
    primary, standby = store
    server = MemoryService(Settings.load(db=primary, replica_db=standby, environ={}), extractor=extractor)
    try:
        server.store("The ledger closes at midnight UTC", project="billing")
        _until(lambda: _generation(standby) == server.uow.generation)
        _replay(standby, "pause")
        for _ in range(3):
            server.search("ledger", project="billing")
        assert server.metrics.flush() and not server.metrics._pending  # stored: nothing pending adds to them
        calls = {summary.operation: summary.calls for summary in server.metrics.snapshot()}
        assert calls["search"] == 3  # flushes bump no generation: the replica would still show none
    finally:
        _replay(standby, "resume")
        server.close()


@needs_servers
def test_a_replica_of_another_store_is_refused(store, replicated, extractor):
    primary, _standby = store
    with pytest.raises(StorageError, match="holds no graphmem store"):
        MemoryService(Settings.load(db=primary, replica_db=f"{replicated[1]}/postgres", environ={}),
                      extractor=extractor)


class _Cable:
    """A TCP forwarder between graphmem and the standby that the test can cut and mend (a network outage)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.open = False
        for end in self.sockets:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
        self.sockets.clear()

    def mend(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


@needs_servers
def test_reads_fall_back_to_the_primary_while_the_replica_is_unreachable(store, extractor, monkeypatch, capsys):
    from graphmem.store import replicas

    monkeypatch.setattr(replicas, "RETRY_S", 0.3)
    primary, standby = store
    name = standby.rsplit("/", 1)[1]
    cable = _Cable(int(standby.rsplit(":", 1)[1].split("/")[0]))
    server = MemoryService(Settings.load(db=primary, replica_db=f"postgresql+psycopg://postgres@127.0.0.1:"
                                         f"{cable.port}/{name}", environ={}), extractor=extractor)
    router = server.uow.router
    try:
        first = server.store("The ledger closes at midnight UTC", project="billing").id
        _until(lambda: router.reader(server.uow.generation) is router.replica)
        assert server.status()["replica"] == {"reachable": True, "primary_generation": server.uow.generation,
                                              "replica_generation": server.uow.generation, "lag_generations": 0}
        cable.cut()
        # The next reads find the replica gone: they answer from the primary, with the write made meanwhile.
        second = server.store("Refunds need a second approver above 500 euros", project="billing").id
        assert [h.id for h in server.search("refunds approver", project="billing").hits][:1] == [second]
        assert {m.id for m in server.open([first, second]).memories} == {first, second}
        assert router.reader(0) is router.primary
        assert "read replica cannot be reached" in capsys.readouterr().err
        status = server.status()["replica"]
        assert status["reachable"] is False and status["replica_generation"] is None
        assert status["primary_generation"] == server.uow.generation
        shown = StatusOut.model_validate(server.status())  # what memory_status answers
        assert shown.replica is not None and not shown.replica.reachable and shown.replica.lag_generations is None
        cable.mend()
        # Once it answers again (asked after RETRY_S), reads go back to it.
        _until(lambda: router.reader(server.uow.generation) is router.replica)
        assert server.status()["replica"]["reachable"] is True
        assert [h.id for h in server.search("ledger midnight", project="billing").hits][:1] == [first]
    finally:
        server.close()
        cable.close()

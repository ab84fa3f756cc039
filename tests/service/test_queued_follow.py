"""A write's projection effects are queued at its commit and applied by the next read, before it reads, or by
the idle thread (``graphmem.service.idle_follower``): a store does not wait for the projection, and no caller
ever misses its own write."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from graphmem.service import MemoryService, unit_of_work
from graphmem.store.projection import GraphProjection

NEVER_IDLE_S = 3600.0


@pytest.fixture
def applied(monkeypatch):
    """The thread names that applied a batch to a projection, one per call."""
    names: list[str] = []
    apply_batch = GraphProjection.apply_batch

    def recorded(self, batch):
        names.append(threading.current_thread().name)
        return apply_batch(self, batch)

    monkeypatch.setattr(GraphProjection, "apply_batch", recorded)
    return names


def _service(settings, extractor, monkeypatch, *, quiet_s: float, queued_max: int = 32) -> MemoryService:
    monkeypatch.setattr(unit_of_work, "FOLLOW_WHEN_IDLE_S", quiet_s)
    monkeypatch.setattr(unit_of_work, "FOLLOW_QUEUED_MAX", queued_max)
    return MemoryService(settings, extractor=extractor)


def test_a_store_returns_before_the_projection_applies_it_and_the_next_read_applies_it(
        settings, extractor, monkeypatch, applied):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        before = service.uow.generation
        ids = [service.store(text).id for text in ("The pelican gateway signs every webhook",
                                                   "Webhook retries back off to one hour",
                                                   "The heron queue drains refunds nightly")]
        assert applied == []  # committed, not yet in the projection
        assert service.uow.generation == before + 3  # what a read here will see
        assert [hit.id for hit in service.search("pelican gateway webhook").hits][:1] == [ids[0]]
        assert len(applied) == 3 and set(ids) <= set(service.uow.projection.memory_nodes)
    finally:
        service.close()


def test_a_read_on_another_thread_sees_the_write_this_thread_queued(settings, extractor, monkeypatch):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        stored = service.store("The osprey scheduler pins nightly backups to zone b").id
        with ThreadPoolExecutor(1) as other:
            hits = other.submit(lambda: service.search("osprey scheduler backups").hits).result()
        assert [hit.id for hit in hits][:1] == [stored]
    finally:
        service.close()


def test_the_idle_thread_applies_a_write_no_read_asked_for(settings, extractor, monkeypatch, applied):
    service = _service(settings, extractor, monkeypatch, quiet_s=0.01)
    try:
        service.store("The kestrel cache evicts sessions after ten minutes")
        assert service.uow._follower.idle.wait(30)
        assert applied == ["graphmem-idle-follower"]
        service.search("kestrel cache sessions")
        assert applied == ["graphmem-idle-follower"]  # nothing was left for the read
    finally:
        service.close()


def test_a_write_that_finds_the_queue_full_applies_the_oldest_itself(settings, extractor, monkeypatch, applied):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S, queued_max=2)
    try:
        first = service.store("Alpha ledgers close at noon").id
        service.store("Beta ledgers close at midnight")
        assert applied == []
        service.store("Gamma ledgers never close")
        assert applied == ["MainThread"]  # the oldest, by the third write's own thread
        assert first in service.uow.projection.memory_nodes
        assert len(applied) == 3
    finally:
        service.close()


def test_a_failed_apply_rebuilds_the_projection_and_reaches_the_read_that_applied_it(
        settings, extractor, monkeypatch):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        service.search("warm")  # the projection is open
        apply_batch = GraphProjection.apply_batch

        def fails_once(self, batch):
            monkeypatch.setattr(GraphProjection, "apply_batch", apply_batch)
            raise RuntimeError("projection bug")

        monkeypatch.setattr(GraphProjection, "apply_batch", fails_once)
        stored = service.store("The wren exporter writes parquet files hourly").id  # its rows are committed
        with pytest.raises(RuntimeError, match="projection bug"):
            service.search("wren exporter parquet")
        assert stored in service.uow.projection.memory_nodes  # rebuilt from the rows
        assert [hit.id for hit in service.search("wren exporter parquet").hits][:1] == [stored]
    finally:
        service.close()


def test_a_write_inside_atomic_is_queued_once_after_the_commit(settings, extractor, monkeypatch, applied):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        with service.uow.atomic():
            first = service.store("Swift invoices are numbered per year").id
            second = service.store("Swift refunds need two approvers").id
        assert applied == []
        assert {first, second} <= set(service.uow.projection.memory_nodes)
        assert len(applied) == 2
    finally:
        service.close()


def test_an_in_memory_store_has_no_idle_thread_and_its_reads_apply_the_queue(extractor, monkeypatch, applied):
    from graphmem.settings import Settings

    service = _service(Settings.load(db=":memory:", environ={}), extractor, monkeypatch, quiet_s=0.0)
    try:
        stored = service.store("The puffin exporter streams rows to the warehouse").id
        assert service.uow._follower is None and applied == []  # one shared connection: nothing runs beside a call
        assert [hit.id for hit in service.search("puffin exporter warehouse").hits][:1] == [stored]
        assert applied == ["MainThread"]
    finally:
        service.close()


def test_a_read_under_the_projection_lock_never_waits_for_a_writer_that_waits_for_that_lock(
        settings, extractor, monkeypatch):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        projection = service.uow.fresh()
        stored = service.store("The gannet router retries dead letters twice").id  # queued
        reader_holds, writer_holds, read_done = threading.Event(), threading.Event(), threading.Event()

        def reader():  # recall reads under the projection's lock and reaches the projection again inside it
            with projection.lock:
                reader_holds.set()
                writer_holds.wait(10)
                assert service.uow.projection is projection
                read_done.set()

        def writer():  # holds the write lock, then applies the queue: waits for the projection's lock
            reader_holds.wait(10)
            with service.uow._lock:
                writer_holds.set()
                service.uow._catch_up()

        threads = [threading.Thread(target=reader, daemon=True), threading.Thread(target=writer, daemon=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert read_done.is_set() and not any(thread.is_alive() for thread in threads)
        assert stored in service.uow.fresh().memory_nodes
    finally:
        service.close()

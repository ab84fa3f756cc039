"""A write's projection effects are queued at its commit and applied by the next read, before it reads, or by
the idle thread (``graphmem.service.idle_follower``): a store does not wait for the projection, and no caller
ever misses its own write."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from graphmem.service import MemoryService, unit_of_work
from graphmem.settings import Settings
from graphmem.store.projection import GraphProjection

NEVER_IDLE_S = 3600.0


@pytest.fixture
def applied(monkeypatch):
    """The thread names that applied an insert to a projection, one per insert."""
    names: list[str] = []
    apply_batches = GraphProjection.apply_batches

    def recorded(self, batches):
        names.extend([threading.current_thread().name] * len(batches))
        return apply_batches(self, batches)

    monkeypatch.setattr(GraphProjection, "apply_batches", recorded)
    return names


@pytest.fixture
def applies(monkeypatch):
    """How many inserts each apply to a projection took at once."""
    sizes: list[int] = []
    apply_batches = GraphProjection.apply_batches

    def recorded(self, batches):
        sizes.append(len(batches))
        return apply_batches(self, batches)

    monkeypatch.setattr(GraphProjection, "apply_batches", recorded)
    return sizes


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


def test_a_write_that_finds_the_queue_full_applies_the_whole_queue_as_one(settings, extractor, monkeypatch, applies):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S, queued_max=2)
    try:
        ids = [service.store("Alpha ledgers close at noon").id, service.store("Beta ledgers close at midnight").id]
        assert applies == []
        ids.append(service.store("Gamma ledgers never close").id)
        assert applies == [3] and not service.uow._queued  # by the third write, all three in one apply
        assert set(ids) <= set(service.uow.projection.memory_nodes)
        service.store("Delta ledgers close on fridays")
        assert applies == [3] and len(service.uow._queued) == 1
    finally:
        service.close()


def test_a_failed_apply_rebuilds_the_projection_and_reaches_the_read_that_applied_it(
        settings, extractor, monkeypatch):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        service.search("warm")  # the projection is open
        apply_batches = GraphProjection.apply_batches

        def fails_once(self, batches):
            monkeypatch.setattr(GraphProjection, "apply_batches", apply_batches)
            raise RuntimeError("projection bug")

        monkeypatch.setattr(GraphProjection, "apply_batches", fails_once)
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


TEXTS = ["The pelican gateway signs every webhook with the rotating key",
         "Webhook retries back off to one hour before the gateway gives up",
         "The heron queue drains refunds nightly into the ledger",
         "Ledger exports reach the warehouse through the puffin exporter",
         "The kestrel cache evicts webhook sessions after ten minutes",
         "Nightly refunds above one thousand need two approvers"]


def _projection_state(projection: GraphProjection) -> dict[str, object]:
    """Everything a ranking reads that does not depend on when or under which ids the memories were stored: the
    graph (edges, weights, out-strengths and degrees), the keyword index and the vectors. A keyword's term id
    follows the order of a set of strings (the process's hash seed), so postings are compared by term."""
    keywords = projection.keywords
    state = {key: value for key, value in keywords.state().items()
             if key in ("keyword_length", "keyword_totals")}
    for term, number in keywords.vocabulary.items():
        start, end = keywords._indptr[number], keywords._indptr[number + 1]
        state[f"term {term}"] = (int(keywords._df[number]), keywords._docs[start:end].tolist(),
                                 keywords._tf[start:end].tolist())
    return {**{f"graph_{key}": value for key, value in projection.graph.state().items()},
            **projection.semantic.state(), **state}


def test_queued_inserts_applied_as_one_give_the_projection_applied_one_by_one(
        settings, new_store, extractor, monkeypatch, applies):
    batched = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    single = MemoryService(Settings.load(db=new_store("single.db"), environ={}), extractor=extractor)
    try:
        for service in (batched, single):
            service.search("warm")  # both projections open
        for text in TEXTS:
            batched.store(text)
            single.store(text)
            single.uow._catch_up()  # one write at a time, as before the queue was applied as one
        assert applies == [1] * len(TEXTS)
        assert [hit.content for hit in batched.search("webhook gateway refunds").hits] == [
            hit.content for hit in single.search("webhook gateway refunds").hits]
        assert applies[len(TEXTS):] == [len(TEXTS)]  # the read applied the six stores at once
        one, other = _projection_state(batched.uow.projection), _projection_state(single.uow.projection)
        assert one.keys() == other.keys()
        for key, value in one.items():
            assert np.array_equal(value, other[key]) if isinstance(value, np.ndarray) else value == other[key], key
        assert batched.uow.projection.memory_count == single.uow.projection.memory_count == len(TEXTS)
    finally:
        batched.close()
        single.close()


def test_another_process_write_between_queued_inserts_is_applied_in_its_place(
        settings, extractor, monkeypatch, applies):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    other = MemoryService(settings, extractor=extractor)  # another process on the same store
    try:
        service.search("warm")
        mine = [service.store(TEXTS[0]).id, service.store(TEXTS[1]).id]
        theirs = other.store(TEXTS[2]).id
        mine.append(service.store(TEXTS[3]).id)
        assert applies == []
        projection = service.uow.fresh()
        # the run of two stops at the other process's generation, read from the log (one apply), then the third
        assert applies == [2, 1, 1]
        nodes = projection.memory_nodes
        assert nodes[mine[0]] < nodes[mine[1]] < nodes[theirs] < nodes[mine[2]]
        other.uow.fresh()
        assert service.uow.generation == other.uow.generation
    finally:
        service.close()
        other.close()


def test_a_write_with_other_effects_ends_the_run_of_inserts(settings, extractor, monkeypatch, applies):
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        service.search("warm")
        first = service.store(TEXTS[0]).id
        second = service.store(TEXTS[1]).id
        seen = []
        with service.uow.write() as write:  # a write whose effect is not an insert
            write.then(lambda projection: seen.append(projection.memory_count))
        service.store(TEXTS[2])
        service.search("webhook")
        assert applies == [2, 1] and seen == [2]  # the effect saw the two inserts before it, not the one after
        assert {first, second} <= set(service.uow.projection.memory_nodes)
    finally:
        service.close()


def test_the_idle_thread_applies_the_queue_a_chunk_at_a_time(settings, extractor, monkeypatch, applies):
    monkeypatch.setattr(unit_of_work, "FOLLOW_IDLE_CHUNK", 4)
    service = _service(settings, extractor, monkeypatch, quiet_s=NEVER_IDLE_S)
    try:
        service.search("warm")
        for text in TEXTS:
            service.store(text)
        service.uow._catch_up_when_idle()  # what the thread runs once the process is quiet
        assert applies == [4, 2] and not service.uow._queued
    finally:
        service.close()

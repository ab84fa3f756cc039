"""``UnitOfWork.atomic``: several use cases in one transaction, all committed or none, the projection
following once; and ``MetricsRecorder.held`` keeps a flush out of the open write."""

from __future__ import annotations

import pytest

from graphmem.errors import InvalidInput


def test_writes_inside_atomic_commit_together_and_the_projection_follows(service):
    first = service.store("The billing worker retries a charge three times", project="billing").id
    before = service.uow.generation
    with service.uow.atomic():
        second = service.store("Refunds need a second approver above 500 euros", project="billing").id
        service.edits.touch([first])
    assert service.uow.generation == before + 1  # one generation for the whole unit
    assert {first, second} <= set(service.projection.memory_nodes)
    assert service.repository.memories_by_id([first])[first].use_count == 1
    assert [h.id for h in service.search("refunds approver").hits][:1] == [second]


def test_an_error_inside_atomic_leaves_the_store_unchanged(service):
    kept = service.store("The ledger closes at midnight UTC").id
    counts = service.repository.counts()
    with pytest.raises(InvalidInput), service.uow.atomic():
        service.store("Invoices are numbered per fiscal year", project="billing")
        service.edits.forget(kept)
        service.store("", project="billing")  # refused: the two writes before it roll back
    assert service.repository.counts() == counts
    assert service.repository.memories_by_id([kept])[kept].status == "active"
    assert not service.search("invoices fiscal year").hits


def test_no_metrics_flush_runs_while_held(service):
    service.metrics.flush_s = 0.0  # every record would flush
    with service.metrics.held(), service.uow.atomic():
        service.store("Payouts run every Friday")
        assert service.metrics._pending  # kept for later, not written inside the open write
    service.store("Payouts are in euros")
    assert not service.metrics._pending


# A one-shot command (``preload=False``): the projection and each feature open on first use (issue 22).

def _one_shot(settings, extractor):
    from graphmem.service import MemoryService

    return MemoryService(settings, extractor=extractor, preload_embedder=False, preload=False)


def test_a_one_shot_service_reads_rows_without_opening_the_projection(service, settings, extractor):
    service.store("The flamingo service owns every canary deploy flag", topic_key="decision/flags")
    service.store("Canary deploys roll back when the flag service is down")
    from_projection = service.open(["decision/flags"]).concepts  # a server's: its projection is open
    service.close()
    one_shot = _one_shot(settings, extractor)
    try:
        assert one_shot.open(["decision/flags"]).concepts == from_projection  # here from the mention rows
        assert one_shot.sessions.timeline(5, None, None).timeline
        assert not one_shot.uow.projection_open
        one_shot.projection  # noqa: B018  # a read that needs the graph opens it
        assert one_shot.uow.projection_open
        assert one_shot.open(["decision/flags"]).concepts == from_projection
    finally:
        one_shot.close()


def test_writes_before_the_projection_opens_are_in_it_when_it_does(service, settings, extractor):
    forgotten = service.store("Invoices are numbered per fiscal year", project="billing").id
    used = service.store("Refunds need a second approver above 500 euros", project="billing").id
    service.close()
    one_shot = _one_shot(settings, extractor)
    try:
        one_shot.edits.forget(forgotten)
        one_shot.edits.touch([used])
        assert not one_shot.uow.projection_open  # each write only recorded its generation
        generation = one_shot.uow.generation
        assert [h.id for h in one_shot.search("refunds approver").hits][:1] == [used]
        assert one_shot.uow.projection_open and one_shot.uow.generation == generation
        assert not one_shot.search("invoices fiscal year").hits  # forgotten before the projection opened
        projection = one_shot.projection
        assert projection.col("use_count")[projection.memory_nodes[used]] == 1
    finally:
        one_shot.close()


def test_a_feature_is_built_once_whichever_thread_asks_first(settings, extractor):
    from concurrent.futures import ThreadPoolExecutor

    one_shot = _one_shot(settings, extractor)
    try:
        assert "recall_service" not in vars(one_shot)
        with ThreadPoolExecutor(8) as pool:
            built = list(pool.map(lambda _: one_shot.recall_service, range(16)))
        assert all(feature is built[0] for feature in built)
        assert built[0].engine is one_shot.recall  # and the features it uses are the service's own
    finally:
        one_shot.close()

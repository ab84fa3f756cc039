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

"""One dialect call, one unit of work: a call that writes several items lands whole or not at all.

A seed tool such as the reference server's ``create_relations`` takes a list, and graphmem's use cases
write one item each. :func:`one_unit` opens one transaction (``UnitOfWork.atomic``) that every use case
inside joins, so a failing item in the middle rolls back the items before it, as
``../shared/DESIGN.md`` promises ("a failed call changes nothing"). Metric flushes wait until the end:
each is its own transaction, and on SQLite it would wait for the lock the open write holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from graphmem.service import MemoryService

__all__ = ["one_unit"]


@contextmanager
def one_unit(service: MemoryService) -> Iterator[None]:
    """Run the block's writes in one transaction; an exception leaves the store as it was."""
    with service.metrics.held(), service.uow.atomic():
        yield

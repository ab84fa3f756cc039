"""Storing observations: one, or a bulk import in batches, each batch one write of the unit of work.

Callers hand down validated, typed observations (:func:`~graphmem.service.memories.drafts.validate_observation`);
the drafts carry them to the store, which builds the rows (``graphmem.store.drafts``).

A store is parsed before the write lock is taken (parsing is the slow part and touches no rows).
Inside the one transaction: the live session is attached, the rows are inserted (a duplicate
returns the existing id), and a topic key the project already uses is taken over by the newer
memory. The projection follows after the commit.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from graphmem.core.time import from_ms
from graphmem.errors import InvalidInput
from graphmem.service.clock import Clock
from graphmem.service.memories.drafts import Observation, build_drafts, validate_observation
from graphmem.service.memories.parallel_drafts import drafting
from graphmem.service.memories.results import StoreResult
from graphmem.service.memories.session_attach import ReservedSessions, adopt_sessions, attach_sessions
from graphmem.service.memories.topic_upsert import upsert_topic_keys
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.store.bulk_checkpoints import sparse_checkpoints
from graphmem.store.drafts import MemoryDraft
from graphmem.store.repository import StoredBatch, insert_memories

__all__ = ["MemoryWrites", "Progress"]

Progress = Callable[[int], None]

# A bulk import commits every batch on its own, so no write holds the store's write lock for long:
# 512 observations insert in about 0.3 s on the 2-core bench machine, well under the one second
# other writers may wait (docs/architecture.md, "One write path").
IMPORT_BATCH = 512


class MemoryWrites:
    """The store use cases."""

    def __init__(self, uow: UnitOfWork, clock: Clock, reserved: ReservedSessions | None = None) -> None:
        self.uow = uow
        self.clock = clock
        self.reserved = reserved if reserved is not None else ReservedSessions()  # sessions a write may open

    def store(self, observation: Observation) -> StoreResult:
        """Parse and store one validated observation (see :meth:`MemoryService.store`)."""
        return self.insert([observation])[0]

    def store_many(self, records: Iterable[Mapping[str, Any]], *, batch_size: int = IMPORT_BATCH,
                   on_progress: Progress | None = None) -> list[StoreResult]:
        """Validate every record first (nothing is written if one is bad), then insert in batches.

        Each batch is handed to the drafting worker as soon as it is validated, so the worker starts and
        drafts while the rest is validated; the writes begin only once every record is."""
        records = records if isinstance(records, Sequence) else list(records)
        settings = self.uow.settings
        results: list[StoreResult] = []
        with (_collections_skip_what_is_stored(), sparse_checkpoints(self.uow.engine),
              drafting(self.uow.extractor, settings.nlp_model, len(records), settings.import_workers) as drafts):
            batches: list[list[Observation]] = []
            for start in range(0, len(records), batch_size):
                batches.append([_validated(self.uow, number, record) for number, record
                                in enumerate(records[start : start + batch_size], start=start + 1)])
                drafts.ahead(batches[-1])
            for batch, drafted in zip(batches, drafts.drafts(), strict=True):
                results.extend(self.insert(batch, drafted))
                if on_progress:
                    on_progress(len(results))
        return results

    def insert(self, observations: Sequence[Observation],
               drafts: Sequence[MemoryDraft] | None = None) -> list[StoreResult]:
        """One write: attach sessions, insert, take over topic keys; the projection follows."""
        drafts = drafts if drafts is not None else build_drafts(self.uow.extractor, observations)
        with self.uow.write() as write:
            now_ms = self.clock.now_ms()
            named = [draft.session_id is not None for draft in drafts]
            drafts = attach_sessions(write.session, drafts, self.uow.settings.lifecycle, now_ms)
            # The co-occurrence counts are read back only for a projection that projects them.
            batch = insert_memories(write.session, drafts, edge_counts=self.uow.settings.activation.cooccurrence)
            adopt_sessions(write.session, [draft for draft, given, (_, duplicate) in
                                           zip(drafts, named, batch.outcomes, strict=True)
                                           if given and not duplicate], self.uow.settings.lifecycle, self.reserved)
            write.inserted(batch)
            upsert = upsert_topic_keys(write.session, batch, from_ms(now_ms))
            upsert.effects.record(write)
        return upsert.annotate(_store_results(observations, drafts, batch))


@contextmanager
def _collections_skip_what_is_stored() -> Iterator[None]:
    """Leave the objects alive before a bulk import (the projection's, millions of them in a large store) out
    of the garbage collector's passes during it (``gc.freeze``), and hand them back after (``gc.unfreeze``).

    Every batch allocates enough to trigger collections, and each pass of the oldest generation walked the
    whole projection: 10 % of the writer's CPU on SQLite at 100k memories, about 40 % on PostgreSQL
    (docs/benchmarks.md, issue 22). Reference counting still frees what the import drops; cyclic garbage
    among the frozen objects waits for the first collection after the import."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _validated(uow: UnitOfWork, number: int, record: Mapping[str, Any]) -> Observation:
    try:
        return validate_observation(uow.settings.limits, **dict(record))
    except TypeError as error:
        raise InvalidInput(f"record {number}: unexpected field ({error})") from None
    except InvalidInput as error:
        raise InvalidInput(f"record {number}: {error}") from None


def _store_results(observations: Sequence[Observation], drafts: Sequence[MemoryDraft],
                   batch: StoredBatch) -> list[StoreResult]:
    return [StoreResult(id=memory_id, kind=obs.kind, duplicate=duplicate,
                        concepts=tuple(key for key, *_ in draft.mentions), project=obs.project,
                        topic_key=obs.topic_key, redacted=dict(obs.redacted))
            for obs, draft, (memory_id, duplicate) in zip(observations, drafts, batch.outcomes, strict=True)]

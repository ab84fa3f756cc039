"""RecallService owns search and associate end to end; the facade only delegates, then reinforces."""

from __future__ import annotations

import dataclasses

from graphmem import MemoryService, Settings
from graphmem.service.recall.results import NotedAssociateResult, NotedSearchResult

WEBHOOK = "Stripe retries webhook deliveries for three days, so every webhook handler needs an idempotency key"


def _reinforcing(new_store, extractor) -> MemoryService:
    settings = Settings.load(db=new_store("reinforce.db"), environ={}, decay={"reinforce_on_recall": True})
    return MemoryService(settings, extractor=extractor)


def test_a_recall_read_writes_nothing_and_the_facade_reinforces_after_it(new_store, extractor):
    service = _reinforcing(new_store, extractor)
    memory = service.store(WEBHOOK).id
    service.recall_service.search("webhook")
    service.recall_service.associate("webhook")
    assert service.open([memory]).memories[0].use_count == 0
    service.search("webhook")
    assert service.open([memory]).memories[0].use_count == 1
    service.close()


def test_notes_come_with_the_answer_when_asked_and_the_plain_answer_keeps_its_shape(service):
    original = service.store(WEBHOOK).id
    newer = service.edits.correct(original, WEBHOOK + " (and a retry budget)").created_id
    noted = service.search("webhook idempotency", include_superseded=True, notes=True)
    assert isinstance(noted, NotedSearchResult)
    assert noted.notes[original] == (f"superseded by {newer}",) and newer not in noted.notes
    plain = service.search("webhook idempotency", include_superseded=True)
    assert "notes" not in {field.name for field in dataclasses.fields(plain)}
    assert [hit.id for hit in plain.hits] == [hit.id for hit in noted.hits]


def test_composition_notes_cover_the_sources_it_shows(service):
    original = service.store(WEBHOOK).id
    service.edits.correct(original, WEBHOOK + " (and a retry budget)")
    result = service.associate("webhook idempotency", mode="composition", include_superseded=True, notes=True)
    assert isinstance(result, NotedAssociateResult) and result.composition is not None
    assert set(result.notes) <= {source.id for source in result.composition.sources}


def test_notes_are_read_once_in_the_call_that_ranked_the_hits(service, monkeypatch):
    """The tools and the dialects ask ``notes=True``: one notes read per search, none when not asked."""
    from graphmem.service.recall import service as recall_service

    original = service.store(WEBHOOK).id
    service.edits.correct(original, WEBHOOK + " (and a retry budget)")
    reads: list[list[str]] = []
    real = recall_service.recall_notes
    monkeypatch.setattr(recall_service, "recall_notes", lambda repository, ids: reads.append(list(ids))
                        or real(repository, ids))
    noted = service.search("webhook idempotency", include_superseded=True, notes=True)
    assert reads == [[hit.id for hit in noted.hits]] and original in noted.notes
    service.search("webhook idempotency", include_superseded=True)
    service.associate("webhook idempotency")
    assert len(reads) == 1


def test_a_search_reads_its_hits_and_their_notes_on_one_connection(service):
    """Each pool checkout cost ~25 µs of a 600-memory search: the notes are read on the hit rows' connection, so
    asking for them adds no checkout."""
    from sqlalchemy import event

    original = service.store(WEBHOOK).id
    service.edits.correct(original, WEBHOOK + " (and a retry budget)")
    service.search("webhook idempotency", include_superseded=True, notes=True)
    checkouts: list[object] = []
    engine = service.repository.engine

    def counted(call):
        checkouts.clear()
        event.listen(engine, "checkout", listener)
        try:
            return call(), len(checkouts)
        finally:
            event.remove(engine, "checkout", listener)

    listener = lambda *args: checkouts.append(args)  # noqa: E731
    noted, with_notes = counted(lambda: service.search("webhook idempotency", include_superseded=True, notes=True))
    _, without = counted(lambda: service.search("webhook idempotency", include_superseded=True))
    associated, associate_with = counted(lambda: service.associate("webhook idempotency", include_superseded=True,
                                                                   notes=True))
    _, associate_without = counted(lambda: service.associate("webhook idempotency", include_superseded=True))
    assert original in noted.notes and original in associated.notes  # the notes were read
    assert with_notes == without and associate_with == associate_without

"""``extend_session``: a session's span is widened to its memories' times in one statement, as the ORM did it,
and an object of the row this transaction already holds stays the account of its fields."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from graphmem import MemoryService, Settings
from graphmem.store.session_store import SessionRecord, create_session, extend_session, touch_session
from graphmem.store.tables import SessionRow


@pytest.fixture
def service(new_store, extractor):
    service = MemoryService(Settings.load(db=new_store("store.db"), environ={}), extractor=extractor)
    with service.uow.repository.write_transaction() as session:
        create_session(session, SessionRecord("ses_a", "p", "cli", 1_000, 2_000, None, 7200))
    yield service
    service.close()


def _span(service: MemoryService, session_id: str = "ses_a") -> tuple[int, int] | None:
    with service.uow.engine.connect() as connection:
        row = connection.execute(text("SELECT started_at, last_activity_at FROM session WHERE id = :id"),
                                 {"id": session_id}).first()
    return None if row is None else (row[0], row[1])


@pytest.mark.parametrize(("first", "last", "span"), [
    (500, 1_500, (500, 2_000)),  # earlier start
    (1_500, 3_000, (1_000, 3_000)),  # later activity
    (100, 9_000, (100, 9_000)),  # both
    (1_200, 1_800, (1_000, 2_000)),  # inside: nothing to widen, and the session still exists
    (1_000, 2_000, (1_000, 2_000)),  # its own bounds
])
def test_a_span_is_widened_to_cover_the_times(service, first, last, span):
    with service.uow.repository.write_transaction() as session:
        assert extend_session(session, "ses_a", first, last) is True
    assert _span(service) == span


def test_an_unknown_session_is_not_created(service):
    with service.uow.repository.write_transaction() as session:
        assert extend_session(session, "ses_missing", 1, 2) is False
    assert _span(service, "ses_missing") is None


def test_a_row_this_transaction_added_is_widened_through_its_object(service):
    with service.uow.repository.write_transaction() as session:
        create_session(session, SessionRecord("ses_b", None, None, 5_000, 5_000, None, 7200))  # not flushed yet
        assert extend_session(session, "ses_b", 4_000, 6_000) is True
    assert _span(service, "ses_b") == (4_000, 6_000)


def test_a_row_this_transaction_loaded_and_changed_keeps_every_change(service):
    with service.uow.repository.write_transaction() as session:
        touch_session(session, "ses_a", 2_500)  # loaded and changed as an object, not flushed
        assert extend_session(session, "ses_a", 900, 2_200) is True
        row = session.get(SessionRow, "ses_a")
        assert (row.started_at, row.last_activity_at) == (900, 2_500)
    assert _span(service) == (900, 2_500)


def test_stores_in_a_named_session_widen_it_to_their_times(service):
    first = service.store("The deploy rolled back at noon", session_id="ses_a")
    second = service.store("The payments service timed out", session_id="ses_a")
    with service.uow.engine.connect() as connection:
        times = [row[0] for row in connection.execute(text(
            "SELECT created_at FROM memory WHERE id IN (:a, :b) ORDER BY created_at"), {"a": first.id, "b": second.id})]
    assert _span(service) == (1_000, max(2_000, times[-1]))

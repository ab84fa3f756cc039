"""Automatic sessions on store: memories without a session join their project's live one, in the store's own
transaction; an imported memory that names its session creates or widens that session's row."""

from __future__ import annotations

from datetime import UTC, datetime


def _session(service, memory_id: str) -> str | None:
    return service.open([memory_id]).memories[0].session_id


def test_memories_of_one_project_share_its_live_session_and_projects_get_their_own(service):
    first, second = (service.store(text, project="web").id for text in ("Use Redis for sessions", "Cache pages"))
    other = service.store("Deploys run at 10:00 UTC", project="ops").id
    assert _session(service, first) == _session(service, second) is not None
    assert _session(service, other) not in (None, _session(service, first))


def test_an_imported_session_spans_its_memories_and_a_later_one_widens_it(service):
    times = [datetime(2026, 1, day, 9, tzinfo=UTC) for day in (3, 5, 9)]
    service.store_many([{"content": f"Import note {n}: the queue drained", "session_id": "ses_past",
                         "project": "web", "created_at": at.isoformat()} for n, at in enumerate(times[:2])])
    timeline = service.sessions.timeline(10, "ses_past").timeline
    (entry,) = timeline
    assert (entry.session.project, entry.observation_count) == ("web", 2)
    assert entry.session.started_at == times[0].isoformat()
    service.store_many([{"content": "Import note 2: the queue drained again", "session_id": "ses_past",
                         "created_at": times[2].isoformat()}])
    assert service.sessions.timeline(10, "ses_past").timeline[0].observation_count == 3

"""Sessions: automatic and explicit starts with a timeout, prompts, the timeline, and what a start returns."""

from __future__ import annotations

import pytest

from graphmem import MemoryService, Settings
from graphmem.errors import InvalidInput, NotFound
from graphmem.ids import new_id
from graphmem.store.tables import RelationRow
from tests.conftest import ORDERS, WEBHOOK

HOUR_MS = 3_600_000


@pytest.fixture
def clock(service):
    """The lifecycle clock, stepped by hand."""
    now = [service.lifecycle.now_ms()]
    service.clock.now_ms = lambda: now[0]
    return now


def session_of(service, memory_id: str) -> str | None:
    return service.open([memory_id]).memories[0].session_id


def test_stores_in_one_project_share_an_automatic_session_until_it_times_out(service, clock):
    first = service.store(WEBHOOK, project="payments").id
    second = service.store(ORDERS, project="payments").id
    elsewhere = service.store(WEBHOOK, project="web").id
    assert session_of(service, first) == session_of(service, second) != session_of(service, elsewhere)
    clock[0] += 3 * HOUR_MS
    later = service.store("Deploy the billing worker with kubectl rollout", project="payments").id
    assert session_of(service, later) not in {session_of(service, first), None}


def test_an_explicit_session_id_is_kept_and_auto_sessions_can_be_turned_off(service, new_store, extractor):
    assert session_of(service, service.store(WEBHOOK, session_id="mine").id) == "mine"
    settings = Settings.load(db=new_store("m.db"), environ={}, lifecycle={"auto_sessions": False})
    manual = MemoryService(settings, extractor=extractor)
    assert session_of(manual, manual.store(WEBHOOK).id) is None
    manual.close()


def test_start_reuses_the_live_session_of_the_project_and_client_and_respects_its_timeout(service, clock):
    first = service.sessions.start("web", "ide", timeout_s=600)
    assert not first.reused and first.session.timeout_s == 600 and first.session.open
    clock[0] += 5 * 60_000
    again = service.sessions.start("web", "ide")
    assert again.reused and again.session.id == first.session.id
    assert service.sessions.start("web", "cli").session.id != first.session.id
    clock[0] += 11 * 60_000
    assert service.sessions.start("web", "ide").session.id != first.session.id
    forced = service.sessions.start("web", "ide", new=True)
    assert not forced.reused
    with pytest.raises(InvalidInput, match="timeout_s"):
        service.sessions.start("web", timeout_s=5)


def test_a_memory_stored_during_an_explicit_session_joins_it(service):
    started = service.sessions.start("web", "ide").session.id
    assert session_of(service, service.store(WEBHOOK, project="web").id) == started


def test_start_returns_recent_memories_due_reviews_and_open_conflicts(service, clock):
    webhook = service.store(WEBHOOK, project="web").id
    orders = service.store(ORDERS, project="web", review_after=clock[0] - HOUR_MS).id
    service.store("Unrelated billing note", project="billing")
    relation_id = new_id("rel")
    relation = RelationRow(id=relation_id, source_id=webhook, target_id=orders, type="conflicts_with",
                           status="pending", reason="both claim the dedupe key", created_at=clock[0])
    with service.repository.transaction() as session:
        session.add(relation)
    start = service.sessions.start("web")
    assert {m.id for m in start.recent_memories} == {webhook, orders}
    assert [item.id for item in start.due_reviews] == [orders]
    assert [(c.relation_id, c.source_id, c.target_id) for c in start.open_conflicts] == [
        (relation_id, webhook, orders)]
    assert start.active_skills == ()


def test_start_lists_active_skills_and_not_drafts(service):
    first = service.store(WEBHOOK, project="web").id
    second = service.store(ORDERS, project="web").id
    active = service.learning.skills.draft([first, second], "web")
    service.learning.skills.transition(active.id, "activate")
    skills = service.sessions.start("web").active_skills
    assert [(s["id"], s["status"]) for s in skills] == [(active.id, "active")]


def test_save_prompt_and_the_timeline_show_sessions_newest_first_with_ids(service, clock):
    early = service.store(WEBHOOK, project="web").id
    prompt = "How do we dedupe webhooks? <private>token abc</private>"
    service.sessions.save_prompt(prompt, project="web")
    clock[0] += 3 * HOUR_MS
    late = service.store(ORDERS, project="web").id
    timeline = service.sessions.timeline(project="web").timeline
    assert [[o.id for o in entry.observations] for entry in timeline] == [[late], [early]]
    assert [p.content for p in timeline[1].prompts] == ["How do we dedupe webhooks?"]
    assert timeline[1].prompts[0].id.startswith("prm_")
    assert timeline[1].session.id == session_of(service, early)
    assert service.sessions.timeline(limit=1).timeline[0].session.id == session_of(service, late)


def test_the_timeline_cuts_observations_per_session_but_reports_the_full_count(service):
    for n in range(4):
        service.store(f"{WEBHOOK} ({n})", project="web")
    entry = service.sessions.timeline(per_session=2).timeline[0]
    assert len(entry.observations) == 2 and entry.observation_count == 4


def test_end_closes_a_session_and_a_new_store_opens_another(service):
    memory = service.store(WEBHOOK, project="web").id
    ended = service.sessions.end(project="web")
    assert ended.session.id == session_of(service, memory) and not ended.session.open
    assert session_of(service, service.store(ORDERS, project="web").id) != ended.session.id
    with pytest.raises(NotFound):
        service.sessions.end(project="nowhere")
    with pytest.raises(NotFound):
        service.sessions.timeline(session_id="ses_missing")


def test_save_prompt_refuses_empty_text_and_an_unknown_session(service):
    with pytest.raises(InvalidInput):
        service.sessions.save_prompt("<private>only secret</private>")
    with pytest.raises(NotFound):
        service.sessions.save_prompt("hello", session_id="ses_missing")
    assert service.status()["sessions"] == 0


def test_imported_observations_with_a_session_id_create_and_extend_their_sessions(service):
    import json

    lines = [json.dumps({"content": f"{WEBHOOK} ({n})", "project": "payments", "session_id": "ses_old",
                         "created_at": f"2026-03-0{n + 1}T10:00:00+00:00"}) for n in range(3)]
    lines.append(json.dumps({"content": ORDERS, "project": "web", "session_id": "ses_other",
                             "created_at": "2026-03-05T09:00:00+00:00"}))
    report = service.import_jsonl(lines)
    assert report.added == {"memories": 4}
    assert service.status()["sessions"] == 2
    entry = service.sessions.timeline(session_id="ses_old").timeline[0]
    assert entry.observation_count == 3 and entry.session.project == "payments"
    assert entry.session.started_at.startswith("2026-03-01T10:00")
    assert entry.session.last_activity_at.startswith("2026-03-03T10:00")
    assert not entry.session.open
    later = json.dumps({"content": "Refunds go through the same idempotency key check", "project": "payments",
                        "session_id": "ses_old", "created_at": "2026-03-04T12:00:00+00:00"})
    service.import_jsonl([later])
    extended = service.sessions.timeline(session_id="ses_old").timeline[0].session
    assert extended.last_activity_at.startswith("2026-03-04T12:00") and service.status()["sessions"] == 2

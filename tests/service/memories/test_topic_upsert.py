"""Topic-key upsert: a newer memory under a key its project already uses replaces the holder in the insert's
own transaction; time decides which one stays current, not the order of insertion."""

from __future__ import annotations


def test_the_newer_holder_replaces_the_older_which_stays_reachable(service):
    old = service.store("Sessions live in signed cookies", project="web", topic_key="decision/sessions",
                        valid_from="2026-01-01T00:00:00+00:00")
    new = service.store("Sessions live in Redis", project="web", topic_key="decision/sessions",
                        valid_from="2026-03-01T00:00:00+00:00")
    assert new.superseded == (old.id,)
    assert [hit.id for hit in service.search("sessions live", project="web").hits] == [new.id]
    shown = service.search("sessions live", project="web", include_superseded=True).hits
    assert {hit.id for hit in shown} == {old.id, new.id}
    closed = service.open([old.id]).memories[0]
    assert closed.superseded_by == new.id and closed.valid_to is not None
    other = service.store("Sessions live in Memcached", project="api", topic_key="decision/sessions")
    assert other.superseded == ()  # another project's key is another key


def test_a_back_dated_import_is_itself_closed_by_the_current_holder(service):
    current = service.store("Sessions live in Redis", project="web", topic_key="decision/sessions",
                            valid_from="2026-03-01T00:00:00+00:00")
    (imported,) = service.store_many([{"content": "Sessions live in signed cookies", "project": "web",
                                       "topic_key": "decision/sessions", "valid_from": "2026-01-01T00:00:00+00:00"}])
    assert imported.superseded == ()
    old, holder = (service.open([memory_id]).memories[0] for memory_id in (imported.id, current.id))
    assert old.superseded_by == current.id and holder.superseded_by is None
    assert service.history.of("decision/sessions", "web").current_ids == (current.id,)

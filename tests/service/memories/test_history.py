"""The one history of a memory, and ``open`` as of an instant: a chain reached through upserts, corrections
and forgets lists every version oldest first with the time of each replacement; ``open`` at an instant
shows the topic key's holder of then, as it was then."""

from __future__ import annotations

import pytest

from graphmem.errors import NotFound

JAN, FEB, MAR, APR = (f"2026-0{month}-01T00:00:00+00:00" for month in (1, 2, 3, 4))


@pytest.fixture
def chain(service):
    """decision/sessions held by cookies from January, by Redis from March (a back-dated import)."""
    cookies, redis = (r.id for r in service.store_many([
        {"content": "Sessions live in signed cookies", "topic_key": "decision/sessions", "created_at": JAN},
        {"content": "Sessions live in Redis", "topic_key": "decision/sessions", "created_at": MAR}]))
    return service, cookies, redis


def test_the_history_lists_every_version_with_each_replacement_and_its_time(chain):
    service, cookies, redis = chain
    corrected = service.edits.correct(redis, "Sessions live in Redis with a 30-minute TTL").created_id
    history = service.history.of("decision/sessions")
    assert [version.id for version in history.memories] == [cookies, redis, corrected]
    assert [(e.old_id, e.new_id, e.via) for e in history.events] == [
        (cookies, redis, "supersedes"), (redis, corrected, "supersedes")]
    assert history.events[0].at == MAR and history.current_ids == (corrected,)
    assert service.history.of(cookies).memories == history.memories  # from any member, the same chain
    with pytest.raises(NotFound):
        service.history.of("decision/nothing")


def test_open_as_of_an_instant_shows_the_holder_of_then_as_it_was_then(chain):
    service, cookies, redis = chain
    then = service.open(["decision/sessions"], as_of=FEB)
    assert [m.id for m in then.memories] == [cookies]
    assert then.memories[0].superseded_by is None and then.memories[0].valid_to is None  # not yet replaced
    assert [m.id for m in service.open(["decision/sessions"], as_of=APR).memories] == [redis]
    before = service.open(["decision/sessions", redis], as_of="2025-12-01T00:00:00+00:00")
    assert before.memories == () and before.not_found == ("decision/sessions", redis)

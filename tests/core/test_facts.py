"""The pure rules of temporal facts: closing, back-dating, duplicates, state at an instant."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.core.facts import Fact, facts_at, plan_new_fact, timeline


def day(n: int) -> datetime:
    return datetime(2026, 1, n, tzinfo=UTC)


ACME = Fact("f1", "alice", "works at", "acme", 1.0, day(1), day(1))


def test_a_new_object_closes_the_open_fact_at_its_start():
    plan = plan_new_fact([ACME], "globex", day(10))
    assert plan.close == (("f1", day(10)),) and plan.valid_to is None


def test_a_back_dated_fact_ends_where_the_later_one_begins():
    later = Fact("f2", "alice", "works at", "globex", 1.0, day(10), day(10))
    plan = plan_new_fact([later], "initech", day(5))
    assert plan.close == () and plan.valid_to == day(10) and plan.superseded_by == "f2"


def test_the_same_object_already_holding_is_a_duplicate_and_many_valued_predicates_keep_both():
    assert plan_new_fact([ACME], "acme", day(3)).duplicate_of == "f1"
    assert plan_new_fact([ACME], "globex", day(3), invalidate_previous=False).close == ()


def test_state_at_an_instant_and_timeline_order():
    closed = Fact("f1", "alice", "works at", "acme", 1.0, day(1), day(1), valid_to=day(10))
    current = Fact("f2", "alice", "works at", "globex", 1.0, day(10), day(10))
    assert facts_at([closed, current], day(9)) == [closed]
    assert facts_at([closed, current], day(10)) == [current]
    assert timeline([current, closed]) == [closed, current]

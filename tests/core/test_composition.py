"""Greedy cover: min_coverage is enforced and reported, gaps are honest."""

from __future__ import annotations

import pytest

from graphmem.core.composition import Candidate, compose

NEEDED = {"webhook": 1.0, "idempotency key": 1.0, "order": 1.0, "deploy": 1.0}
CANDIDATES = [
    Candidate("a", 0.9, frozenset({"webhook", "idempotency key"})),
    Candidate("b", 0.5, frozenset({"order"})),
    Candidate("c", 0.8, frozenset({"webhook"})),
    Candidate("d", 0.2, frozenset({"deploy"})),
]


def test_min_coverage_changes_how_many_sources_are_taken():
    low = compose(NEEDED, CANDIDATES, min_coverage=0.5)
    high = compose(NEEDED, CANDIDATES, min_coverage=1.0)
    assert low.sources == ("a",)
    assert high.sources == ("a", "b", "d")
    assert high.coverage == 1.0 and high.coverage_met and high.gaps == ()


def test_an_uncoverable_need_is_a_gap_and_coverage_is_not_overstated():
    result = compose(NEEDED | {"kubernetes": 1.0}, CANDIDATES, min_coverage=0.9)
    assert result.gaps == ("kubernetes",)
    assert result.coverage == pytest.approx(0.8)
    assert not result.coverage_met
    assert result.stop_reason == "no candidate adds coverage"


def test_plan_steps_say_what_each_source_supplies():
    result = compose(NEEDED, CANDIDATES, min_coverage=1.0)
    assert [step.supplies for step in result.plan] == [("idempotency key", "webhook"), ("order",), ("deploy",)]
    assert result.plan[0].order == 1 and "idempotency key" in result.plan[0].why


def test_max_sources_stops_the_cover():
    result = compose(NEEDED, CANDIDATES, min_coverage=1.0, max_sources=1)
    assert result.sources == ("a",) and result.stop_reason == "max_sources reached" and not result.coverage_met


def test_min_coverage_outside_the_unit_interval_is_refused():
    with pytest.raises(ValueError):
        compose(NEEDED, CANDIDATES, min_coverage=1.5)


def test_an_empty_selection_never_meets_coverage_even_at_min_coverage_zero():
    zero = compose(NEEDED, CANDIDATES, min_coverage=0.0)
    assert zero.sources == ("a",) and zero.coverage_met
    nothing = compose(NEEDED, [], min_coverage=0.0)
    assert nothing.sources == () and not nothing.coverage_met
    assert not compose({}, CANDIDATES, min_coverage=0.0).coverage_met

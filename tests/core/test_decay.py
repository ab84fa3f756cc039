"""Each decay model is exactly its closed form, and the score, zone and promotion rules hold."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.core import decay, timespan
from graphmem.core.decay import (
    DecayParams,
    PromotionCriteria,
    danger_priority,
    decay_factor,
    exponential,
    power_law,
    promotion_failures,
    ranking_factor,
    retention_score,
    two_component,
)
from graphmem.core.timespan import parse_duration_hours

AGES_HOURS = (0.0, 1.0, 12.0, 72.0, 240.0, 24.0 * 49, 24.0 * 365)


@pytest.mark.parametrize("age", AGES_HOURS)
@pytest.mark.parametrize(("half_life", "alpha"), [(72.0, 1.1), (24.0, 0.5), (500.0, 2.0)])
def test_power_law_is_its_closed_form(age, half_life, alpha):
    t0 = half_life / (2 ** (1 / alpha) - 1)
    assert float(power_law(age, half_life, alpha)) == pytest.approx((1 + age / t0) ** -alpha, rel=1e-12)


@pytest.mark.parametrize("age", AGES_HOURS)
@pytest.mark.parametrize("half_life", [72.0, 6.0, 1000.0])
def test_exponential_is_its_closed_form(age, half_life):
    expected = math.exp(-math.log(2) / half_life * age)
    assert float(exponential(age, half_life)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("age", AGES_HOURS)
@pytest.mark.parametrize(("fast", "slow", "weight"), [(12.0, 168.0, 0.7), (1.0, 24.0, 0.2)])
def test_two_component_is_its_closed_form(age, fast, slow, weight):
    fast_rate, slow_rate = math.log(2) / fast, math.log(2) / slow
    expected = weight * math.exp(-fast_rate * age) + (1 - weight) * math.exp(-slow_rate * age)
    assert float(two_component(age, fast, slow, weight)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("model", ["power_law", "exponential"])
def test_the_half_life_halves_retention(model):
    assert float(decay_factor(72.0, DecayParams(model=model))) == pytest.approx(0.5, rel=1e-12)


def test_the_configured_model_is_the_one_used_not_one_curve_for_all():
    month = 24.0 * 30
    values = {model: float(decay_factor(month, DecayParams(model=model))) for model in decay.DECAY_MODELS}
    assert values["power_law"] == pytest.approx(float(power_law(month, 72.0, 1.1)))
    assert values["exponential"] == pytest.approx(float(exponential(month, 72.0)))
    assert values["two_component"] == pytest.approx(float(two_component(month, 12.0, 168.0, 0.7)))
    assert len(set(values.values())) == 3


def test_an_unused_memory_is_forgotten_after_about_49_days_under_the_power_law_and_13_under_the_exponential():
    def days_to_forget(model: str) -> float:
        ages = np.arange(0, 24 * 100, 0.5)
        below = retention_score(0, ages, 1.0, DecayParams(model=model)) < 0.05
        return float(ages[np.argmax(below)]) / 24

    assert days_to_forget("power_law") == pytest.approx(48.6, abs=0.2)
    assert days_to_forget("exponential") == pytest.approx(12.97, abs=0.05)


def test_the_score_is_use_boost_times_decay_times_strength():
    params = DecayParams(beta=0.6)
    score = float(retention_score(4, 72.0, 1.5, params))
    assert score == pytest.approx(5 ** 0.6 * 0.5 * 1.5, rel=1e-12)
    assert float(retention_score(0, 0.0, 1.0, params)) == 1.0


def test_ages_in_the_future_count_as_now():
    assert float(power_law(-5.0, 72.0, 1.1)) == 1.0


def test_invalid_parameters_are_refused():
    with pytest.raises(ValueError, match="decay model"):
        DecayParams(model="linear")
    with pytest.raises(ValueError):
        DecayParams(half_life_hours=0)


@given(st.sampled_from(decay.DECAY_MODELS), st.floats(0, 1e5), st.floats(0, 1e5))
def test_retention_is_bounded_and_never_grows_with_age(model, age, extra):
    params = DecayParams(model=model)
    earlier, later = float(decay_factor(age, params)), float(decay_factor(age + extra, params))
    assert 0.0 <= later <= earlier <= 1.0


def test_danger_priority_peaks_in_the_middle_of_the_zone_and_is_zero_outside():
    scores = np.array([0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.5])
    priority = danger_priority(scores, 0.15, 0.35)
    assert priority[3] == 1.0
    assert priority[0] == priority[-1] == 0.0
    assert priority[1] == pytest.approx(0.0, abs=1e-12) and priority[5] == pytest.approx(0.0, abs=1e-12)
    assert priority[2] == pytest.approx(1 - ((0.2 - 0.25) / 0.10) ** 2) == pytest.approx(priority[4])


def test_the_ranking_factor_is_one_at_weight_zero_and_clips_scores_above_one():
    assert float(ranking_factor(0.01, 0.0)) == 1.0
    assert float(ranking_factor(3.0, 0.5)) == 1.0
    assert float(ranking_factor(0.2, 0.5)) == pytest.approx(0.6)


def test_a_fresh_memory_is_not_promoted_for_being_recent():
    failures = promotion_failures(1.0, 0, 0.0, 0.0, PromotionCriteria())
    assert any("used 0 times" in reason for reason in failures)


def test_one_burst_of_uses_in_a_session_is_not_enough_to_promote():
    failures = promotion_failures(2.9, 5, 0.1, 0.5, PromotionCriteria())
    assert len(failures) == 1 and "span" in failures[0]


def test_a_memory_used_repeatedly_over_days_and_recently_is_promoted():
    assert promotion_failures(2.9, 5, 1.0, 72.0, PromotionCriteria()) == ()
    stale = promotion_failures(2.9, 5, 24.0 * 20, 72.0, PromotionCriteria())
    assert any("days ago" in reason for reason in stale)


@pytest.mark.parametrize(("text", "hours"), [("90d", 2160.0), ("2w", 336.0), ("6m", 4320.0), ("12h", 12.0),
                                             ("1y", 8760.0), (" 1.5D ", 36.0)])
def test_durations_parse_with_their_units(text, hours):
    assert parse_duration_hours(text) == hours


@pytest.mark.parametrize("text", ["90", "d", "-3d", "0d", "3x", "", "90 days"])
def test_bad_durations_are_refused_with_the_accepted_forms(text):
    with pytest.raises(ValueError, match="90d, 2w, 6m, 12h"):
        parse_duration_hours(text)


@pytest.mark.parametrize("module", [decay, timespan])
def test_the_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0

"""Memory decay: a memory's retention score fades with time and grows with use.

The score is cortexgraph's (``seed-systems.md`` §4)::

    score = (use_count + 1)^β · D(Δt) · strength          Δt = time since last use

and ``D`` is one of three curves. Each function below *is* its closed form, and the dispatcher
:func:`decay_factor` really switches between them (cortexgraph silently used the exponential for
all three, so unused memories died after about 13 days instead of about 49):

* power law (default): ``D = (1 + Δt/t0)^(−α)`` with ``t0 = H / (2^(1/α) − 1)``, so ``D(H) = ½``.
  A heavy tail: what was once worth keeping fades slowly, as human forgetting does (Wixted 2004).
* exponential: ``D = e^(−λΔt)`` with ``λ = ln 2 / H``.
* two-component: ``D = w·e^(−λf Δt) + (1 − w)·e^(−λs Δt)``, a fast and a slow trace.

Everything here is pure numpy on arrays (or scalars), so ranking stays vectorized.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "DECAY_MODELS",
    "DecayParams",
    "PromotionCriteria",
    "danger_priority",
    "decay_factor",
    "exponential",
    "in_danger_zone",
    "power_law",
    "power_law_t0",
    "promotion_failures",
    "ranking_factor",
    "retention_score",
    "two_component",
]

DECAY_MODELS: tuple[str, ...] = ("power_law", "exponential", "two_component")
_LN2 = math.log(2.0)


@dataclass(frozen=True, slots=True)
class DecayParams:
    """The decay curve and score parameters (defaults: cortexgraph's, 3-day half-life).

    Times are hours. ``fast_weight`` is the share of the fast trace in the two-component model.
    """

    model: str = "power_law"
    beta: float = 0.6
    alpha: float = 1.1
    half_life_hours: float = 72.0
    fast_half_life_hours: float = 12.0
    slow_half_life_hours: float = 168.0
    fast_weight: float = 0.7

    def __post_init__(self) -> None:
        if self.model not in DECAY_MODELS:
            raise ValueError(f"decay model {self.model!r} is not one of {', '.join(DECAY_MODELS)}")
        positive = (self.alpha, self.half_life_hours, self.fast_half_life_hours, self.slow_half_life_hours)
        if min(positive) <= 0 or self.beta < 0 or not 0.0 <= self.fast_weight <= 1.0:
            raise ValueError("alpha and half-lives must be > 0, beta >= 0 and fast_weight in [0, 1]")


def power_law_t0(half_life_hours: float, alpha: float) -> float:
    """The power-law time scale that puts the half-life at ``H``: ``t0 = H / (2^(1/α) − 1)``.

    >>> round(power_law_t0(72.0, 1.1), 2)
    82.02
    """
    return half_life_hours / (float(2.0 ** (1.0 / alpha)) - 1.0)


def power_law(age_hours: Any, half_life_hours: float, alpha: float) -> Any:
    """``(1 + Δt/t0)^(−α)``.

    >>> round(float(power_law(72.0, 72.0, 1.1)), 6)
    0.5
    """
    age = np.maximum(np.asarray(age_hours, dtype=np.float64), 0.0)
    return np.power(1.0 + age / power_law_t0(half_life_hours, alpha), -alpha)


def exponential(age_hours: Any, half_life_hours: float) -> Any:
    """``e^(−λΔt)`` with ``λ = ln 2 / H``.

    >>> round(float(exponential(144.0, 72.0)), 6)
    0.25
    """
    age = np.maximum(np.asarray(age_hours, dtype=np.float64), 0.0)
    return np.exp(-(_LN2 / half_life_hours) * age)


def two_component(age_hours: Any, fast_half_life_hours: float, slow_half_life_hours: float,
                  fast_weight: float) -> Any:
    """``w·e^(−λf Δt) + (1 − w)·e^(−λs Δt)``.

    >>> round(float(two_component(0.0, 12.0, 168.0, 0.7)), 6)
    1.0
    """
    return (fast_weight * exponential(age_hours, fast_half_life_hours)
            + (1.0 - fast_weight) * exponential(age_hours, slow_half_life_hours))


def decay_factor(age_hours: Any, params: DecayParams) -> Any:
    """``D(Δt)`` of the configured model."""
    if params.model == "power_law":
        return power_law(age_hours, params.half_life_hours, params.alpha)
    if params.model == "exponential":
        return exponential(age_hours, params.half_life_hours)
    return two_component(age_hours, params.fast_half_life_hours, params.slow_half_life_hours,
                         params.fast_weight)


def retention_score(use_count: Any, age_hours: Any, strength: Any, params: DecayParams) -> Any:
    """``(use_count + 1)^β · D(Δt) · strength``; a fresh, unused memory of strength 1 scores 1.0.

    >>> round(float(retention_score(0, 0.0, 1.0, DecayParams())), 6)
    1.0
    """
    uses = np.maximum(np.asarray(use_count, dtype=np.float64), 0.0)
    return np.power(uses + 1.0, params.beta) * decay_factor(age_hours, params) * np.asarray(strength)


def ranking_factor(score: Any, weight: float) -> Any:
    """The multiplier decay puts on relevance: ``1 − w + w·clip(score, 0, 1)``.

    The score is clipped at 1 so that use only protects a memory from fading; it never lets a
    heavily used memory outrank a more relevant one. ``w = 0`` leaves ranking untouched.

    >>> float(ranking_factor(0.25, 0.4))
    0.7
    """
    return 1.0 - weight + weight * np.clip(np.asarray(score, dtype=np.float64), 0.0, 1.0)


def in_danger_zone(score: Any, low: float, high: float) -> Any:
    """Whether a score lies in the review "danger zone" ``[low, high]`` (fading, not yet forgotten)."""
    values = np.asarray(score, dtype=np.float64)
    return (values >= low) & (values <= high)


def danger_priority(score: Any, low: float, high: float) -> Any:
    """Review priority ``1 − ((score − c)/h)²`` inside the zone (c its centre, h its half-width), else 0.

    With the default zone 0.15–0.35 this is cortexgraph's ``1 − ((score − 0.25)/0.10)²``: highest in the
    middle of the zone, 0 at its edges.

    >>> float(danger_priority(0.25, 0.15, 0.35)), float(danger_priority(0.5, 0.15, 0.35))
    (1.0, 0.0)
    """
    values = np.asarray(score, dtype=np.float64)
    centre, half_width = (low + high) / 2.0, max((high - low) / 2.0, 1e-12)
    priority = 1.0 - ((values - centre) / half_width) ** 2
    return np.where(in_danger_zone(values, low, high), np.clip(priority, 0.0, 1.0), 0.0)


@dataclass(frozen=True, slots=True)
class PromotionCriteria:
    """When a memory has earned long-term storage. *All* conditions must hold.

    cortexgraph promoted at ``score ≥ 0.65`` *or* 5 uses in 14 days; since a fresh memory scores 1.0,
    everything used in the last ~2 days qualified. Here repeated use is required evidence:

    * ``use_count ≥ min_uses`` (a new memory has 0 uses, so it never qualifies by freshness);
    * the last use is within ``window_days`` (it is still in use);
    * the uses span at least ``min_span_hours`` from creation (not one burst in one session);
    * ``score ≥ min_score`` (with 5 uses this means used within about 10 days under the defaults).
    """

    min_score: float = 0.65
    min_uses: int = 5
    window_days: float = 14.0
    min_span_hours: float = 24.0


def promotion_failures(score: float, use_count: int, hours_since_use: float, use_span_hours: float,
                       criteria: PromotionCriteria) -> tuple[str, ...]:
    """The criteria a memory misses (empty when it qualifies), in words an agent can act on.

    >>> promotion_failures(1.0, 0, 0.0, 0.0, PromotionCriteria())[0]
    'used 0 times; needs at least 5'
    >>> promotion_failures(1.2, 6, 2.0, 72.0, PromotionCriteria())
    ()
    """
    failures = []
    if use_count < criteria.min_uses:
        times = "time" if use_count == 1 else "times"
        failures.append(f"used {use_count} {times}; needs at least {criteria.min_uses}")
    if hours_since_use > criteria.window_days * 24.0:
        failures.append(f"last used {hours_since_use / 24.0:.1f} days ago; "
                        f"window is {criteria.window_days:g} days")
    if use_span_hours < criteria.min_span_hours:
        failures.append(f"uses span {use_span_hours:.1f} h; needs {criteria.min_span_hours:g} h")
    if score < criteria.min_score:
        failures.append(f"score {score:.3f} is below {criteria.min_score:g}")
    return tuple(failures)

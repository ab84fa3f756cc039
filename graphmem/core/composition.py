"""Composition: the smallest set of memories that together cover what a task needs.

Weighted greedy set cover (Chvátal's greedy, ln(n)-approximate) over the needed concepts. Each
step takes the candidate with the largest *preference-weighted* gain: the weight of needed concepts
it newly covers, times a preference in (0.5, 1] from its activation, so among equal covers the
better-activated, currently valid memory wins. It stops as soon as ``min_coverage`` is met (the
smallest set that satisfies the caller), at full coverage, at ``max_sources``, or when no candidate
adds coverage; the result says which, and what is missing. An empty selection never meets coverage, not
even ``min_coverage`` 0: at least one source is taken when one adds coverage.

The needs themselves are the task's meaningful concepts (:func:`needs_of`): generic verbs that say what
should happen to a thing ("survive a browser restart", "handle retries") are not needs, and an unknown
phrase is one gap, not one per word and sub-phrase.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["GENERIC_VERBS", "Candidate", "Composition", "PlanStep", "compose", "needs_of"]


# Verbs that say what should happen to the thing a task names, not a thing a memory could supply: "survive a
# browser restart" needs memories about browser restarts, and a note that a file name "survives the download"
# covers nothing of it. (spaCy's stopwords already drop keep, make, get, do, go, take, give, use, want.)
GENERIC_VERBS = frozenset({
    "allow", "avoid", "become", "continue", "ensure", "handle", "happen", "help", "need", "prevent", "provide",
    "remain", "require", "stay", "support", "survive", "try", "work",
})


def needs_of(matched: Mapping[str, float], unmatched: Sequence[str]) -> dict[str, float]:
    """The needs of a task: its matched concepts (name → specificity weight) and its unmatched concepts.

    Generic verbs are dropped. Unmatched concepts are needs no memory can meet, each weighted like the most
    specific matched one (coverage is never overstated by dropping them), but an unknown phrase is one need:
    its words and sub-phrases, unmatched too, are folded into it.

    >>> needs_of({"retry": 2.0, "survive": 3.0}, ["quantum blockchain", "quantum", "blockchain"])
    {'retry': 2.0, 'quantum blockchain': 2.0}
    """
    needed = {name: weight for name, weight in matched.items() if name not in GENERIC_VERBS}
    gaps = [name for name in dict.fromkeys(unmatched) if name not in GENERIC_VERBS]
    # Every shorter contiguous run of words of every gap, built once: linear in the gaps (comparing each
    # gap with every other took 2.2 s for the 1,500 concepts of a 10,000-character query).
    inside = {run for name in gaps for run in _shorter_runs(tuple(name.split()))}
    weight = max(needed.values(), default=1.0)
    for name in gaps:
        if tuple(name.split()) not in inside:
            needed[name] = weight
    return needed


def _shorter_runs(words: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """The contiguous runs of ``words`` shorter than the whole."""
    for size in range(1, len(words)):
        for start in range(len(words) - size + 1):
            yield words[start : start + size]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory that could supply concepts: its id, activation score and the needed concepts it covers."""

    memory_id: str
    score: float
    covers: frozenset[str]


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One ordered step of the integration plan."""

    order: int
    memory_id: str
    supplies: tuple[str, ...]
    also_covers: tuple[str, ...]
    why: str


@dataclass(frozen=True, slots=True)
class Composition:
    """The chosen sources, what they cover, what they leave open and why they were chosen."""

    sources: tuple[str, ...]
    covered: tuple[str, ...]
    gaps: tuple[str, ...]
    coverage: float
    min_coverage: float
    coverage_met: bool
    stop_reason: str
    plan: tuple[PlanStep, ...] = field(default=())


def compose(
    needed: Mapping[str, float],
    candidates: Sequence[Candidate],
    *,
    min_coverage: float = 0.7,
    max_sources: int = 10,
) -> Composition:
    """Greedy weighted set cover of ``needed`` (concept → weight) by ``candidates``.

    Needed concepts that no candidate can cover (for example unmatched query concepts) stay in
    ``gaps`` and count against coverage: coverage is never overstated.

    Examples
    --------
    >>> needed = {"webhook": 1.0, "idempotency key": 1.0, "order": 1.0}
    >>> cands = [Candidate("a", 0.9, frozenset({"webhook", "idempotency key"})),
    ...          Candidate("b", 0.5, frozenset({"order"})),
    ...          Candidate("c", 0.8, frozenset({"webhook"}))]
    >>> compose(needed, cands, min_coverage=1.0).sources
    ('a', 'b')
    >>> compose(needed, cands, min_coverage=0.5).sources
    ('a',)
    """
    if not 0.0 <= min_coverage <= 1.0:
        raise ValueError("min_coverage must be in [0, 1]")
    total = sum(needed.values())
    top_score = max((c.score for c in candidates), default=0.0) or 1.0
    remaining = dict(needed)
    pool = list(candidates)
    chosen: list[PlanStep] = []
    covered_weight = 0.0
    stop_reason = "no candidate adds coverage"
    while pool:
        if chosen and covered_weight / total >= min_coverage - 1e-12:
            stop_reason = "full coverage" if not remaining else "min_coverage met"
            break
        if len(chosen) >= max_sources:
            stop_reason = "max_sources reached"
            break
        best, best_gain = _best_candidate(pool, remaining, top_score)
        if best is None:
            break
        pool.remove(best)
        supplies = tuple(sorted(best.covers & remaining.keys()))
        covered_weight += sum(remaining.pop(concept) for concept in supplies)
        chosen.append(_step(len(chosen) + 1, best, supplies, best_gain))
    else:
        if chosen and covered_weight / total >= min_coverage - 1e-12:
            stop_reason = "full coverage" if not remaining else "min_coverage met"
    coverage = covered_weight / total if total > 0 else 0.0
    return Composition(
        sources=tuple(step.memory_id for step in chosen),
        covered=tuple(c for c in needed if c not in remaining),
        gaps=tuple(remaining),
        coverage=coverage,
        min_coverage=min_coverage,
        coverage_met=bool(chosen) and coverage >= min_coverage - 1e-12,
        stop_reason=stop_reason,
        plan=tuple(chosen),
    )


def _best_candidate(pool: Sequence[Candidate], remaining: Mapping[str, float],
                    top_score: float) -> tuple[Candidate | None, float]:
    best: Candidate | None = None
    best_value = 0.0
    for candidate in pool:
        gain = sum(remaining.get(concept, 0.0) for concept in candidate.covers)
        # Preference in (0.5, 1]: activation breaks ties between equal covers but never lets a
        # well-activated memory that covers less beat one that covers more by a wide margin.
        value = gain * (0.5 + 0.5 * candidate.score / top_score)
        if value > best_value:
            best, best_value = candidate, value
    return best, best_value


def _step(order: int, candidate: Candidate, supplies: tuple[str, ...], value: float) -> PlanStep:
    also = tuple(sorted(candidate.covers - set(supplies)))
    why = (f"adds {len(supplies)} needed concept(s) not yet covered: {', '.join(supplies)}"
           f" (activation {candidate.score:.3f}, weighted gain {value:.3f})")
    return PlanStep(order=order, memory_id=candidate.memory_id, supplies=supplies, also_covers=also, why=why)

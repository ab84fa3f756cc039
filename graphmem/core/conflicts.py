"""Pure conflict detection between two memories that share specific concepts.

KiroGraph's scan queries full-text search with the first eight words of each observation, which
finds near-duplicates, not contradictions: "Always run migrations in a transaction" and "Never wrap
Alembic migration scripts in transactions" share almost no words. Here the caller brings pairs that
share at least one *specific* concept (through the concept graph), and this module decides whether
they disagree, and how:

- **polarity**: one side is for a shared concept, the other against it ("use X" / "don't use X",
  always / never, should / shouldn't, enable / disable, "Y instead of X");
- **topic_key**: two current memories claim the same topic key with different content;
- **value**: the same shared concept carries different numbers or versions ("limit is 100" / "500");
- **order**: one does something to a shared concept *before* a step, the other *after* it ("commit
  offsets before processing" / "commit offsets only after the file is written");
- **choice**: both choose something for the same subject, and the choices differ;
- **outcome**: one reports success and the other failure about the same things.

Every candidate has a score in (0, 1] and a reason that quotes the cue, so an agent can judge it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from graphmem.core.polarity import (
    CUE_WORDS,
    clause_bounds,
    find_cues,
    order_at,
    outcome_of,
    polarity_at,
    values_near,
)

__all__ = ["BASE_SCORE", "MAX_PAIRS", "MAX_SHARED", "ClaimText", "ConflictCandidate", "detect_conflict", "pair_key",
           "rank_conflicts", "strongest_pairs"]

# Bounds on one comparison and on one call. Two maximal memories (50,000 characters, about 6,000 concepts)
# share thousands of concepts, and every signal looked at every one of them; the evidence factor below is
# already 0.99 at 5 shared concepts, so the 24 most specific say all there is to say.
MAX_SHARED = 24
# Pairs compared per composition call, those sharing the most specificity first: the call takes at most
# 200 comparisons of bounded claims (graphmem/service/relations/claims.py), whatever the store holds.
MAX_PAIRS = 200

# How much each signal alone says "these two disagree": an explicit for/against on one shared concept
# is the strongest; a shared topic key with different text nearly so; outcome words are the weakest
# (an error report and its later fix also differ in outcome).
BASE_SCORE = {"polarity": 0.9, "topic_key": 0.85, "order": 0.8, "value": 0.65, "choice": 0.55, "outcome": 0.5}
_EVIDENCE_DECAY = 0.4  # score factor 1 - 0.4^n for n shared specific concepts: 0.6, 0.84, 0.94, ...
_WEAK_CUE_FACTOR = 0.75  # "always" against "uses" is less sure than "always" against "never"
# Error reports and session summaries describe what happened, not what to do: a "not" or an "always"
# in them is rarely a stance another memory can contradict.
_NARRATIVE_KINDS = frozenset({"error", "summary"})
_NARRATIVE_FACTOR = 0.6
_CHOICE_KINDS = frozenset({"entity", "identifier"})
# A value belongs to a named thing ("ef_search", "rate limit", "React Native"), not to a generic word:
# "port 6432" and "port 5432", "HTTP 422" and "HTTP 200" were most of the false value candidates on the
# sample corpus (two endpoints, two error cases), and no labelled conflict hangs on a single term.
_GENERIC_KINDS = frozenset({"term"})


@dataclass(frozen=True, slots=True)
class ClaimText:
    """One memory as conflict detection sees it.

    ``concepts`` maps each concept key to the character offset of its first occurrence in ``text``;
    ``kinds`` maps concept keys to their kind (entity, identifier, phrase, term, part).
    """

    id: str
    text: str
    created_ms: int
    concepts: Mapping[str, int] = field(default_factory=dict)
    kinds: Mapping[str, str] = field(default_factory=dict)
    topic_key: str | None = None
    kind: str = "note"


@dataclass(frozen=True, slots=True)
class ConflictCandidate:
    """A scored pair (``a_id < b_id``) that may contradict, with the strongest signal and a reason."""

    a_id: str
    b_id: str
    score: float
    kind: str
    reason: str
    shared: tuple[str, ...]
    newer_id: str
    signals: tuple[str, ...] = ()


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The unordered pair as a sorted tuple (the identity of a candidate)."""
    return (a, b) if a <= b else (b, a)


def detect_conflict(a: ClaimText, b: ClaimText, specificity: Mapping[str, float]) -> ConflictCandidate | None:
    """Compare two memories; ``specificity`` holds the concepts specific enough to count (key → weight).

    >>> spec = {"postgresql": 2.0, "session": 1.5}
    >>> a = ClaimText("m1", "Always use PostgreSQL for sessions", 1, {"postgresql": 11, "session": 26})
    >>> b = ClaimText("m2", "Never keep sessions in PostgreSQL", 2, {"session": 11, "postgresql": 23})
    >>> found = detect_conflict(a, b, spec)
    >>> found.kind, found.newer_id, round(found.score, 3)
    ('polarity', 'm2', 0.756)
    """
    if a.id == b.id or _normal(a.text) == _normal(b.text):
        return None
    shared = sorted((key for key in a.concepts.keys() & b.concepts.keys()
                     if key in specificity and key not in CUE_WORDS),
                    key=lambda key: (-specificity[key], -len(key.split()), key))[:MAX_SHARED]
    found: list[tuple[float, str, str]] = []
    if a.topic_key and a.topic_key == b.topic_key:
        found.append((BASE_SCORE["topic_key"], "topic_key", f"both claim topic key {a.topic_key!r}"))
    if shared:
        found += _signals(a, b, shared)
    if not found:
        return None
    score, kind, reason = max(found, key=lambda item: item[0])
    evidence = 1 - _EVIDENCE_DECAY ** max(len(shared), 1)
    if kind != "topic_key" and (a.kind in _NARRATIVE_KINDS or b.kind in _NARRATIVE_KINDS):
        evidence *= _NARRATIVE_FACTOR
    first, second = pair_key(a.id, b.id)
    newer = a.id if (a.created_ms, a.id) > (b.created_ms, b.id) else b.id
    return ConflictCandidate(first, second, round(score * evidence, 4), kind, reason, tuple(shared), newer,
                             tuple(dict.fromkeys(k for _, k, _ in sorted(found, reverse=True))))


def _signals(a: ClaimText, b: ClaimText, shared: list[str]) -> list[tuple[float, str, str]]:
    found = []
    for detector in (_polarity, _value, _order, _choice, _outcome):
        signal = detector(a, b, shared)
        if signal is not None:
            found.append(signal)
    return found


def _same_subject(a: ClaimText, b: ClaimText, key: str, shared: list[str]) -> bool:
    """Whether the clauses around ``key`` in both texts share another specific concept too: one common
    word ("http", "checkout") in otherwise unrelated sentences is not one subject."""
    def around(side: ClaimText) -> set[str]:
        start, end = clause_bounds(side.text, side.concepts[key])
        return {other for other in shared if start <= side.concepts[other] < end}
    return len(around(a) & around(b)) >= 2


def _polarity(a: ClaimText, b: ClaimText, shared: list[str]) -> tuple[float, str, str] | None:
    cues_a, cues_b = find_cues(a.text, a.concepts.values()), find_cues(b.text, b.concepts.values())
    for key in (key for key in shared if _same_subject(a, b, key, shared)):
        sign_a, cue_a = polarity_at(a.text, a.concepts[key], cues_a)
        sign_b, cue_b = polarity_at(b.text, b.concepts[key], cues_b)
        if sign_a * sign_b == -1 and cue_a and cue_b and (cue_a.strong or cue_b.strong):
            factor = 1.0 if cue_a.strong and cue_b.strong else _WEAK_CUE_FACTOR
            return (BASE_SCORE["polarity"] * factor, "polarity",
                    f"{a.id} says {cue_a.text!r} about {key!r} where {b.id} says {cue_b.text!r}")
    return None


def _value(a: ClaimText, b: ClaimText, shared: list[str]) -> tuple[float, str, str] | None:
    if len(shared) < 2:  # a number next to one common word is coincidence more often than a disagreement
        return None
    subjects = [key for key in shared if a.kinds.get(key) not in _GENERIC_KINDS]
    for key in (key for key in subjects if _same_subject(a, b, key, shared)):
        words = len(key.split())
        values_a = values_near(a.text, a.concepts[key], words)
        values_b = values_near(b.text, b.concepts[key], words)
        if values_a and values_b and not values_a & values_b and _comparable(values_a, values_b):
            return (BASE_SCORE["value"], "value",
                    f"{key!r} is {', '.join(sorted(values_a))} in {a.id} but {', '.join(sorted(values_b))} "
                    f"in {b.id}")
    return None


def _comparable(values_a: frozenset[str], values_b: frozenset[str]) -> bool:
    """Whether the two sides give values of one shape (a version against a version, 30s against 60s)."""
    return bool({_shape(v) for v in values_a} & {_shape(v) for v in values_b})


def _shape(value: str) -> tuple[int, str]:
    number = value.rstrip("%abcdefghijklmnopqrstuvwxyz")
    return number.count("."), value[len(number):]


def _order(a: ClaimText, b: ClaimText, shared: list[str]) -> tuple[float, str, str] | None:
    for key in (key for key in shared if _same_subject(a, b, key, shared)):
        sign_a, word_a = order_at(a.text, a.concepts[key])
        sign_b, word_b = order_at(b.text, b.concepts[key])
        if sign_a * sign_b == -1:
            return (BASE_SCORE["order"], "order",
                    f"{a.id} does {key!r} {word_a!r} where {b.id} does it {word_b!r}")
    return None


def _choice(a: ClaimText, b: ClaimText, shared: list[str]) -> tuple[float, str, str] | None:
    subjects = [key for key in shared if a.kinds.get(key) not in _CHOICE_KINDS]
    if len(subjects) < 2:  # one shared word is too little to call two choices rivals
        return None
    chosen_a, chosen_b = _chosen(a, b), _chosen(b, a)
    if chosen_a and chosen_b:
        return (BASE_SCORE["choice"], "choice",
                f"for {subjects[0]!r}, {a.id} chooses {chosen_a[0]!r} and {b.id} chooses {chosen_b[0]!r}")
    return None


def _chosen(side: ClaimText, other: ClaimText) -> list[str]:
    """Entities or identifiers ``side`` is for (positive clause) that ``other`` never mentions."""
    cues = find_cues(side.text, side.concepts.values())
    return sorted(key for key, offset in side.concepts.items()
                  if side.kinds.get(key) in _CHOICE_KINDS and key not in other.concepts
                  and polarity_at(side.text, offset, cues)[0] == 1)


def _outcome(a: ClaimText, b: ClaimText, shared: list[str]) -> tuple[float, str, str] | None:
    if len(shared) < 2:
        return None
    (sign_a, word_a), (sign_b, word_b) = outcome_of(a.text), outcome_of(b.text)
    if sign_a * sign_b == -1:
        return (BASE_SCORE["outcome"], "outcome",
                f"{a.id} reports {word_a!r} and {b.id} reports {word_b!r} about {', '.join(shared[:3])}")
    return None


def strongest_pairs(pairs: Iterable[tuple[str, str]], shared: Mapping[str, frozenset[str]],
                    specificity: Mapping[str, float], limit: int = MAX_PAIRS) -> list[tuple[str, str]]:
    """The ``limit`` pairs whose shared concepts weigh most (sum of specificity), in that order.

    >>> strongest_pairs([("a", "b"), ("a", "c")], {"a": frozenset({"x", "y"}), "b": frozenset({"x"}),
    ...                 "c": frozenset({"x", "y"})}, {"x": 1.0, "y": 2.0}, limit=1)
    [('a', 'c')]
    """
    def weight(pair: tuple[str, str]) -> float:
        return sum(specificity.get(key, 0.0) for key in shared[pair[0]] & shared[pair[1]])
    weighed = [(weight(pair), index, pair) for index, pair in enumerate(pairs)]
    return [pair for _, _, pair in sorted(weighed, key=lambda item: (-item[0], item[1]))[:limit]]


def rank_conflicts(candidates: Iterable[ConflictCandidate], settled: Iterable[tuple[str, str]] = (),
                   limit: int | None = None) -> list[ConflictCandidate]:
    """Best candidates first, one per pair, without the ``settled`` pairs (already related, judged or
    ignored: never re-proposed).

    >>> c = ConflictCandidate("a", "b", 0.5, "value", "r", ("x",), "b")
    >>> rank_conflicts([c], settled=[("b", "a")])
    []
    """
    excluded = {pair_key(*pair) for pair in settled}
    best: dict[tuple[str, str], ConflictCandidate] = {}
    for candidate in candidates:
        key = (candidate.a_id, candidate.b_id)
        if key not in excluded and (key not in best or candidate.score > best[key].score):
            best[key] = candidate
    ordered = sorted(best.values(), key=lambda c: (-c.score, c.a_id, c.b_id))
    return ordered if limit is None else ordered[:limit]


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())

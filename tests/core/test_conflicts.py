"""Conflict detection finds disagreements (polarity, value, choice, outcome, topic key), not paraphrases."""

from __future__ import annotations

import pytest

from graphmem.core.conflicts import ClaimText, ConflictCandidate, detect_conflict, pair_key, rank_conflicts


def claim(memory_id: str, text: str, *concepts: str, created: int = 0, topic_key: str | None = None,
          kinds: dict[str, str] | None = None) -> ClaimText:
    """A claim whose concepts are found in the text by their (lower-case) surface form."""
    lowered = text.casefold()
    offsets = {}
    for concept in concepts:
        surface, _, key = concept.partition("=")
        position = lowered.find(surface)
        assert position >= 0, f"{surface!r} not in {text!r}"
        offsets[key or surface] = position
    return ClaimText(memory_id, text, created, offsets, kinds or {}, topic_key)


def specific(*keys: str) -> dict[str, float]:
    return dict.fromkeys(keys, 2.0)


@pytest.mark.parametrize(("first", "second", "concept"), [
    ("Always run migrations in a transaction", "Never run migrations in a transaction", "migrations"),
    ("Use the retry queue for webhooks", "Don't use the retry queue for webhooks", "retry queue"),
    ("You should pin the node version in CI", "You shouldn't pin the node version in CI", "node version"),
    ("Enable the retry queue on webhook handlers", "Disable the retry queue on webhook handlers",
     "retry queue"),
    ("Use Postgres for sessions", "Use Redis instead of Postgres for sessions", "postgres"),
])
def test_opposite_polarity_about_a_shared_concept_is_a_conflict(first, second, concept):
    found = detect_conflict(claim("a", first, concept, created=1), claim("b", second, concept, created=2),
                            specific(concept))
    assert found is not None and found.kind == "polarity"
    assert found.newer_id == "b" and concept in found.reason


def test_double_negation_is_positive_and_punctuation_keeps_cues_apart():
    tls = "tls verification"
    always = claim("a", "Always keep TLS verification on", tls)
    never_disable = claim("b", "Never disable TLS verification", tls)
    assert detect_conflict(always, never_disable, specific(tls)) is None
    postgres = claim("c", "Use Postgres, not MySQL, for sessions", "postgres")
    avoid = claim("d", "Avoid Postgres for sessions", "postgres")
    assert detect_conflict(postgres, avoid, specific("postgres")).kind == "polarity"


def test_same_stance_in_other_words_is_no_conflict():
    a = claim("a", "Always run migrations in a transaction", "migrations", "transaction")
    b = claim("b", "Migrations must run inside one transaction", "migrations", "transaction")
    assert detect_conflict(a, b, specific("migrations", "transaction")) is None


def test_a_concept_that_is_not_specific_cannot_make_a_conflict():
    a = claim("a", "Always use the project linter", "project")
    b = claim("b", "Never use the project linter", "project")
    assert detect_conflict(a, b, {}) is None
    assert detect_conflict(a, b, specific("project")) is not None


def test_cue_words_are_never_the_shared_subject():
    a = claim("a", "Always enable it", "enable")
    b = claim("b", "Never enable it", "enable")
    assert detect_conflict(a, b, specific("enable")) is None


def test_different_values_for_the_same_concept_are_a_value_conflict():
    a = claim("a", "The API rate limit is 100 requests per minute", "rate limit")
    b = claim("b", "Our rate limit was raised to 500 requests per minute", "rate limit")
    found = detect_conflict(a, b, specific("rate limit"))
    assert found.kind == "value" and "100" in found.reason and "500" in found.reason
    same = claim("c", "The rate limit is 100 requests per minute for partners", "rate limit")
    assert detect_conflict(a, same, specific("rate limit")) is None


def test_dates_are_not_values():
    a = claim("a", "On 2026-01-05 the deploy job moved to the new runner", "deploy job")
    b = claim("b", "On 2026-02-07 the deploy job moved to the new runner pool", "deploy job")
    assert detect_conflict(a, b, specific("deploy job")) is None


def test_different_choices_for_one_subject_are_a_choice_conflict():
    kinds = {"redis": "entity", "memcached": "entity"}
    a = claim("a", "Use Redis for session storage", "redis", "session storage", "session", kinds=kinds)
    b = claim("b", "Use Memcached for session storage", "memcached", "session storage", "session",
              kinds=kinds)
    found = detect_conflict(a, b, specific("session storage", "session"))
    assert found.kind == "choice" and "redis" in found.reason and "memcached" in found.reason


def test_success_against_failure_needs_two_shared_concepts():
    a = claim("a", "Deploying the billing worker to kubernetes succeeded", "billing worker", "kubernetes")
    b = claim("b", "Deploying the billing worker to kubernetes failed twice", "billing worker", "kubernetes")
    assert detect_conflict(a, b, specific("billing worker", "kubernetes")).kind == "outcome"
    assert detect_conflict(a, b, specific("kubernetes")) is None


def test_a_shared_topic_key_with_different_content_is_a_conflict_without_shared_concepts():
    a = claim("a", "Sessions live in signed cookies", topic_key="architecture/sessions")
    b = claim("b", "Sessions live in Redis", topic_key="architecture/sessions")
    found = detect_conflict(a, b, {})
    assert found.kind == "topic_key" and "architecture/sessions" in found.reason


def test_identical_text_is_a_duplicate_not_a_conflict():
    a = claim("a", "Never run migrations in a transaction", "migrations")
    assert detect_conflict(a, claim("b", "never run  migrations in a transaction", "migrations"),
                           specific("migrations")) is None


def test_more_shared_specific_concepts_score_higher():
    one = detect_conflict(claim("a", "Always use Celery", "celery"), claim("b", "Never use Celery", "celery"),
                          specific("celery"))
    two = detect_conflict(claim("a", "Always use Celery beat", "celery", "celery beat"),
                          claim("b", "Never use Celery beat", "celery", "celery beat"),
                          specific("celery", "celery beat"))
    assert 0 < one.score < two.score <= 1


def test_ranking_drops_settled_pairs_keeps_the_best_per_pair_and_orders_by_score():
    weak = ConflictCandidate("a", "b", 0.4, "outcome", "r", ("x",), "b")
    strong = ConflictCandidate("a", "b", 0.8, "polarity", "r", ("x",), "b")
    other = ConflictCandidate("c", "d", 0.6, "value", "r", ("y",), "d")
    settled = ConflictCandidate("e", "f", 0.9, "value", "r", ("z",), "f")
    ranked = rank_conflicts([weak, other, strong, settled], settled=[("f", "e")])
    assert ranked == [strong, other]
    assert rank_conflicts([weak, other, strong], limit=1) == [strong]
    assert pair_key("b", "a") == ("a", "b")

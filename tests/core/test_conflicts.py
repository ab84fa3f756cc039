"""Conflict detection finds disagreements (polarity, order, value, choice, outcome, topic key), not
paraphrases, and not two sentences that merely share a word."""

from __future__ import annotations

import pytest

from graphmem.core.conflicts import ClaimText, ConflictCandidate, detect_conflict, pair_key, rank_conflicts


def claim(memory_id: str, text: str, *concepts: str, created: int = 0, topic_key: str | None = None,
          kinds: dict[str, str] | None = None, kind: str = "note") -> ClaimText:
    """A claim whose concepts are found in the text by their (lower-case) surface form."""
    lowered = text.casefold()
    offsets = {}
    for concept in concepts:
        position = lowered.find(concept)
        assert position >= 0, f"{concept!r} not in {text!r}"
        offsets[concept] = position
    return ClaimText(memory_id, text, created, offsets, kinds or {}, topic_key, kind)


def specific(*keys: str) -> dict[str, float]:
    return dict.fromkeys(keys, 2.0)


@pytest.mark.parametrize(("first", "second", "concepts"), [
    ("Always run migrations in a transaction", "Never run migrations in a transaction",
     ("migrations", "transaction")),
    ("Use the retry queue for webhooks", "Don't use the retry queue for webhooks",
     ("retry queue", "webhooks")),
    ("You should pin the node version in CI", "You shouldn't pin the node version in CI",
     ("node version", "ci")),
    ("Enable the retry queue on webhook handlers", "Disable the retry queue on webhook handlers",
     ("retry queue", "webhook handlers")),
    ("Use Postgres for sessions", "Use Redis instead of Postgres for sessions", ("postgres", "sessions")),
])
def test_opposite_polarity_about_a_shared_subject_is_a_conflict(first, second, concepts):
    found = detect_conflict(claim("a", first, *concepts, created=1), claim("b", second, *concepts, created=2),
                            specific(*concepts))
    assert found is not None and found.kind == "polarity"
    assert found.newer_id == "b" and concepts[0] in found.reason


def test_double_negation_is_positive_and_punctuation_keeps_cues_apart():
    tls = ("tls verification", "staging")
    always = claim("a", "Always keep TLS verification on in staging", *tls)
    never_disable = claim("b", "Never disable TLS verification in staging", *tls)
    assert detect_conflict(always, never_disable, specific(*tls)) is None
    sessions = ("postgres", "sessions")
    postgres = claim("c", "Use Postgres, not MySQL, for sessions", *sessions)
    avoid = claim("d", "Avoid Postgres for sessions", *sessions)
    assert detect_conflict(postgres, avoid, specific(*sessions)).kind == "polarity"


def test_weak_cues_on_both_sides_or_cues_in_code_are_no_stance():
    concepts = ("worker", "queue")
    uses = claim("a", "The worker uses the queue", *concepts)
    cannot = claim("b", "The worker cannot reach the queue", *concepts)
    assert detect_conflict(uses, cannot, specific(*concepts)) is None
    never = claim("c", "Never let the worker read the queue", *concepts)
    assert detect_conflict(uses, never, specific(*concepts)).kind == "polarity"
    quoted = claim("d", "The worker logs `never read the queue`", *concepts)
    assert detect_conflict(uses, quoted, specific(*concepts)) is None


def test_one_common_word_in_unrelated_clauses_is_not_one_subject():
    a = claim("a", "Always cache API responses for checkout", "checkout", "cache")
    b = claim("b", "The fraud client opens a breaker; never retry payments for checkout", "checkout", "fraud")
    assert detect_conflict(a, b, specific("checkout", "cache", "fraud")) is None


def test_before_against_after_the_same_step_is_an_order_conflict():
    concepts = ("offsets", "batch")
    a = claim("a", "Commit offsets before processing each batch", *concepts)
    b = claim("b", "Commit offsets only after the batch is written to S3", *concepts)
    found = detect_conflict(a, b, specific(*concepts))
    assert found.kind == "order" and "'before'" in found.reason and "'after'" in found.reason


def test_same_stance_in_other_words_is_no_conflict():
    a = claim("a", "Always run migrations in a transaction", "migrations", "transaction")
    b = claim("b", "Migrations must run inside one transaction", "migrations", "transaction")
    assert detect_conflict(a, b, specific("migrations", "transaction")) is None


def test_a_concept_that_is_not_specific_cannot_make_a_conflict():
    a = claim("a", "Always use the project linter", "project", "linter")
    b = claim("b", "Never use the project linter", "project", "linter")
    assert detect_conflict(a, b, specific("linter")) is None
    assert detect_conflict(a, b, specific("project", "linter")) is not None


def test_cue_words_are_never_the_shared_subject():
    a = claim("a", "Always enable it in prod", "enable", "prod")
    b = claim("b", "Never enable it in prod", "enable", "prod")
    assert detect_conflict(a, b, specific("enable", "prod")) is None


def test_different_values_for_the_same_concept_are_a_value_conflict():
    concepts = ("rate limit", "requests")
    a = claim("a", "The API rate limit is 100 requests per minute", *concepts)
    b = claim("b", "Our rate limit was raised to 500 requests per minute", *concepts)
    found = detect_conflict(a, b, specific(*concepts))
    assert found.kind == "value" and "100" in found.reason and "500" in found.reason
    same = claim("c", "The rate limit is 100 requests per minute for partners", *concepts)
    assert detect_conflict(a, same, specific(*concepts)) is None
    version = claim("d", "The rate limit module now needs requests 2.31", *concepts)
    assert detect_conflict(a, version, specific(*concepts)) is None  # a version is not a count


def test_dates_are_not_values():
    concepts = ("deploy job", "runner")
    a = claim("a", "On 2026-01-05 the deploy job moved to the new runner", *concepts)
    b = claim("b", "On 2026-02-07 the deploy job moved to the new runner pool", *concepts)
    assert detect_conflict(a, b, specific(*concepts)) is None


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
    a = claim("a", "Never run migrations in a transaction", "migrations", "transaction")
    b = claim("b", "never run  migrations in a transaction", "migrations", "transaction")
    assert detect_conflict(a, b, specific("migrations", "transaction")) is None


def test_more_shared_specific_concepts_score_higher_and_narrative_kinds_lower():
    keys = ("celery", "beat", "cron")
    two = detect_conflict(claim("a", "Always use Celery beat", *keys[:2]),
                          claim("b", "Never use Celery beat", *keys[:2]), specific(*keys))
    three = detect_conflict(claim("a", "Always use Celery beat for cron", *keys),
                            claim("b", "Never use Celery beat for cron", *keys), specific(*keys))
    assert 0 < two.score < three.score <= 1
    error = claim("b", "Never use Celery beat", *keys[:2], kind="error")
    narrative = detect_conflict(claim("a", "Always use Celery beat", *keys[:2]), error, specific(*keys))
    assert narrative.score < two.score


def test_ranking_drops_settled_pairs_keeps_the_best_per_pair_and_orders_by_score():
    weak = ConflictCandidate("a", "b", 0.4, "outcome", "r", ("x",), "b")
    strong = ConflictCandidate("a", "b", 0.8, "polarity", "r", ("x",), "b")
    other = ConflictCandidate("c", "d", 0.6, "value", "r", ("y",), "d")
    settled = ConflictCandidate("e", "f", 0.9, "value", "r", ("z",), "f")
    ranked = rank_conflicts([weak, other, strong, settled], settled=[("f", "e")])
    assert ranked == [strong, other]
    assert rank_conflicts([weak, other, strong], limit=1) == [strong]
    assert pair_key("b", "a") == ("a", "b")


def test_a_value_next_to_a_generic_word_is_not_a_value_conflict():
    concepts = ("database_url", "port", "pgbouncer", "postgres")
    kinds = {"port": "term", "pgbouncer": "entity", "database_url": "identifier", "postgres": "entity"}
    texts = ("`DATABASE_URL` for payments-api points at PgBouncer on port 6432, not at Postgres directly",
             "`DATABASE_URL` for migration Jobs uses the direct Postgres endpoint (port 5432) because "
             "PgBouncer in transaction mode breaks advisory locks")
    a, b = (claim(name, text, *concepts, kinds=kinds) for name, text in zip("ab", texts, strict=True))
    assert detect_conflict(a, b, specific(*concepts)) is None  # two endpoints, each with its own port
    named = {**kinds, "port": "phrase"}
    a, b = (claim(name, text, *concepts, kinds=named) for name, text in zip("ab", texts, strict=True))
    assert detect_conflict(a, b, specific(*concepts)).kind == "value"

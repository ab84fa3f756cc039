"""Polarity cues, outcomes and values read from text by character offset."""

from __future__ import annotations

from graphmem.core.polarity import find_cues, outcome_of, polarity_at, values_near


def sign_of(text: str, word: str) -> int:
    offset = text.casefold().index(word)
    return polarity_at(text, offset, find_cues(text, [offset]))[0]


def test_the_nearest_cue_before_a_concept_decides_and_clauses_reset_it():
    text = "Don't use Postgres, use Redis. Celery is fine"
    assert (sign_of(text, "postgres"), sign_of(text, "redis"), sign_of(text, "celery")) == (-1, 1, 0)


def test_a_cue_right_after_the_concept_counts_when_none_precedes():
    assert sign_of("Postgres is not supported here", "postgres") == -1
    assert sign_of("Postgres is fast, and we do not tune it", "postgres") == 0


def test_but_starts_a_new_clause():
    assert sign_of("Never use the ORM for reports but use raw SQL", "raw sql") == 1


def test_outcome_words_and_negated_success():
    assert outcome_of("It doesn't work on arm64")[0] == -1
    assert outcome_of("The fix works and the test passed")[0] == 1
    assert outcome_of("It failed, then it worked")[0] == 0


def test_values_belong_to_the_concept_near_them_with_units():
    text = "Set the timeout to 30s; the retry count is 5"
    assert values_near(text, text.index("timeout")) == {"30s"}
    assert values_near(text, text.index("retry")) == {"5"}
    assert values_near("Upgrade node to v20.11.1", 8) == {"20.11.1"}

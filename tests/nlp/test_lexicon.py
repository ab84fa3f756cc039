"""Lemmas and stopwords: keys are lemma-based and free of filler words."""

from __future__ import annotations

import pytest

from nlp import ConceptExtractor
from nlp.lexicon import get_lexicon


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("webhooks", "webhook"),  # absent from the table: plural rule
        ("retries", "retry"),
        ("retried", "retry"),
        ("caching", "cache"),
        ("sessions", "session"),
        ("microservices", "microservice"),
        ("configs", "config"),
        ("prefixes", "prefix"),
        ("apis", "api"),
        ("sharding", "shard"),  # "-ing" rule, accepted because "shard" is a known word
        ("mapped", "map"),
    ],
)
def test_inflected_words_are_lemmatized(word: str, lemma: str) -> None:
    assert get_lexicon().lemma(word) == lemma


@pytest.mark.parametrize(
    "word", ["data", "pandas", "postgres", "kubernetes", "redis", "status", "analytics", "tokenizing", "bing"]
)
def test_lemma_rules_leave_names_and_unknown_verb_forms_alone(word: str) -> None:
    assert get_lexicon().lemma(word) == word


def test_keys_are_lemmas_even_at_a_sentence_start(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("Webhooks retried. Caching sessions helps.").keys()
    # "retried" is a verb form: it may modify a phrase but is no concept on its own (issue 9).
    assert {"webhook", "cache", "session"} <= set(keys)
    assert not {"webhooks", "retried", "caching", "sessions"} & set(keys)


def test_stopwords_numbers_and_single_letters_are_not_concepts(extractor: ConceptExtractor) -> None:
    text = "We also use the thing and it is 42 times x better than 7 of them."
    keys = set(extractor.parse(text).keys())
    assert not keys & {"we", "also", "use", "the", "thing", "and", "it", "is", "42", "7", "x", "of", "them"}
    assert "better" in keys


def test_a_number_survives_only_inside_an_identifier(extractor: ConceptExtractor) -> None:
    by_key = {mention.key: mention for mention in extractor.parse("Got HTTP 429 after 429 retries.").mentions}
    assert by_key["http 429"].kind == "identifier"
    assert by_key["429"].kind == "part"
    assert by_key["429"].count == 1  # the bare "429" is not counted


def test_pure_adverbs_are_stopwords(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("Redis usually responds quickly.").keys()
    assert "usually" not in keys
    assert "quickly" not in keys

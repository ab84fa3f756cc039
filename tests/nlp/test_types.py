"""ParsedObservation: keys and co-occurring pairs."""

from __future__ import annotations

import pytest

from nlp import ConceptExtractor, ConceptMention, ParsedObservation


def test_pairs_are_ordered_unique_and_bounded(extractor: ConceptExtractor) -> None:
    parsed = extractor.parse(
        "Redis caches sessions. The session cache in Redis expires. Stripe retries webhooks."
    )
    for window in ("sentence", "document"):
        pairs = parsed.cooccurring_pairs(window)
        assert pairs == sorted(pairs)
        assert all(key_a < key_b for key_a, key_b, _ in pairs)
        assert len({(key_a, key_b) for key_a, key_b, _ in pairs}) == len(pairs)
        assert all(0.0 < weight <= 1.0 for _, _, weight in pairs)


def test_sentence_pairs_are_a_subset_of_document_pairs(extractor: ConceptExtractor) -> None:
    parsed = extractor.parse("Redis caches sessions. Stripe retries webhooks.")
    sentence = {(a, b) for a, b, _ in parsed.cooccurring_pairs("sentence")}
    document = {(a, b) for a, b, _ in parsed.cooccurring_pairs("document")}
    assert sentence < document
    assert ("redis", "stripe") in document - sentence


def test_a_concept_is_not_paired_with_its_own_parts(extractor: ConceptExtractor) -> None:
    parsed = extractor.parse("Run npm run build:worker after the webhook handler in New York City changes.")
    pairs = {(a, b) for a, b, _ in parsed.cooccurring_pairs("document")}
    for contained, container in [
        ("webhook", "webhook handler"),
        ("worker", "npm run build:worker"),
        ("build:worker", "npm run build:worker"),
        ("new york", "new york city"),
    ]:
        assert tuple(sorted((contained, container))) not in pairs
    assert ("handler", "webhook") in pairs  # two parts of one phrase do co-occur


def test_more_shared_sentences_mean_a_stronger_pair(extractor: ConceptExtractor) -> None:
    once = extractor.parse("Redis caches sessions.").cooccurring_pairs()
    twice = extractor.parse("Redis caches sessions. Redis still caches sessions.").cooccurring_pairs()
    weight_once = dict(((a, b), w) for a, b, w in once)[("redis", "session")]
    weight_twice = dict(((a, b), w) for a, b, w in twice)[("redis", "session")]
    assert weight_once < weight_twice <= 1.0


def test_hand_built_observations_pair_by_first_sentence() -> None:
    cache = ConceptMention("cache", "cache", "term", 0.64, 0, 5, 0, 1)
    redis = ConceptMention("redis", "Redis", "entity", 1.0, 9, 14, 0, 1)
    queue = ConceptMention("queue", "queue", "term", 0.5, 20, 25, 1, 1)
    parsed = ParsedObservation("cache in Redis. queue", (cache, redis, queue), 2)
    assert parsed.keys() == ("cache", "redis", "queue")
    assert parsed.cooccurring_pairs() == [("cache", "redis", 0.8)]


def test_an_unknown_window_is_refused() -> None:
    with pytest.raises(ValueError, match="window"):
        ParsedObservation("", (), 0).cooccurring_pairs("paragraph")  # type: ignore[arg-type]

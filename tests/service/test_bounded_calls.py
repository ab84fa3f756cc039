"""Calls stay bounded whatever the store holds: claims parsed once and cut, pairs and concepts capped."""

from __future__ import annotations

import random
import time

import pytest

from graphmem.core.conflicts import MAX_SHARED, ClaimText, detect_conflict, strongest_pairs
from graphmem.service.relations import claims as claims_module
from graphmem.service.relations.claims import CLAIM_CHARS, cached_claims

_SYLLABLES = ["ka", "lo", "mi", "ne", "tu", "ra", "shi", "pe", "do", "vu", "ze", "gi", "fo", "ha", "ju", "ry"]


def maximal_text(seed: int, lead: str) -> str:
    """A note at the 50,000-character maximum, of about 6,000 distinct words."""
    rnd = random.Random(seed)
    words = {"".join(rnd.choice(_SYLLABLES) for _ in range(rnd.randint(3, 5))) for _ in range(9_000)}
    return (lead + " " + " ".join(sorted(words)))[:50_000]


class CountingExtractor:
    """The real extractor, counting the characters it is asked to parse."""

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner, self.parsed = inner, 0

    def parse_many(self, texts):  # type: ignore[no-untyped-def]
        texts = list(texts)
        self.parsed += sum(map(len, texts))
        return self.inner.parse_many(texts)


def test_claims_are_parsed_once_per_memory_version_and_cut_to_the_claim_size(service, extractor):
    long = service.store(maximal_text(1, "Always run migrations in a transaction.")).id
    memory = service.open([long]).memories[0]
    counting = CountingExtractor(extractor)
    first = cached_claims(counting, [memory])[long]
    again = cached_claims(counting, [memory])[long]
    assert counting.parsed == CLAIM_CHARS and again is first and len(first.text) == CLAIM_CHARS
    assert "migration" in " ".join(first.concepts)


def test_the_claim_cache_stays_within_its_bounds(monkeypatch):
    monkeypatch.setattr(claims_module, "CACHE_ENTRIES", 3)
    cache = claims_module._ClaimCache()
    for index in range(10):
        cache.put((f"m{index}", 0), ClaimText(f"m{index}", "x" * 10, 0))
    assert list(cache.entries) == [("m7", 0), ("m8", 0), ("m9", 0)] and cache.chars == 30


def test_two_claims_sharing_thousands_of_concepts_compare_quickly_on_their_most_specific():
    keys = [f"concept{index}" for index in range(6_000)]
    text = " ".join(keys)
    offsets = {key: text.index(key) for key in keys}
    a = ClaimText("m1", "Always " + text, 1, {k: v + 7 for k, v in offsets.items()})
    b = ClaimText("m2", "Never " + text, 2, {k: v + 6 for k, v in offsets.items()})
    started = time.perf_counter()
    found = detect_conflict(a, b, {key: 1.0 + index / 6_000 for index, key in enumerate(keys)})
    assert time.perf_counter() - started < 1.0
    assert found is None or len(found.shared) <= MAX_SHARED


def test_composition_compares_at_most_the_strongest_pairs():
    pairs = [(f"a{index}", f"b{index}") for index in range(1_000)]
    shared = {name: frozenset({"x"} if index % 2 else {"x", "y"}) for pair in pairs
              for index, name in enumerate(pair)}
    kept = strongest_pairs(pairs, shared, {"x": 1.0, "y": 5.0}, limit=200)
    assert len(kept) == 200 and kept[0] == pairs[0]


@pytest.mark.slow
def test_composition_and_the_conflict_scan_answer_within_5_s_on_maximal_memories(service):
    for index in range(8):
        service.store(maximal_text(index, f"Always deploy the payments service with tool{index}."), kind="decision")
    service.store("Never deploy the payments service on Fridays", kind="decision")
    service.associate("payments service deploy", mode="composition")  # the first call fills the claim cache
    long = maximal_text(99, "payments service deploy")[:10_000]
    for call in (lambda: service.associate("payments service deploy", mode="composition"),
                 lambda: service.associate(long, mode="composition", max_results=100),
                 service.conflicts.scan, lambda: service.exports.page(limit=500)):
        started = time.perf_counter()
        call()
        assert time.perf_counter() - started < 5

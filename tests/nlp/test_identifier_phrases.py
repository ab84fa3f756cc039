"""A compound identifier also mentions the phrase its words spell, so code and prose meet."""

from __future__ import annotations

import pytest

from nlp import ConceptExtractor


@pytest.mark.parametrize("text", ["the `Idempotency-Key` header", "the idempotency_keys table", "IdempotencyKey"])
def test_compound_identifiers_mention_their_phrase(extractor: ConceptExtractor, text: str) -> None:
    mentions = {m.key: m for m in extractor.parse(text).mentions}
    assert "idempotency key" in mentions
    assert mentions["idempotency key"].parts == ("idempotency", "key")


@pytest.mark.parametrize("text", ["src/billing/webhooks.py", "os.path.join", "https://example.com/a_b"])
def test_paths_dotted_names_and_urls_spell_no_phrase(extractor: ConceptExtractor, text: str) -> None:
    assert not [m for m in extractor.parse(text).mentions if m.kind == "phrase"]


def test_the_spelled_phrase_is_a_fallback_not_a_second_query_concept(extractor: ConceptExtractor) -> None:
    assert [key for key, _ in extractor.query_keys("getUserById")] == ["getuserbyid"]

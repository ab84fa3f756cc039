"""ConceptExtractor: phrases, names, salience, non-ASCII text, determinism and robustness."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import spacy
from hypothesis import example, given, settings
from hypothesis import strategies as st

import nlp.pipeline as pipeline_module
from nlp import ConceptExtractor, ConceptMention, ParsedObservation, normalize_key


def by_key(parsed: ParsedObservation) -> dict[str, ConceptMention]:
    return {mention.key: mention for mention in parsed.mentions}


def test_content_word_runs_become_phrases_with_their_words_as_parts(extractor: ConceptExtractor) -> None:
    mentions = by_key(extractor.parse("Every webhook handler needs an idempotency key."))
    assert mentions["webhook handler"].kind == "phrase"
    assert mentions["webhook handler"].parts == ("webhook", "handler")
    assert mentions["idempotency key"].parts == ("idempotency", "key")
    assert "handler need" not in mentions  # "needs an" reads as a verb
    for word in ("webhook", "handler", "idempotency", "key"):
        assert mentions[word].kind == "term"


def test_the_head_of_a_phrase_outweighs_its_modifier(extractor: ConceptExtractor) -> None:
    mentions = by_key(extractor.parse("Session storage moved to Redis."))
    assert "session storage" in mentions
    assert mentions["storage"].weight > mentions["session"].weight


def test_sub_phrases_are_concepts_too(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("Use an idempotency key header check before creating orders").keys()
    assert {"idempotency key header check", "idempotency key", "header check"} <= set(keys)


def test_phrases_stay_within_max_phrase_words() -> None:
    parsed = ConceptExtractor(max_phrase_words=2).parse("The postgres connection pool timeout fired.")
    phrases = [mention.key for mention in parsed.mentions if mention.kind == "phrase"]
    assert phrases == ["postgres connection", "connection pool", "pool timeout"]


def test_hyphenated_words_join_a_phrase(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("We need real-time dashboards.").keys()
    assert "real time dashboard" in keys


def test_verbs_after_pronouns_and_opening_past_tenses_are_kept_out_of_phrases(
    extractor: ConceptExtractor,
) -> None:
    keys = set(extractor.parse("We store session state in Redis. Added retry logic.").keys())
    assert {"session state", "retry logic"} <= keys
    assert not {"store session state", "add retry logic"} & keys


@pytest.mark.parametrize(
    ("text", "entity"),
    [
        ("He studied at the University of Michigan in 1990.", "university of michigan"),
        ("She worked for Bank of America for years.", "bank of america"),
        ("They moved to New York City last May.", "new york city"),
        ("The Walt Disney Company owns Pixar.", "walt disney company"),
        ("Payments go through Stripe now.", "stripe"),
        ("Charles de Gaulle Airport was closed.", "charles de gaulle airport"),
    ],
)
def test_capitalized_runs_are_entities(extractor: ConceptExtractor, text: str, entity: str) -> None:
    assert by_key(extractor.parse(text))[entity].kind == "entity"


def test_phrases_never_hold_half_a_name(extractor: ConceptExtractor) -> None:
    mentions = by_key(
        extractor.parse("It is named after the engineer Gustave Eiffel near the Champ de Mars.")
    )
    assert mentions["gustave eiffel"].kind == "entity"
    assert mentions["champ de mars"].kind == "entity"
    assert "engineer gustave" not in mentions
    assert "de" not in mentions  # a name particle is not a concept on its own


def test_a_lone_capitalized_word_opening_a_sentence_is_not_an_entity(extractor: ConceptExtractor) -> None:
    mentions = by_key(extractor.parse("We ship daily. Webhooks need retries."))
    assert mentions["webhook"].kind == "term"


def test_names_keep_their_words_unlemmatized(extractor: ConceptExtractor) -> None:
    mentions = by_key(extractor.parse("Troops from the United States arrived."))
    assert mentions["united states"].kind == "entity"
    assert mentions["united states"].parts == ("united", "states")
    assert "unite state" not in mentions


def test_names_joined_by_and_are_also_kept_apart(extractor: ConceptExtractor) -> None:
    mentions = by_key(extractor.parse("Both Google and Microsoft ship it."))
    assert {"google and microsoft", "google", "microsoft"} <= set(mentions)
    assert mentions["microsoft"].kind == "entity"


def test_a_title_line_is_the_most_salient_entity(extractor: ConceptExtractor) -> None:
    parsed = extractor.parse(
        "Walt Disney Company\nThe company was founded in 1923 by Walt Disney and Roy O. Disney in Burbank."
    )
    title = parsed.mentions[0]
    assert (title.key, title.kind, title.sentence) == ("walt disney company", "entity", 0)
    assert title.weight == max(mention.weight for mention in parsed.mentions)
    assert parsed.sentence_count == 2


def test_an_opening_subject_followed_by_a_copula_is_the_topic(extractor: ConceptExtractor) -> None:
    parsed = extractor.parse("Python is a programming language. It was created by Guido van Rossum.")
    mentions = by_key(parsed)
    assert mentions["python"].kind == "entity"
    assert mentions["python"].weight >= mentions["guido van rossum"].weight


def test_earlier_sentences_weigh_more(extractor: ConceptExtractor) -> None:
    mentions = by_key(extractor.parse("The cache failed. Nobody noticed. Later the queue stalled."))
    assert mentions["cache"].weight > mentions["queue"].weight


def test_repeats_raise_weight_but_saturate(extractor: ConceptExtractor) -> None:
    once = by_key(extractor.parse("The cache failed."))["cache"]
    many = by_key(extractor.parse("The cache failed. " + "The cache failed. " * 8))["cache"]
    assert many.count == 9
    assert once.weight < many.weight <= 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Die Bestätigung der Zahlung schlägt fehl.", {"bestätigung", "zahlung"}),
        ("東京", {"東京"}),
        ("We opened an office in Zürich.", {"zürich"}),
        ("Привет мир, база данных упала.", {"данных"}),
    ],
)
def test_non_ascii_text_yields_concepts(extractor: ConceptExtractor, text: str, expected: set[str]) -> None:
    assert expected <= set(extractor.parse(text).keys())


def test_no_concept_is_a_substring_of_a_word(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("Google ago").keys()
    assert "go" not in keys


@pytest.mark.parametrize("text", ["", "   ", "...", "\n\n", "- \n* "])
def test_empty_texts_have_no_concepts(extractor: ConceptExtractor, text: str) -> None:
    parsed = extractor.parse(text)
    assert parsed.mentions == ()
    assert parsed.sentence_count == 0
    assert parsed.cooccurring_pairs() == []


def test_output_is_deterministic_and_ordered_by_first_occurrence(extractor: ConceptExtractor) -> None:
    text = "Stripe retries webhooks; the webhook handler in src/app/hooks.py dedupes by Idempotency-Key."
    first, second = extractor.parse(text), extractor.parse(text)
    assert first == second
    starts = [mention.start for mention in first.mentions]
    assert starts == sorted(starts)
    assert len(set(first.keys())) == len(first.keys())


def test_parse_many_matches_parse(extractor: ConceptExtractor) -> None:
    texts = ["Redis stores sessions.", "", "Run make test before git push.", "東京の天気"]
    assert extractor.parse_many(texts, batch_size=2) == [extractor.parse(text) for text in texts]


def test_parsing_from_several_threads_gives_the_same_results(extractor: ConceptExtractor) -> None:
    texts = [
        f"Worker {n} retried job_{n % 7} on queue-{n % 3} after HTTP 503 from Stripe." for n in range(200)
    ]
    expected = [extractor.parse(text) for text in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(extractor.parse, texts)) == expected


def test_extractors_of_one_model_share_the_loaded_pipeline() -> None:
    assert ConceptExtractor()._current() is ConceptExtractor()._current()


def test_a_pipeline_that_took_in_many_new_words_is_replaced_and_parses_the_same(monkeypatch) -> None:
    texts = [f"Deploy service{n} with helm upgrade --atomic; see ticket PAY-{n} and webhook{n}_handler"
             for n in range(40)]
    expected = [ConceptExtractor().parse(text) for text in texts]  # before any limit applies
    monkeypatch.setattr(pipeline_module, "_MAX_NEW_STRINGS", 20)
    first, second = ConceptExtractor(), ConceptExtractor()
    seen = {id(first._current())}
    parsed = []
    for text in texts:
        parsed.append(first.parse(text))
        current = first._current()
        seen.add(id(current))
        assert len(current.nlp.vocab.strings) <= current.base_strings + 20  # what the next parse starts from
    assert parsed == expected  # the same concepts from every pipeline
    assert len(seen) > 2  # replaced again and again, not grown without end
    assert second._current() is first._current()  # the replacement is shared by every extractor of the model
    assert second.query_keys("helm upgrade") == ConceptExtractor().query_keys("helm upgrade")


def test_an_unknown_model_is_refused_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match=r"not installed.*blank"):
        ConceptExtractor("graphmem_no_such_pipeline")


def test_max_phrase_words_below_two_is_refused() -> None:
    with pytest.raises(ValueError, match="max_phrase_words"):
        ConceptExtractor(max_phrase_words=1)


@pytest.mark.skipif(not spacy.util.is_package("en_core_web_sm"), reason="en_core_web_sm is not installed")
def test_a_trained_pipeline_adds_concepts_and_keeps_identifiers() -> None:
    parsed = ConceptExtractor("en_core_web_sm").parse(
        "Apple is looking at buying a U.K. startup; see src/app/main.py and getUserById."
    )
    mentions = by_key(parsed)
    assert mentions["src/app/main.py"].kind == "identifier"
    assert mentions["getuserbyid"].kind == "identifier"
    assert mentions["apple"].kind == "entity"


def test_a_pipeline_directory_adds_its_entities_and_sentence_starts(tmp_path: Path) -> None:
    # No trained model is installed here, so build a rule-based "model" that sets the same annotations.
    pipeline = spacy.blank("en")
    pipeline.add_pipe("sentencizer")
    pipeline.add_pipe("entity_ruler").add_patterns([{"label": "ORG", "pattern": "acme widgets"}])
    pipeline.to_disk(tmp_path)
    parsed = ConceptExtractor(str(tmp_path)).parse("we bought acme widgets; see src/app/main.py. it broke")
    mentions = by_key(parsed)
    assert mentions["acme widgets"].kind == "entity"  # lower case: the rules alone would not find it
    assert mentions["src/app/main.py"].kind == "identifier"
    assert parsed.sentence_count == 2


# fmt: off
WORDS = st.sampled_from([
    "the", "cache", "Redis", "webhooks", "getUserById", "src/app.py", "HTTP", "429", "npm", "run", "of",
    "University", "Michigan", "3.11", "--flag", "Zürich", "東京", "#12", "don't",
    ".", ",", "(", ")", "-", "\n",
])
# fmt: on


@settings(max_examples=150, deadline=None)
@given(st.lists(WORDS, max_size=25).map(" ".join) | st.text(max_size=60))
@example("0/\n")  # a first line that names nothing is not a title
@example("Redis\n\nnpm run build:worker --flag")
def test_mentions_are_well_formed_for_any_text(text: str) -> None:
    parsed = ConceptExtractor().parse(text)
    keys = parsed.keys()
    assert len(set(keys)) == len(keys)
    for mention in parsed.mentions:
        assert mention.key
        assert normalize_key(mention.key) == mention.key
        assert 0.0 < mention.weight <= 1.0
        assert mention.count >= 1
        assert 0 <= mention.start < mention.end <= len(text)
        assert text[mention.start : mention.end] == mention.surface
        assert 0 <= mention.sentence < parsed.sentence_count
        assert mention.key not in mention.parts
        assert set(mention.parts) <= set(keys)


LEXEME_TEXTS = [
    "Zorblatt's quorvex-7 handler rejected 3 refunds (see src/qx/main.py) after 12.5 s.",
    "Run npm run build:worker first, then python -m pytest -x and kubectl get pods --all.",
    "The gateway answered HTTP 503 twice, then status 200; make test-unit passed.",
    "Ünïcode naïve façade Ωmega 2023-12-25 @scope/pkg Idempotency-Key $HOME #123",
]


def test_the_blank_pipeline_computes_only_the_lexeme_attributes_the_matchers_read() -> None:
    from spacy.attrs import IDS, IS_DIGIT, IS_LOWER, LOWER, NORM, SHAPE

    from nlp.matchers import LEXEME_ATTRIBUTES, MultiTokenMatcher

    built = pipeline_module._build_pipeline("blank")
    assert set(built.nlp.vocab.lex_attr_getters) == {IDS[name] for name in LEXEME_ATTRIBUTES}
    read = {key for label in ("COMMAND", "STATUS") for pattern in MultiTokenMatcher(
        built.nlp.vocab, frozenset())._matcher.get(label)[1] for token in pattern for key in token}
    assert read - {"OP", "ORTH", "LENGTH"} <= LEXEME_ATTRIBUTES  # a pattern on another attribute needs it here
    doc = built.nlp("Qwertzuio QWERTZUIO qwertzuio 4711")  # new words: their lexemes are made now
    assert [token.lower_ for token in doc] == ["qwertzuio", "qwertzuio", "qwertzuio", "4711"]
    assert [token.is_lower for token in doc] == [False, False, True, False]
    assert [token.is_digit for token in doc] == [False, False, False, True]
    assert doc[0].lex.norm == 0 and doc[0].lex.shape == 0  # not computed (SHAPE, NORM: unread)
    assert NORM not in built.nlp.vocab.lex_attr_getters and SHAPE not in built.nlp.vocab.lex_attr_getters
    assert {LOWER, IS_LOWER, IS_DIGIT} <= set(built.nlp.vocab.lex_attr_getters)


def test_a_parse_is_the_same_with_every_lexeme_attribute_computed(monkeypatch) -> None:
    trimmed = ConceptExtractor()
    trimmed._loaded = pipeline_module._build_pipeline("blank")
    monkeypatch.setattr(pipeline_module, "_compute_only", lambda nlp, attributes: None)
    full = ConceptExtractor()
    full._loaded = pipeline_module._build_pipeline("blank")
    assert len(full._loaded.nlp.vocab.lex_attr_getters) > len(trimmed._loaded.nlp.vocab.lex_attr_getters)
    for text in LEXEME_TEXTS:
        assert trimmed.parse(text) == full.parse(text)
        assert trimmed.query_parse(text) == full.query_parse(text)
    assert any(mention.key == "npm run build:worker" for mention in trimmed.parse(LEXEME_TEXTS[1]).mentions)

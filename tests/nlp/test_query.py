"""Query-side matching: fallback keys and n-grams are whole keys, never substrings."""

from __future__ import annotations

import pytest

from nlp import ConceptExtractor


def test_every_query_concept_comes_first_in_its_own_fallbacks(extractor: ConceptExtractor) -> None:
    for key, fallbacks in extractor.query_keys("retry webhook handlers for build_worker via os.path.join"):
        assert fallbacks[0] == key
        assert len(set(fallbacks)) == len(fallbacks)


def test_a_term_falls_back_to_its_surface_form(extractor: ConceptExtractor) -> None:
    fallbacks = dict(extractor.query_keys("webhooks"))
    assert fallbacks["webhook"] == ("webhook", "webhooks")


def test_an_identifier_falls_back_to_its_spaced_form_then_its_parts(extractor: ConceptExtractor) -> None:
    fallbacks = dict(extractor.query_keys("why does build_worker crash"))
    assert fallbacks["build worker"] == ("build worker", "build_worker", "build", "worker")


def test_a_command_falls_back_through_nested_parts(extractor: ConceptExtractor) -> None:
    fallbacks = dict(extractor.query_keys("npm run build:worker"))["npm run build:worker"]
    assert fallbacks.index("build:worker") < fallbacks.index("worker")


def test_a_phrase_falls_back_to_its_head_before_its_modifiers(extractor: ConceptExtractor) -> None:
    fallbacks = dict(extractor.query_keys("stripe webhook handlers"))["stripe webhook handler"]
    assert fallbacks[:2] == ("stripe webhook handler", "stripe webhook handlers")
    assert fallbacks.index("handler") < fallbacks.index("webhook") < fallbacks.index("stripe")


def test_identifier_parts_are_fallbacks_not_query_concepts(extractor: ConceptExtractor) -> None:
    concepts = [key for key, _ in extractor.query_keys("getUserById")]
    assert concepts == ["getuserbyid"]


def test_matching_is_on_word_boundaries(extractor: ConceptExtractor) -> None:
    everything = {key for key, fallbacks in extractor.query_keys("Google ago") for key in (key, *fallbacks)}
    everything |= set(extractor.candidate_ngrams("Google ago"))
    assert "go" not in everything
    assert {"google", "google ago"} <= everything


def test_ngrams_find_multi_word_concepts_in_lemma_and_surface_form(extractor: ConceptExtractor) -> None:
    ngrams = extractor.candidate_ngrams("alumni of the University of Michigan hate webhook handlers")
    assert {"university of michigan", "webhook handler", "webhook handlers"} <= set(ngrams)


def test_ngrams_never_start_or_end_with_a_stopword_and_respect_max_n(extractor: ConceptExtractor) -> None:
    ngrams = extractor.candidate_ngrams("the cache of the session store is slow", max_n=3)
    assert all(len(ngram.split()) <= 3 for ngram in ngrams)
    assert not [ngram for ngram in ngrams if ngram.split()[0] in {"the", "of", "is"}]
    assert not [ngram for ngram in ngrams if ngram.split()[-1] in {"the", "of", "is"}]


def test_ngrams_keep_identifiers_whole_and_stop_at_punctuation(extractor: ConceptExtractor) -> None:
    ngrams = extractor.candidate_ngrams("Run npm run build:worker. Then check src/app/main.py")
    assert {"npm run build:worker", "build:worker", "src/app/main.py"} <= set(ngrams)
    assert "build:worker then" not in ngrams
    assert "worker" not in ngrams


def test_ngram_size_must_be_positive(extractor: ConceptExtractor) -> None:
    with pytest.raises(ValueError, match="max_n"):
        extractor.candidate_ngrams("cache", max_n=0)


@pytest.mark.parametrize("text", ["build_worker webhooks", "Who was the DJ of the compilation album produced by an "
                                  "English cricketer born in Christchurch?", "rollback of src/app.py at 10:00",
                                  "", "!!!"])
def test_one_parse_gives_the_query_keys_and_the_ngrams_recall_looks_up(extractor: ConceptExtractor, text: str) -> None:
    assert extractor.query_parse(text) == (extractor.query_keys(text), extractor.candidate_ngrams(text))

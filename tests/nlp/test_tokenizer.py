"""The code-aware tokenizer is linear in any input, punctuation runs included, and loses no character."""

from __future__ import annotations

import time

import pytest
import spacy

from nlp.tokenizer import install_code_tokenizer


@pytest.fixture(scope="module")
def nlp():  # type: ignore[no-untyped-def]
    pipeline = spacy.blank("en")
    install_code_tokenizer(pipeline)
    return pipeline


@pytest.mark.parametrize("run", ["$", "(", "#", ")", "_", "'", "<", "*", "$(", "(a", "x("])
def test_a_maximal_field_of_one_punctuation_run_tokenizes_in_linear_time(nlp, run):
    text = run * (50_000 // len(run))
    started = time.perf_counter()
    doc = nlp(text)
    # Before the fix 8,000 `$` took 43 s (quadratic); 50,000 now take about 0.3 s on the 2-core CI machine.
    assert time.perf_counter() - started < 5
    assert doc.text == text


@pytest.mark.parametrize("text", [
    "see (" + "$" * 40 + ") here",
    "#" * 33 + " heading and " + "_" * 64 + "\n" + "(" * 50 + "call(x)" + ")" * 50,
    "price " + "$" * 31 + " stays under the threshold",
    "trailing run " + "!" * 40,
    "!" * 40 + "  two spaces after",
])
def test_runs_are_cut_into_the_same_tokens_spacy_makes_and_the_text_is_kept(nlp, text):
    inner = nlp.tokenizer.inner
    assert nlp(text).text == text
    assert [t.text for t in nlp(text) if not t.is_space] == [t.text for t in inner(text) if not t.is_space]


def test_text_without_long_runs_goes_through_spacy_unchanged(nlp):
    text = "see (src/app/main.py), Idempotency-Key and @scope/pkg."
    assert [(t.text, t.whitespace_) for t in nlp(text)] == [(t.text, t.whitespace_) for t in nlp.tokenizer.inner(text)]

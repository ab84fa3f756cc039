"""Redaction: a labelled corpus measures precision and recall; hex ids, hashes and UUIDs survive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.core.redaction import PLACEHOLDER, mask_placeholders, redact

CORPUS = [json.loads(line) for line in
          (Path(__file__).parents[1] / "data" / "redaction_corpus.jsonl").read_text().splitlines()]


def _scores() -> tuple[int, int, int]:
    """True positives, false positives and false negatives, counted per kind and case."""
    tp = fp = fn = 0
    for case in CORPUS:
        found = redact(case["text"]).counts
        for kind in set(case["expect"]) | set(found):
            expected, got = case["expect"].get(kind, 0), found.get(kind, 0)
            tp, fp, fn = tp + min(expected, got), fp + max(0, got - expected), fn + max(0, expected - got)
    return tp, fp, fn


def test_the_corpus_has_positive_and_negative_cases():
    positives = [case for case in CORPUS if case["expect"]]
    assert len(positives) >= 40 and len(CORPUS) - len(positives) >= 40


def test_precision_and_recall_on_the_labelled_corpus():
    tp, fp, fn = _scores()
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision >= 0.95, (precision, recall)
    assert recall >= 0.95, (precision, recall)


@pytest.mark.parametrize("case", [c for c in CORPUS if c["secret"]], ids=lambda c: c["text"][:30])
def test_no_secret_value_survives(case):
    assert case["secret"] not in redact(case["text"]).text


@pytest.mark.parametrize("text", [
    "3f786850e387550fdab836ed7e6dc881de23001b",
    "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
    "123e4567-e89b-12d3-a456-426614174000",
    "d41d8cd98f00b204e9800998ecf8427e",
    "mem_01jz3k5x8q9w2e4r6t8y",
    "01ARZ3NDEKTSV4RRFFQ69G5FAV",
])
def test_ordinary_ids_and_hashes_are_left_alone(text):
    assert redact(f"see {text} here").text == f"see {text} here"


def test_redaction_is_idempotent_and_counts_only_new_secrets():
    once = redact("postgresql://admin:S3cr3t@db/app password=hunter22 AKIAIOSFODNN7EXAMPLE")
    twice = redact(once.text)
    assert twice.text == once.text and twice.counts == {}
    assert once.counts == {"url-password": 1, "password": 1, "aws-access-key": 1}


def test_placeholders_are_blanked_for_parsing_with_spans_kept():
    text = redact("token ghp_16C7e42F292c6912E7710c838347Ae178B4a end").text
    masked = mask_placeholders(text)
    assert len(masked) == len(text) and not PLACEHOLDER.search(masked) and masked.endswith(" end")

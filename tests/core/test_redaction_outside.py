"""Redaction measured on formats taken from the issuers' and secret scanners' documentation.

``redaction_outside_corpus.jsonl`` holds one synthetic test string per documented format (87 formats,
the source of each beside it) and 53 look-alikes; ``redaction_holdout_corpus.jsonl`` holds 24 further
formats written after the shapes were last extended, with no shape added for them, so its figure is
the one to expect on a format nobody has seen. detect-secrets is measured on the same strings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.core.redaction import redact
from tests.core.detect_secrets_baseline import redact_with_detect_secrets

DATA = Path(__file__).parents[1] / "data"
OUTSIDE = [json.loads(line) for line in (DATA / "redaction_outside_corpus.jsonl").read_text().splitlines()]
HOLDOUT = [json.loads(line) for line in (DATA / "redaction_holdout_corpus.jsonl").read_text().splitlines()]
POSITIVES = [case for case in OUTSIDE if case["secret"]]
LOOK_ALIKES = [case for case in OUTSIDE if not case["secret"]]


def recall(cases: list[dict[str, str]], redactor) -> float:  # type: ignore[no-untyped-def]
    """Share of cases whose secret value is gone from the redacted text."""
    return sum(case["secret"] not in redactor(case["text"]) for case in cases) / len(cases)


def altered(cases: list[dict[str, str]], redactor) -> float:  # type: ignore[no-untyped-def]
    """Share of look-alikes the redactor changed at all."""
    return sum(redactor(case["text"]) != case["text"] for case in cases) / len(cases)


def graphmem_redact(text: str) -> str:
    return redact(text).text


def test_the_corpus_covers_60_formats_and_40_look_alikes_each_with_its_source():
    assert len({case["format"] for case in POSITIVES}) >= 60 and len(LOOK_ALIKES) >= 40
    assert all(case["source"] for case in OUTSIDE + HOLDOUT)


def test_recall_and_look_alikes_meet_the_targets():
    assert recall(POSITIVES, graphmem_redact) >= 0.95
    assert altered(LOOK_ALIKES, graphmem_redact) <= 0.05


def test_formats_written_after_the_shapes_are_mostly_caught_too():
    assert recall(HOLDOUT, graphmem_redact) >= 0.85


def test_graphmem_finds_at_least_what_detect_secrets_finds_on_every_corpus():
    for cases in (POSITIVES, HOLDOUT):
        assert recall(cases, graphmem_redact) >= recall(cases, redact_with_detect_secrets)
    assert altered(LOOK_ALIKES, graphmem_redact) <= altered(LOOK_ALIKES, redact_with_detect_secrets)


def test_detect_secrets_adds_no_secret_graphmem_misses():
    missed = [case for case in POSITIVES + HOLDOUT if case["secret"] in graphmem_redact(case["text"])]
    assert all(case["secret"] in redact_with_detect_secrets(graphmem_redact(case["text"])) for case in missed)


@pytest.mark.parametrize("case", POSITIVES, ids=lambda case: case["format"])
def test_no_documented_secret_survives(case):
    redacted = redact(case["text"])
    assert case["secret"] not in redacted.text and redacted.counts


@pytest.mark.parametrize("case", LOOK_ALIKES, ids=lambda case: case["format"] + ":" + case["text"][:20])
def test_look_alikes_are_left_alone(case):
    assert redact(case["text"]).text == case["text"]


def test_a_url_keeps_its_host_when_the_password_holds_at_and_slash():
    text = redact("mongodb://root:x/Ab@c9@mongo.internal:27017/admin").text
    assert text == "mongodb://root:[REDACTED:url-password]@mongo.internal:27017/admin"

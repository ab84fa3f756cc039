"""Every identifier-like token in the bundled sample corpus is extracted whole as a concept.

The identifier shapes are enumerated here with independent regular expressions (not the
extractor's own rules), so a tokenizer change that splits any of them fails this test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nlp import ConceptExtractor, normalize_key
from nlp.identifiers import identifier_pieces

CORPUS = Path(__file__).resolve().parents[2] / "data" / "observations.jsonl"

# A token is maximal: it may not continue into more identifier characters on either side (":" and
# "=" included, so the parts of "a.b_c", "x::y" or "--flag=value" are not enumerated on their own).
_BEFORE = r"(?<![\w./:=@${-])"
_AFTER = r"(?![\w/:=(@{-]|\.\w)"
SHAPES = {
    "snake_case": _BEFORE + r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+" + _AFTER,
    "camelCase": _BEFORE + r"[a-z]+[A-Z][A-Za-z0-9]*" + _AFTER,
    "CamelCase": _BEFORE + r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+" + _AFTER,
    "dotted.name": _BEFORE + r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+" + _AFTER,
    "--flag": r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]" + _AFTER,
    "version": r"(?<![\w.])v\d+(?:\.\d+)+(?![\w.])",
    "ENV_VAR": _BEFORE + r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+" + _AFTER,
    "path": _BEFORE + r"(?:\./)?[a-z][\w-]*(?:/[\w.-]+)+\.[a-z]{1,4}" + _AFTER,
}


def _identifiers() -> list[tuple[str, str, str]]:
    found = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        content = json.loads(line)["content"]
        for shape, pattern in SHAPES.items():
            for token in re.findall(pattern, content):
                found.append((shape, token, content))
    return found


IDENTIFIERS = _identifiers()


def test_the_corpus_has_identifiers_of_every_shape():
    assert {shape for shape, _, _ in IDENTIFIERS} == set(SHAPES)
    assert len(IDENTIFIERS) > 100


def test_every_identifier_in_the_sample_corpus_is_a_whole_concept(extractor: ConceptExtractor):
    missing = []
    for shape, token, content in IDENTIFIERS:
        keys = set(extractor.parse(content).keys())
        # A compound of plain words is keyed by the words it spells ("client_mutation_id" -> "client mutation
        # id"), a one-word path, extension or flag by its word ("/healthz" -> "healthz").
        spelled = " ".join(extractor.word_key(piece.lower()) for piece, _ in identifier_pieces(token))
        if not {normalize_key(token), spelled} & keys:
            missing.append(f"{shape}: {token!r}")
    assert not missing, f"{len(missing)} of {len(IDENTIFIERS)} identifiers were split: {missing[:15]}"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_shape_is_enumerated_from_real_observations(shape):
    assert any(s == shape for s, _, _ in IDENTIFIERS)

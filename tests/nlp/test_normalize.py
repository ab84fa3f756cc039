"""normalize_key gives one canonical, idempotent form per concept name."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlp import normalize_key


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Webhook   Handler ", "webhook handler"),
        ("“Idempotency Key”,", "idempotency key"),
        ("Zürich", "zürich"),
        ("日本語", "日本語"),
        ("ＧＲＡＰＨＭＥＭ_DB", "graphmem_db"),  # full-width letters fold to ASCII (NFKC)
        ("Straße", "strasse"),
        ("--dry-run", "--dry-run"),
        ("#123", "#123"),
        ("./scripts/bench.py.", "./scripts/bench.py"),
        (">=1.2", ">=1.2"),
        ("Python (programming language)", "python (programming language)"),
        ("(see main.py)", "see main.py"),
        ("f()", "f()"),
        ("...", ""),
    ],
)
def test_normalize_key_examples(raw: str, expected: str) -> None:
    assert normalize_key(raw) == expected


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_normalize_key_is_idempotent(phrase: str) -> None:
    once = normalize_key(phrase)
    assert normalize_key(once) == once


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(" \t\n()[]{}\"'.,;:!?-_#@/abcXYZéß日"), max_size=30))
def test_normalize_key_is_idempotent_on_punctuation_heavy_text(phrase: str) -> None:
    once = normalize_key(phrase)
    assert normalize_key(once) == once
    assert once == once.strip()
    assert "  " not in once

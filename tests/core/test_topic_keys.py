"""Topic-key suggestion is a deterministic slug that keeps non-ASCII letters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.core.topic_keys import suggest_topic_key


@pytest.mark.parametrize(("title", "key"), [
    ("Decided to use Redis for session storage instead of JWT", "decision/decided-to-use-redis-for-session"),
    ("Zürich: deploy façade über Nacht", "decision/zürich-deploy-façade-über-nacht"),
    ("認証 モデル の 設計", "decision/認証-モデル-の-設計"),
    ("नमस्ते दुनिया", "decision/नमस्ते-दुनिया"),
    ("Don't   retry    webhooks!!", "decision/dont-retry-webhooks"),
    ("ＦＵＬＬＷＩＤＴＨ title", "decision/fullwidth-title"),
])
def test_the_slug_keeps_letters_of_any_script_and_drops_punctuation(title, key):
    assert suggest_topic_key("decision", title) == key


def test_a_title_without_letters_or_digits_is_refused():
    with pytest.raises(ValueError, match="no letters or digits"):
        suggest_topic_key("note", "--- !!! ---")


@given(st.text(min_size=1, max_size=80))
def test_the_suggestion_is_deterministic_and_bounded(title):
    try:
        first = suggest_topic_key("note", title)
    except ValueError:
        return
    assert first == suggest_topic_key("note", title)
    assert first.startswith("note/") and len(first.removeprefix("note/").split("-")) <= 6
    assert " " not in first

"""The literal pre-check of redaction: a rule skipped on a text could not have matched it, so ``redact`` gives
what running every rule gives, on the labelled corpora, on random text and on every rule's own matches."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.core import redaction
from graphmem.core.required_literals import LiteralScreen, fold, may_match, required_literals
from graphmem.core.secret_shapes import PUBLIC_MATERIAL, RULES

DATA = Path(__file__).parents[1] / "data"
CORPUS_TEXTS = [json.loads(line)["text"] for name in ("redaction_corpus", "redaction_holdout_corpus",
                                                        "redaction_outside_corpus")
                for line in (DATA / f"{name}.jsonl").read_text().splitlines()]
CHECKED = [*((pattern, required_literals(pattern)) for _, pattern, _, _ in RULES),
           (PUBLIC_MATERIAL, required_literals(PUBLIC_MATERIAL))]


def _redact_every_rule(text: str) -> tuple[str, dict[str, int], list[str]]:
    """Redaction as it was before the pre-check: every rule runs on every text."""
    counts: Counter[str] = Counter()
    found: list[str] = []
    if len(text) < redaction._SHORTEST_SECRET:
        return text, {}, found
    for kind, pattern, group, accept in RULES:
        text = pattern.sub(redaction._replacer(kind, group, accept, counts, found), text)
    text = redaction.AWS_SECRET.sub(redaction._aws_secret_replacer(counts, found), text)
    return redaction._replace_generated(text, counts, found), dict(counts), found


def _same_as_every_rule(text: str) -> None:
    expected_text, expected_counts, expected_found = _redact_every_rule(text)
    got = redaction.redact(text)
    assert (got.text, dict(got.counts)) == (expected_text, expected_counts)
    assert redaction.secret_values(text) == tuple(dict.fromkeys(expected_found))


def test_every_rule_but_the_catch_alls_has_literals_to_check():
    unchecked = [pattern.pattern for pattern, needles in CHECKED if not needles]
    assert unchecked == []


def test_the_literals_found_are_those_every_match_must_contain():
    assert required_literals(re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")) == ((frozenset({"sk-ant-"}), False),)
    assert required_literals(re.compile(r"(?i:\bbearer)\s+([a-z]{20,})")) == ((frozenset({"bearer"}), True),)
    assert required_literals(re.compile(r"ab(?:cd|ef)?g")) == ((frozenset({"ab"}), False), (frozenset({"g"}), False))
    assert required_literals(re.compile(r"(?:xy|z+)w")) == ((frozenset({"xy", "z"}), False), (frozenset({"w"}), False))
    assert required_literals(re.compile(r"(?:xy|\d)w")) == ((frozenset({"w"}), False),)  # \d has no literal
    assert required_literals(re.compile(r"a*b?[cd]")) == ()


@pytest.mark.parametrize("text", CORPUS_TEXTS, ids=lambda text: text[:30])
def test_redaction_is_unchanged_on_the_labelled_corpora(text):
    _same_as_every_rule(text)
    for pattern, needles in CHECKED:
        assert may_match(needles, text) or not pattern.search(text)


def test_a_rule_is_run_on_every_text_it_matches_in_the_corpora():
    """Each corpus secret embedded in prose, in upper and lower case: no rule that matches is skipped."""
    for text in CORPUS_TEXTS:
        for variant in (text, text.upper(), text.lower(), f"Notes from the call. {text} Then lunch."):
            for pattern, needles in CHECKED:
                if pattern.search(variant):
                    assert may_match(needles, variant), (pattern.pattern, variant)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_string_a_rule_matches_passes_its_check(data):
    pattern, needles = data.draw(st.sampled_from(CHECKED))
    around = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20)
    matched = data.draw(st.from_regex(pattern))
    text = data.draw(around) + matched + data.draw(around)
    if pattern.search(text):
        assert may_match(needles, text), (pattern.pattern, text)


_SECRETISH = st.sampled_from(["password", "PassWord", "api_key", "sk-ant-", "ghp_", "eyJ", "://", "@", "=",
                              ": ", "AKIA", "-----BEGIN", "Bearer ", "basic ", "--token=", "xoxb-", "\u017f",
                              "\u212a", "\u0130", "\u0131", ".", "_", "-"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12), _SECRETISH,
                          st.text(alphabet="abcdefABCDEF0123456789_-./+=", min_size=8, max_size=48)), max_size=12))
def test_redaction_is_unchanged_on_random_text(parts):
    _same_as_every_rule(" ".join(parts))
    _same_as_every_rule("".join(parts))


SCREEN = LiteralScreen([needles for _, needles in CHECKED])


def _screened_as_each_rule_is(text: str) -> None:
    assert SCREEN.candidates(text) == [index for index, (_, needles) in enumerate(CHECKED) if may_match(needles, text)]


def test_the_screen_picks_the_rules_each_rule_s_own_check_picks_on_the_corpora():
    """redact screens every rule at once (LiteralScreen): the same rules as asking each in turn, on every corpus
    text in its case variants and inside prose."""
    for text in CORPUS_TEXTS:
        for variant in (text, text.upper(), text.lower(), f"Notes from the call. {text} Then lunch.", ""):
            _screened_as_each_rule_is(variant)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12), _SECRETISH), max_size=12))
def test_the_screen_picks_the_rules_each_rule_s_own_check_picks_on_random_text(parts):
    _screened_as_each_rule_is(" ".join(parts))
    _screened_as_each_rule_is("".join(parts))


def test_a_screen_runs_a_pattern_without_literals_on_every_text():
    screen = LiteralScreen([((frozenset({"ab"}), False),), (), ((frozenset({"x"}), True), (frozenset({"y"}), False))])
    assert screen.candidates("nothing") == [1]
    assert screen.candidates("ab X") == [0, 1]
    assert screen.candidates("X y") == [1, 2]
    assert screen.candidates("x Y") == [1]


def test_case_insensitive_literals_are_folded_as_re_compares_characters():
    """Every character ``re`` takes for a needle character under IGNORECASE folds to that character."""
    characters = sorted({c for pattern, needles in CHECKED for strings, ignorecase in needles if ignorecase
                         for string in strings for c in string})
    any_of = re.compile("[" + re.escape("".join(characters)) + "]", re.IGNORECASE)
    for code in range(sys.maxunicode + 1):
        candidate = chr(code)
        if any_of.fullmatch(candidate):
            matched = [c for c in characters if re.fullmatch(re.escape(c), candidate, re.IGNORECASE)]
            assert matched and all(fold(candidate) == c for c in matched), (hex(code), matched)

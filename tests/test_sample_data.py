"""Checks on the bundled sample corpus in ``data/``.

Standard library + pytest only. The word-overlap checks below are what make the
demo queries meaningful: each ``expect_no_keyword_hit`` memory must be unreachable
by keyword matching, so it may only be found through a shared concept.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"
OBSERVATIONS = DATA / "observations.jsonl"
DEMO_QUERIES = DATA / "demo_queries.json"
LIFECYCLE = DATA / "lifecycle_pairs.json"

KINDS = {"decision", "error", "pattern", "architecture", "summary", "note", "solution"}
SOURCES = {"agent", "manual", "hook"}
MODES = {"recall", "composition"}
FIELDS = {"content", "kind", "project", "tags", "topic_key", "created_at", "source", "session_id"}
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$")

# --- a deliberately small word normalizer -------------------------------------------------

_STOPWORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can cannot could did do does doing don down during each few
    for from further get gets got had has have having he her here hers him his how i if in into
    is it its itself just me more most my no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their them then there these they
    this those through to too under until up very via was we were what when where which while
    who whom why will with without would you your us
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# (suffix, replacement); several may apply, every result is kept as a variant.
_SUFFIXES = (
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("ing", "e"),
    ("es", ""),
    ("ed", ""),
    ("ed", "e"),
    ("s", ""),
    ("ly", ""),
)
_WORD = re.compile(r"[^\W_]+")  # letters/digits of any script; "_" separates identifier parts
_CAMEL_LOWER_UPPER = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")


def tokens(text: str) -> list[str]:
    """Split prose and identifiers (snake_case, dotted.names, --flags) into words.

    A CamelCase word yields itself *and* its parts ("OOMKilled" -> oomkilled, oom, killed),
    so "iOS" still matches "ios" while "StripeEvent" still matches "stripe".
    """
    out: list[str] = []
    for raw in _WORD.findall(text):
        out.append(raw.lower())
        parts = _CAMEL_ACRONYM.sub(r"\1 \2", _CAMEL_LOWER_UPPER.sub(r"\1 \2", raw)).lower().split()
        if len(parts) > 1:
            out.extend(parts)
    return out


@cache
def variants(word: str) -> frozenset[str]:
    """The word plus its plausible stems: retries/retried/retrying all yield "retry"."""
    forms = {word}
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: -len(suffix)] + replacement
            forms.add(stem)
            # stopped -> stopp -> stop
            if replacement == "" and len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
                forms.add(stem[:-1])
    return frozenset(forms)


def content_words(text: str) -> set[str]:
    return {w for w in tokens(text) if w not in STOPWORDS and len(w) > 1}


def same_word(a: str, b: str) -> bool:
    return bool(variants(a) & variants(b))


def shared_words(a: str, b: str) -> set[tuple[str, str]]:
    return {(x, y) for x in content_words(a) for y in content_words(b) if same_word(x, y)}


def contains_concept(text: str, concept: str) -> bool:
    """Every content word of ``concept`` occurs (modulo inflection) in ``text``."""
    wanted = content_words(concept)
    have = content_words(text)
    return bool(wanted) and all(any(same_word(w, h) for h in have) for w in wanted)


# --- the normalizer itself must behave, or the overlap checks prove nothing --------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("retry", "retries"),
        ("retry", "retried"),
        ("retry", "retrying"),
        ("webhooks", "webhook"),
        ("cache", "caching"),
        ("cached", "caches"),
        ("deploy", "deployed"),
        ("stop", "stopped"),
        ("safely", "safe"),
    ],
)
def test_normalizer_merges_inflections(a, b):
    assert same_word(a, b)


def test_normalizer_splits_identifiers_and_drops_stopwords():
    expected = [
        *("idempotency", "keys", "max", "poll", "interval", "ms"),
        *("oomkilled", "oom", "killed", "frozen", "lockfile"),
    ]
    assert tokens("idempotency_keys max.poll.interval.ms OOMKilled --frozen-lockfile") == expected
    assert shared_words("iOS push", "ios builds")
    assert shared_words("stripe", "StripeEvent")
    assert content_words("Why do the users get logged out?") == {"users", "logged"}
    assert shared_words("retry webhooks", "Stripe retried the webhook")
    assert not shared_words("retry webhooks", "Check the Idempotency-Key header")


# --- loading -------------------------------------------------------------------------------------


@cache
def observations() -> tuple[dict, ...]:
    rows = []
    with OBSERVATIONS.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            assert line.strip(), f"blank line {lineno}"
            rows.append(json.loads(line))
    return tuple(rows)


@cache
def demo_queries() -> tuple[dict, ...]:
    return tuple(json.loads(DEMO_QUERIES.read_text(encoding="utf-8")))


@cache
def lifecycle() -> dict:
    return json.loads(LIFECYCLE.read_text(encoding="utf-8"))


@cache
def by_content() -> dict[str, dict]:
    return {o["content"]: o for o in observations()}


def parse_ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


# --- observations.jsonl --------------------------------------------------------------------------


def test_observations_parse_and_have_exact_fields():
    for o in observations():
        assert set(o) == FIELDS, o
        assert isinstance(o["content"], str) and o["content"].strip() == o["content"] and o["content"]
        assert isinstance(o["project"], str) and o["project"]
        assert isinstance(o["tags"], list) and o["tags"] and all(isinstance(t, str) and t for t in o["tags"])
        assert o["topic_key"] is None or (isinstance(o["topic_key"], str) and o["topic_key"])
        assert o["session_id"] is None or (isinstance(o["session_id"], str) and o["session_id"])


def test_enough_observations():
    assert len(observations()) >= 300


def test_kinds_and_sources_valid():
    assert {o["kind"] for o in observations()} == KINDS  # every kind valid, and every kind used
    assert {o["source"] for o in observations()} <= SOURCES


def test_at_least_five_projects_each_with_several_sessions():
    projects: dict[str, set] = {}
    for o in observations():
        projects.setdefault(o["project"], set()).add(o["session_id"])
    assert len(projects) >= 5
    for name, sessions in projects.items():
        assert len(sessions - {None}) >= 3, name


def test_timestamps_iso8601_utc_in_2026_and_ascending():
    stamps = []
    for o in observations():
        ts = o["created_at"]
        assert TIMESTAMP.match(ts), ts
        parsed = parse_ts(ts)
        assert parsed.year == 2026, ts
        stamps.append(parsed)
    assert stamps == sorted(stamps)
    assert (stamps[-1] - stamps[0]).days >= 90


def test_no_exact_duplicate_contents():
    seen: dict[str, int] = {}
    for i, o in enumerate(observations()):
        key = o["content"]
        assert key not in seen, f"line {i + 1} duplicates line {seen[key] + 1}"
        seen[key] = i


def test_some_non_ascii_content():
    assert sum(1 for o in observations() if not o["content"].isascii()) >= 5


# --- lifecycle pairs ------------------------------------------------------------------------------


def test_near_duplicates_exist_and_differ():
    pairs = lifecycle()["near_duplicates"]
    assert len(pairs) >= 3
    for pair in pairs:
        a, b = by_content().get(pair["a"]), by_content().get(pair["b"])
        assert a is not None and b is not None, pair
        assert a["content"] != b["content"]
        assert a["project"] == b["project"]
        assert shared_words(a["content"], b["content"]), pair  # same fact, different wording


def test_superseded_decisions_share_topic_key_and_come_later():
    pairs = lifecycle()["superseded"]
    assert len(pairs) >= 2
    for pair in pairs:
        old, new = by_content().get(pair["old"]), by_content().get(pair["new"])
        assert old is not None and new is not None, pair
        assert old["kind"] == new["kind"] == "decision"
        assert old["topic_key"] == new["topic_key"] == pair["topic_key"]
        assert parse_ts(new["created_at"]) > parse_ts(old["created_at"])


def test_contradictions_exist_in_same_project():
    pairs = lifecycle()["contradictions"]
    assert len(pairs) >= 2
    for pair in pairs:
        a, b = by_content().get(pair["a"]), by_content().get(pair["b"])
        assert a is not None and b is not None, pair
        assert a["project"] == b["project"]


def test_summaries_present():
    assert sum(1 for o in observations() if o["kind"] == "summary") >= 6


# --- demo_queries.json ------------------------------------------------------------------------------


def test_demo_queries_shape():
    queries = demo_queries()
    assert len(queries) >= 8
    modes = [q["mode"] for q in queries]
    assert set(modes) == MODES
    assert modes.count("recall") * 2 >= len(queries)  # at least half are plain recall
    assert modes.count("composition") >= 4
    projects = {o["project"] for o in observations()}
    for q in queries:
        assert set(q) == {"query", "mode", "project", "expect_no_keyword_hit", "via", "why"}, q
        assert q["project"] is None or q["project"] in projects
        assert q["via"] and all(isinstance(v, str) and v for v in q["via"])
        assert q["why"].strip()
    assert len({q["expect_no_keyword_hit"] for q in queries}) == len(queries)


def _ids(queries):
    return [q["query"] for q in queries]


@pytest.mark.parametrize("q", demo_queries(), ids=_ids(demo_queries()))
def test_expected_memory_exists_verbatim(q):
    hits = [o for o in observations() if o["content"] == q["expect_no_keyword_hit"]]
    assert len(hits) == 1
    if q["project"] is not None:
        assert hits[0]["project"] == q["project"]


@pytest.mark.parametrize("q", demo_queries(), ids=_ids(demo_queries()))
def test_expected_memory_shares_no_content_word_with_query(q):
    assert shared_words(q["query"], q["expect_no_keyword_hit"]) == set()


@pytest.mark.parametrize("q", demo_queries(), ids=_ids(demo_queries()))
def test_expected_memory_is_reachable_in_two_hops(q):
    """B carries every ``via`` concept, and some A carries it too while sharing words with the query."""
    b = q["expect_no_keyword_hit"]
    for concept in q["via"]:
        assert contains_concept(b, concept), (concept, b)
    bridges = [
        o
        for o in observations()
        if o["content"] != b
        and (q["project"] is None or o["project"] == q["project"])
        and shared_words(q["query"], o["content"])
        and any(contains_concept(o["content"], concept) for concept in q["via"])
    ]
    assert bridges, f"no first-hop memory links {q['query']!r} to the expected memory via {q['via']}"


@pytest.mark.parametrize("name", ["observations.jsonl", "demo_queries.json"])
def test_the_packaged_sample_data_is_the_checkouts_data(name):
    packaged = Path(__file__).resolve().parent.parent / "graphmem" / "sample_data" / name
    assert packaged.read_bytes() == (DATA / name).read_bytes(), (
        f"graphmem/sample_data/{name} differs from data/{name}: copy data/{name} over it")

"""Secrets never become memory: credential shapes are replaced by typed placeholders.

``redact`` runs on every user-supplied text field before anything is parsed or stored. A secret is
replaced by ``[REDACTED:<kind>]``; the result counts what was replaced (kind and count, never the
value). Each rule matches a *shape* a credential issuer documents (a fixed prefix, a fixed length,
a PEM armour line) or a ``key=value`` assignment whose key names a secret, so ordinary hex ids,
hashes and UUIDs are left alone (the shapes are in secret_shapes.py). Precision and recall are measured
on two labelled corpora, one written beside the rules and one from the issuers' documented formats
(``tests/core/test_redaction.py``, ``tests/core/test_redaction_outside.py``; figures in docs/security.md),
beside Yelp's detect-secrets: combined with these shapes it found no secret they missed and took four
times as long, so it is a measured baseline in the tests, not a dependency.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from graphmem.core.required_literals import LiteralScreen, required_literals
from graphmem.core.secret_shapes import AWS_SECRET, GENERATED_TOKEN, PUBLIC_MATERIAL, RULES, Accept
from graphmem.core.secret_values import looks_generated, looks_like_aws_secret

__all__ = ["PLACEHOLDER", "Redaction", "mask_placeholders", "merge_counts", "placeholder", "redact", "secret_values"]

PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
# The shortest text any shape matches is an assignment such as ``pwd=abc`` (a 3-letter key, a separator and
# a 3-character value); every prefixed token, URL or key is longer.
_SHORTEST_SECRET = 7
# Each rule with the literals every match of it contains: a text that lacks them cannot match, so the rule is
# not run on it (the result is the same; on ordinary prose most of the 52 rules are skipped).
# One screen for all of them: the text is searched once for every rule's literals (0.03-0.04 ms a passage less
# than asking each rule in turn, docs/benchmarks.md, issue 22 section 12).
_SCREEN = LiteralScreen([required_literals(rule[1]) for rule in RULES])

@dataclass(frozen=True, slots=True)
class Redaction:
    """Text with its secrets replaced, and how many of each kind were replaced."""

    text: str
    counts: Mapping[str, int] = field(default_factory=dict)


def placeholder(kind: str) -> str:
    """The typed placeholder that stands in for a secret.

    >>> placeholder("aws-access-key")
    '[REDACTED:aws-access-key]'
    """
    return f"[REDACTED:{kind}]"


def redact(text: str) -> Redaction:
    """Replace every credential shape in ``text`` by its placeholder.

    >>> redact("key AKIAIOSFODNN7EXAMPLE and sha 3f786850e387550fdab836ed7e6dc881de23001b").text
    'key [REDACTED:aws-access-key] and sha 3f786850e387550fdab836ed7e6dc881de23001b'
    >>> dict(redact("password=hunter22").counts)
    {'password': 1}
    """
    counts: Counter[str] = Counter()
    return Redaction(_redact(text, counts, []), dict(counts))


def secret_values(text: str) -> tuple[str, ...]:
    """The secrets ``redact`` would replace in ``text``, for a pass that must also find what they became
    elsewhere (``graphmem redact`` drops the concepts made from them). Never stored or returned to a client.

    >>> secret_values("key AKIAIOSFODNN7EXAMPLE here")
    ('AKIAIOSFODNN7EXAMPLE',)
    """
    found: list[str] = []
    _redact(text, Counter(), found)
    return tuple(dict.fromkeys(found))


def _redact(text: str, counts: Counter[str], found: list[str]) -> str:
    if len(text) < _SHORTEST_SECRET:
        return text  # most tags, kinds and project names: no shape fits, so none is tried (7 µs saved each)
    candidates = _SCREEN.candidates(text)
    while candidates:
        index = candidates.pop(0)
        kind, pattern, group, accept = RULES[index]
        replaced = pattern.sub(_replacer(kind, group, accept, counts, found), text)
        if replaced != text:  # the later rules are screened against the text they will run on
            text = replaced
            candidates = [later for later in _SCREEN.candidates(text) if later > index]
    text = AWS_SECRET.sub(_aws_secret_replacer(counts, found), text)
    return _replace_generated(text, counts, found)


def _replace_generated(text: str, counts: Counter[str], found: list[str]) -> str:
    """Replace long generated-looking tokens, except inside public keys, certificates and data URIs."""
    public: list[tuple[int, int]] | None = None  # found when the first long token is, if one is

    def replace(match: re.Match[str]) -> str:
        nonlocal public
        if public is None:
            public = [span.span() for span in PUBLIC_MATERIAL.finditer(text)]
        inside = any(start <= match.start() < end for start, end in public)
        if inside or not looks_generated(match.group(0)):
            return match.group(0)
        counts["generated-token"] += 1
        found.append(match.group(0))
        return placeholder("generated-token")
    return GENERATED_TOKEN.sub(replace, text)


def _replacer(kind: str, group: int, accept: Accept | None, counts: Counter[str],  # type: ignore[no-untyped-def]
              found: list[str]):
    def replace(match: re.Match[str]) -> str:
        value = match.group(group)
        if PLACEHOLDER.fullmatch(value.strip("\"'")) or "[REDACTED:" in value:
            return match.group(0)  # already a placeholder (an earlier rule or an earlier pass)
        if accept is not None and not accept(match, group):
            return match.group(0)
        counts[kind] += 1
        found.append(value)
        start, end = match.span(group)
        whole = match.group(0)
        offset = match.start(0)
        return whole[: start - offset] + placeholder(kind) + whole[end - offset :]
    return replace


def _aws_secret_replacer(counts: Counter[str], found: list[str]):  # type: ignore[no-untyped-def]
    def replace(match: re.Match[str]) -> str:
        value = match.group(0)
        if not looks_like_aws_secret(value):
            return value
        counts["aws-secret-key"] += 1
        found.append(value)
        return placeholder("aws-secret-key")
    return replace


def mask_placeholders(text: str) -> str:
    """Blank placeholders out (same length, so spans stay valid) before concept extraction.

    >>> mask_placeholders("use [REDACTED:jwt] here")
    'use                here'
    """
    return PLACEHOLDER.sub(lambda match: " " * len(match.group(0)), text)


def merge_counts(*parts: Mapping[str, int]) -> dict[str, int]:
    """Sum per-kind counts from several fields.

    >>> merge_counts({"jwt": 1}, {"jwt": 2, "password": 1})
    {'jwt': 3, 'password': 1}
    """
    total: Counter[str] = Counter()
    for part in parts:
        total.update(part)
    return dict(sorted(total.items()))

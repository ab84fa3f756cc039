"""Secrets never become memory: credential shapes are replaced by typed placeholders.

``redact`` runs on every user-supplied text field before anything is parsed or stored. A secret is
replaced by ``[REDACTED:<kind>]``; the result counts what was replaced (kind and count, never the
value). Each rule matches a *shape* a credential issuer documents (a fixed prefix, a fixed length,
a PEM armour line) or a ``key=value`` assignment whose key names a secret, so ordinary hex ids,
hashes and UUIDs are left alone. Precision and recall are measured on a labelled corpus in
``tests/core/test_redaction.py`` (figures in docs/security.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["PLACEHOLDER", "Redaction", "mask_placeholders", "merge_counts", "placeholder", "redact"]

PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")

_KEYWORD = (r"(?:password|passwd|passphrase|pwd|secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey"
            r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key|aws[_-]?secret[_-]?access[_-]?key)")

_VALUE = r"(\"[^\"\n]{3,}\"|'[^'\n]{3,}'|[^\s\"',;]{3,})"  # quoted, or up to a space or separator

# (kind, pattern, group to replace). Order matters: armoured keys and URLs first, so a later rule
# never sees half of a secret an earlier rule already replaced.
_RULES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("private-key", re.compile(
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.DOTALL), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    # scheme://user:password@host: only the password goes, so the host stays searchable.
    ("url-password", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@\[\]]*:([^\s@/\[\]]{1,256})@"), 1),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), 0),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"), 0),
    ("stripe-key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), 0),
    ("github-token", re.compile(
        r"\b(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"), 0),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), 0),
    ("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), 0),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), 0),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), 0),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b"),
     0),
    ("bearer-token", re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9._~+/-]{20,}=*)"), 1),
    # The key may end an identifier (DB_PASSWORD, PGPASSWORD, MY_API_KEY).
    ("password", re.compile(rf"(?i:\b[A-Za-z0-9_]*?{_KEYWORD})[\"']?\s*[:=]\s*{_VALUE}"), 1),
)
# An AWS secret access key is 40 characters of base64 with no prefix. A bare 40-character token is
# only taken when it mixes upper case, lower case and a digit or ``/`` ``+``: a git SHA-1 (40 lower
# hex) or an upper-case hex digest never does.
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


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
    for kind, pattern, group in _RULES:
        text = pattern.sub(_replacer(kind, group, counts), text)
    text = _AWS_SECRET.sub(_aws_secret_replacer(counts), text)
    return Redaction(text, dict(counts))


def _replacer(kind: str, group: int, counts: Counter[str]):  # type: ignore[no-untyped-def]
    def replace(match: re.Match[str]) -> str:
        value = match.group(group)
        if PLACEHOLDER.fullmatch(value.strip("\"'")) or "[REDACTED:" in value:
            return match.group(0)  # already a placeholder (an earlier rule or an earlier pass)
        counts[kind] += 1
        start, end = match.span(group)
        whole = match.group(0)
        offset = match.start(0)
        return whole[: start - offset] + placeholder(kind) + whole[end - offset :]
    return replace


def _aws_secret_replacer(counts: Counter[str]):  # type: ignore[no-untyped-def]
    def replace(match: re.Match[str]) -> str:
        value = match.group(0)
        mixed = (any(c.isupper() for c in value) and any(c.islower() for c in value)
                 and any(c.isdigit() or c in "/+" for c in value))
        if not mixed:
            return value
        counts["aws-secret-key"] += 1
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

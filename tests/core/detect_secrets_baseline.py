"""Yelp's detect-secrets as a redactor, the baseline graphmem's own shapes are measured against.

docs/security.md ("Redaction figures") gives both on the same corpora. Combined with graphmem's
shapes it found no secret they missed and made redaction four times slower (0.21 s against 0.05 s
for 50,000 characters), so it is not a runtime dependency; the tests keep the comparison honest.

detect-secrets' ad-hoc entry point (``scan_line``) turns on "eager search", which takes every word of
a line as a candidate (on the corpus it altered 53 of 53 look-alikes), and it reads global settings.
So the plugins are built here once, with their default limits, and called line by line with the
library's own heuristic filters (ids, UUIDs, templates, sequences, indirect references). No file is
read: the text is scanned in memory, which keeps graphmem.core free of I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

__all__ = ["redact_with_detect_secrets", "scan_secrets"]

_FILENAME = "memory.txt"  # detect-secrets picks its keyword regexes by extension; plain text is the strictest
_MAX_LINE = 4_000  # longer lines are scanned in windows: the plugins' regexes are not all linear in a line


@cache
def _plugins() -> tuple[Any, ...]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    # A public IPv4 address is no credential, and a quoted hex string is as often a digest as a key:
    # docs/security.md promises that SHA-1/SHA-256/MD5 digests survive.
    skipped = ("Public IP (ipv4)", "Hex High Entropy String")
    return tuple(cls() for name, cls in get_mapping_from_secret_type_to_class().items() if name not in skipped)


def _filtered(secret: str, line: str, plugin: Any) -> bool:
    from detect_secrets.filters import heuristic

    return bool(heuristic.is_sequential_string(secret) or heuristic.is_potential_uuid(secret)
                or heuristic.is_likely_id_string(secret, line, plugin) or heuristic.is_templated_secret(secret)
                or heuristic.is_prefixed_with_dollar_sign(secret) or heuristic.is_indirect_reference(line)
                or heuristic.is_not_alphanumeric_string(secret))


def _windows(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if len(line) <= _MAX_LINE:
            yield line
            continue
        for start in range(0, len(line), _MAX_LINE // 2):  # overlapping halves: a secret on a seam is seen whole
            yield line[start: start + _MAX_LINE]


def _kind(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def redact_with_detect_secrets(text: str) -> str:
    """``text`` with every value detect-secrets finds replaced, longest first."""
    found = scan_secrets(text)
    for value in sorted(found, key=len, reverse=True):
        text = text.replace(value, f"[REDACTED:{found[value]}]")
    return text


def scan_secrets(text: str) -> dict[str, str]:
    """Secret value → placeholder kind, for every secret detect-secrets finds in ``text``.

    >>> scan_secrets("token = 'MTAxNTc2NzQxMjE4MDc5NzQ2OA.GhpLmN.aGVsbG8td29ybGQtdGhpcy1pcy1mYWtl'")
    {'MTAxNTc2NzQxMjE4MDc5NzQ2OA.GhpLmN.aGVsbG8td29ybGQtdGhpcy1pcy1mYWtl': 'discord-bot-token'}
    """
    found: dict[str, str] = {}
    for line in _windows(text):
        for plugin in _plugins():
            for secret in plugin.analyze_line(filename=_FILENAME, line=line, line_number=0):
                value = secret.secret_value
                if value and "[REDACTED:" not in value and not _filtered(value, line, plugin):
                    found.setdefault(value, _kind(secret.type))
    return found

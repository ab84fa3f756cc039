"""Is this assigned value a secret, or a placeholder, a reference or prose that only looks like one?

The ``key = value`` rules of secret_shapes.py see every ``password: …`` in text. On the outside
corpus (tests/data/redaction_outside_corpus.jsonl) 7 of 53 look-alikes were such assignments whose
value was no secret: ``api_key = None``, ``"<your-api-key>"``, ``YOUR_API_KEY_HERE``,
``${DB_PASSWORD}``, ``os.environ["DB_PASSWORD"]``, ``var.db_password``, and the sentence
"Password: must rotate every 90 days". These checks keep them; everything else assigned to a secret
name is taken, because a missed secret costs more than a redacted placeholder.
"""

from __future__ import annotations

import math
import re

__all__ = ["is_assigned_secret", "is_random_env_secret", "looks_generated", "looks_like_aws_secret",
           "looks_like_reference"]

_NOT_A_VALUE = frozenset({
    "none", "null", "nil", "true", "false", "undefined", "str", "string", "bytes", "int", "optional", "any",
    "secretstr", "required", "redacted", "hidden", "masked", "example", "placeholder", "changeit_placeholder",
})
_REFERENCE = re.compile(
    r"^(?:\$|%\(|\{\{|<[^>]*>$|\[REDACTED:)|os\.environ|os\.getenv|process\.env|getenv\(|env\(|secrets?\.|^var\.|^vault:"
    r"|^\*+$|^x{4,}$|^\.{3,}$", re.IGNORECASE)
_ENV_VAR_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # DB_PASSWORD, YOUR_API_KEY_HERE
_PLACEHOLDER_WORDS = re.compile(r"your[_ -]?|[_-]here\b|\bhere[_-]|replace[_-]?me|changeme", re.IGNORECASE)


def looks_like_reference(value: str) -> bool:
    """A value that names where a secret lives, or stands for one, rather than being it.

    >>> [looks_like_reference(v) for v in ("${DB_PASSWORD}", "<your-api-key>", "None", "hunter22")]
    [True, True, True, False]
    """
    bare = value.strip("\"'")
    return (not bare or bare.lower() in _NOT_A_VALUE or _REFERENCE.search(bare) is not None
            or _ENV_VAR_NAME.fullmatch(bare) is not None or _PLACEHOLDER_WORDS.search(bare) is not None)


def _is_prose(value: str, after: str) -> bool:
    # "Password: must rotate every 90 days": a lower-case word after a colon, with more words after it.
    return value.isalpha() and value.islower() and re.match(r" +[A-Za-z]", after) is not None


def is_assigned_secret(match: re.Match[str], group: int) -> bool:
    """The value assigned to a secret-named key is taken unless it is a reference, placeholder or prose."""
    value = match.group(group)
    after = match.string[match.end(): match.end() + 20]
    return not looks_like_reference(value) and not _is_prose(value.strip("\"'"), after)


def is_random_env_secret(match: re.Match[str], group: int) -> bool:
    """An upper-case ``…_KEY=`` / ``…_TOKEN=`` line: taken when its value looks generated, not chosen.

    ``PRIMARY_KEY=id`` or ``SORT_KEY=created_at`` are configuration; a generated key is at least 16
    characters, or at least 8 with a digit.
    """
    value = match.group(group).strip("\"'")
    generated = len(value) >= 16 or (len(value) >= 8 and any(c.isdigit() for c in value))
    return generated and is_assigned_secret(match, group)


def looks_like_aws_secret(value: str) -> bool:
    """A bare 40-character base64 token that is random enough to be an AWS secret access key.

    Random base64 of 40 characters holds about 7.5 digits or ``/ +`` (12 of 64 symbols); fewer than 3
    happens about once in 100 keys. A camelCase identifier of 40 characters
    (``getUserAccountSettingsByOrganizationId2X``) has one or two, and a hex digest has no upper case.

    >>> looks_like_aws_secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    True
    >>> looks_like_aws_secret("getUserAccountSettingsByOrganizationId2X")
    False
    """
    digits = sum(c.isdigit() or c in "/+" for c in value)
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and digits >= 3


def _entropy(value: str) -> float:
    counts = [value.count(c) for c in set(value)]
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts)


def looks_generated(value: str) -> bool:
    """A long token that mixes upper case, lower case and several digits, with high character entropy.

    This catches prefixed keys no shape names yet (``nfp_…``, ``figd_…``, ``sk.eyJ…``): on the hold-out
    corpus, formats written after the shapes, it raised recall from 0.17 to the figure in docs/security.md.
    Hex digests and UUIDs have no upper case, ULIDs no lower case, and a camelCase identifier rarely
    holds three digits; English-like text stays under 3.8 bits a character at these lengths.

    >>> looks_generated("nfp_Xk29dLq0Zr8WmB3vTnY7sHcE1uJ5aGfP")
    True
    >>> looks_generated("AbstractSingletonProxyFactoryBeanTestCase1")
    False
    """
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    return upper >= 2 and lower >= 2 and digits >= 3 and _entropy(value) >= 3.8

"""Recognize code identifiers inside single tokens and split them into their word parts.

One compiled alternation describes every identifier shape we keep whole. The tokenizer uses it as
``token_match`` (so "src/app/main.py" or "@scope/pkg" are not cut at the slash) and the extractor uses it to
classify each distinct token string once (results are cached by the caller, so no regex runs per token
occurrence).
"""

from __future__ import annotations

import re
from enum import IntEnum

__all__ = ["IDENTIFIER_RE", "TokenClass", "classify_token", "identifier_pieces", "is_brand_case", "url_host"]

_SEG = r"[\w@+~-]+(?:\.[\w@+~-]+)*"  # a path segment; never ends in "." so "see main.py." loses its period
_ROOT = r"(?:[A-Za-z]:[\\/]|\\\\|~/|\.\.?/|/)"
_VERSION_OP = r"(?:[<>]=?|[=!~]=|\^|~)"
_VERSION_NUM = r"v?\d+(?:\.\d+)*(?:\.\*)?"

_IDENTIFIER_PATTERNS = (
    rf"{_ROOT}{_SEG}(?:[/\\]{_SEG})*[/\\]?",  # rooted path: /etc/hosts, ./scripts/bench.py, ~/x, C:\x\y
    rf"{_SEG}(?:[/\\]{_SEG}){{2,}}[/\\]?(?:::[\w.]+)*",  # relative path with 2+ separators: src/app/main.py
    # (a pytest node id keeps its test: tests/orders/test_create.py::test_concurrent_create)
    rf"{_SEG}[/\\][\w@+~-]+\.[A-Za-z]\w*",  # one separator but a file name: app/main.py (not "and/or")
    r"@[\w-]+(?:\.[\w-]+)*/[\w.-]*\w",  # scoped package: @scope/pkg
    r"--?[A-Za-z][\w-]*(?:=[\w.:/@+-]*\w)?",  # CLI flags: --dry-run, -x, --out=dist
    r"#\d+",  # issue / pull request number
    r"\$\{?[A-Za-z_]\w*\}?",  # shell variable: $HOME, ${VAR}
    r"v\d+(?:\.\d+)*(?:[-+][\w.]*\w)?",  # v2, v2.3.1, v1.0.0-rc1
    r"\d+(?:\.\d+){2,}(?:[-+][\w.]*\w)?",  # 3.11.7 (a bare "3.11" is decided in context)
    rf"{_VERSION_OP}{_VERSION_NUM}(?:,{_VERSION_OP}{_VERSION_NUM})*",  # >=1.2, ^1.2.3
    rf"[A-Za-z][\w.-]*{_VERSION_OP}{_VERSION_NUM}(?:,{_VERSION_OP}{_VERSION_NUM})*",  # spacy>=3.8,<4
    r"\.[A-Za-z]\w*(?:\.\w+)*",  # dotfile: .env, .gitignore
    r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+",  # dotted name: os.path.join, graphmem.core, main.py
    r"[A-Za-z][\w.-]*(?:::?[\w.-]*\w)+",  # colon-qualified: build:worker, std::vector
    r"(?=\w*_)(?=\w*[^\W_])\w+",  # snake_case, SCREAMING_SNAKE env vars, __init__
    r"[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*",  # lowerCamel: getUserById, iPhone
    r"[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*",  # UpperCamel: CamelCase, PostgreSQL
    r"[A-Z]{2,}[a-z]{2,}[A-Za-z0-9]*",  # acronym-led: HTTPServer (but not "APIs")
    r"[A-Za-z]+\d[A-Za-z\d]*|\d+[A-Za-z][A-Za-z\d]*",  # letters and digits: ipv6, ec2, 5xx
    r"[A-Z][A-Za-z0-9]*(?:-[A-Z0-9][A-Za-z0-9]*)+",  # header names: Idempotency-Key, X-Request-Id
    r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-\d[\w.]*",  # hyphen then digit: utf-8, gpt-4, x86-64
    r"[A-Za-z]\w*(?:\+\+|#)",  # C++, C#, F#
)
IDENTIFIER_RE = re.compile("|".join(f"(?:{pattern})" for pattern in _IDENTIFIER_PATTERNS))

# Numbers, including ordinals, measurements ("1st", "100ms", "2GB") and approximations ("~200"; a tilde version
# has dots: "~1.2"), which name no concept.
_NUMBER_RE = re.compile(
    r"~\d+|[+-]?\d[\d,_]*(?:\.\d+)?%?|\d+(?:\.\d+)?(?:st|nd|rd|th|x|k|m|b|ms|s|h|min|kb|mb|gb|tb|px|em|rem)",
    re.IGNORECASE,
)
_DECIMAL_RE = re.compile(r"\d+\.\d+")
# "U.S.", "Dr.", "Inc.": spaCy only leaves a period attached for known abbreviations, so such a token is a
# word ("U.S. Navy", "Apple Inc." are entities) and its period does not end the sentence.
_ABBREVIATION_RE = re.compile(r"(?:[A-Za-z]\.){2,}|[A-Za-z]+\.")
# Camel-case pieces: "HTTPServer" -> HTTP, Server; "getUserById" -> get, User, By, Id.
_ASCII_PIECE_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_UNICODE_PIECE_RE = re.compile(r"[^\W_]+")
_URL_HOST_RE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:www\.)?([^/?#:\s]+)", re.IGNORECASE)
# spaCy's ``like_url`` accepts "main.py" and "os.path.join" (".py" is a country TLD), so URLs need a scheme or
# "www.".
_URL_RE = re.compile(r"(?:[a-z][a-z0-9+.-]*://|www\.)\S+", re.IGNORECASE)


class TokenClass(IntEnum):
    """What a token is, as far as concept extraction cares."""

    SPACE = 0
    PUNCT = 1
    NUMBER = 2
    DECIMAL = 3  # "3.11": a version or a quantity, decided by its neighbours
    WORD = 4
    IDENTIFIER = 5
    URL = 6


def classify_token(text: str) -> TokenClass:
    """Classify one token's text.

    Parameters
    ----------
    text : str
        The token text.

    Returns
    -------
    TokenClass

    Examples
    --------
    >>> [classify_token(t).name for t in ["getUserById", "Stripe", "3.11", "1,000", "--", "Zürich"]]
    ['IDENTIFIER', 'WORD', 'DECIMAL', 'NUMBER', 'PUNCT', 'WORD']
    """
    if text.isspace():
        return TokenClass.SPACE
    if _URL_RE.fullmatch(text):
        return TokenClass.URL
    if text.isalpha() or _ABBREVIATION_RE.fullmatch(text) or _is_apostrophe_word(text):
        # Plain words can still be identifiers: "getUserById" and "PostgreSQL" are alphabetic.
        return TokenClass.IDENTIFIER if text.isascii() and IDENTIFIER_RE.fullmatch(text) else TokenClass.WORD
    # Order matters: "3.11" is a decimal before it is a number, "1,000" a number before an identifier.
    for pattern, token_class in _SYMBOLIC_CLASSES:
        if pattern.fullmatch(text):
            return token_class
    return TokenClass.PUNCT  # symbols and leftovers such as "and/or" or "10:30" separate concepts


_SYMBOLIC_CLASSES = (
    (_DECIMAL_RE, TokenClass.DECIMAL),
    (_NUMBER_RE, TokenClass.NUMBER),
    (IDENTIFIER_RE, TokenClass.IDENTIFIER),
)


def _is_apostrophe_word(text: str) -> bool:
    # "O'Reilly" is a name; "'s" and "n't" are clitics the stopword list handles.
    inner = text.replace("'", "").replace("’", "")
    return inner != text and inner.isalpha() and text[0].isalpha()


def identifier_pieces(text: str) -> list[tuple[str, int]]:
    """Split an identifier into its word pieces with their offsets inside ``text``.

    Parameters
    ----------
    text : str
        An identifier such as ``getUserById`` or ``os.path.join``.

    Returns
    -------
    list of (str, int)
        Each piece in its original case, with its start offset in ``text``. Filtering (stopwords, digits,
        single characters) and lemmatization are left to the caller.

    Examples
    --------
    >>> [piece for piece, _ in identifier_pieces("getUserById")]
    ['get', 'User', 'By', 'Id']
    >>> identifier_pieces("os.path.join")
    [('os', 0), ('path', 3), ('join', 8)]
    >>> [piece for piece, _ in identifier_pieces("HTTPServer_größe")]
    ['HTTPServer', 'größe']
    """
    if text.isascii():
        return [(match.group(), match.start()) for match in _ASCII_PIECE_RE.finditer(text)]
    # Camel-case rules are ASCII-only; for other scripts split at punctuation and underscores only.
    return [(match.group(), match.start()) for match in _UNICODE_PIECE_RE.finditer(text)]


# Product names written in camel case for branding, whose halves are English words, so no shape tells them from
# a compound code name ("PaymentIntent"); the acronym shapes (SQLite, GraphQL, iOS) need no list.
# fmt: off
_BRAND_NAMES = frozenset({
    "javascript", "typescript", "coffeescript", "github", "gitlab", "bitbucket", "opensearch", "tanstack",
    "pgbouncer", "youtube", "linkedin", "macbook", "wordpress", "powershell", "clickhouse", "playstation",
    "paypal", "dropbox", "airbnb", "openai", "chatgpt", "pagerduty", "datadog", "testflight", "firebase",
    "cloudflare", "cloudfront", "fastlane", "webpack", "devtools", "homebrew",
})
# fmt: on
_LETTER_PIECE_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def is_brand_case(text: str) -> bool:
    """Whether a camel-case token is one name rather than words joined in code.

    A name has at most two letter pieces and one of them is an acronym or a single letter (PostgreSQL,
    SQLite, GraphQL, DynamoDB, iOS, macOS, OAuth, UUIDv7), or it is a known brand (JavaScript, GitHub).

    Examples
    --------
    >>> [is_brand_case(t) for t in ["SQLite", "UUIDv7", "macOS", "OAuth", "JavaScript", "QueueWriter"]]
    [True, True, True, True, True, False]
    """
    if not text.isascii() or not text.isalnum():
        return False
    if text.lower() in _BRAND_NAMES:
        return True
    pieces = _LETTER_PIECE_RE.findall(text)
    return len(pieces) == 2 and any(len(p) == 1 or p.isupper() for p in pieces) and not text.isupper()


def url_host(url: str) -> str:
    """Return the host of a URL without ``www.``, e.g. ``github.com``.

    Examples
    --------
    >>> url_host("https://www.github.com/explosion/spaCy?tab=readme")
    'github.com'
    """
    match = _URL_HOST_RE.match(url)
    return match.group(1).lower() if match else ""

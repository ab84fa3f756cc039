"""Code identifiers survive tokenization whole and are split into their word parts."""

from __future__ import annotations

import pytest

from nlp import ConceptExtractor, normalize_key
from nlp.identifiers import TokenClass, classify_token, identifier_pieces

# (identifier as written, its parts). Stopwords ("get", "by"), digits and single letters are not parts.
IDENTIFIERS = [
    ("build_worker", ("build", "worker")),
    ("GRAPHMEM_DB", ("graphmem", "db")),
    ("getUserById", ("user", "id")),
    ("CamelCase", ("camel", "case")),
    ("os.path.join", ("os", "path", "join")),
    ("graphmem.core", ("graphmem", "core")),
    ("--dry-run", ("dry", "run")),
    ("-x", ()),
    ("src/app/main.py", ("src", "app", "main", "py", "main.py")),
    ("./scripts/bench.py", ("script", "bench", "py", "bench.py")),
    ("C:\\Users\\dev\\app", ("user", "dev", "app")),
    ("v2.3.1", ()),
    ("3.11", ()),
    (">=1.2", ()),
    ("spacy>=3.8", ("spacy",)),
    ("https://example.com/docs?page=2", ("example.com",)),
    ("Idempotency-Key", ("idempotency", "key")),
    ("@scope/pkg", ("scope", "pkg")),
    ("#123", ()),
    ("build:worker", ("build", "worker")),
]


# A compound name made only of words is the concept its words spell, so code and prose share one node.
SPELLED = {
    "build_worker": "build worker", "GRAPHMEM_DB": "graphmem db", "CamelCase": "camel case",
    "Idempotency-Key": "idempotency key",
}


@pytest.mark.parametrize(("identifier", "parts"), IDENTIFIERS)
def test_identifier_is_one_concept_with_its_parts(
    extractor: ConceptExtractor, identifier: str, parts: tuple[str, ...]
) -> None:
    parsed = extractor.parse(f"Yesterday we saw {identifier} in the logs.")
    by_key = {mention.key: mention for mention in parsed.mentions}
    mention = by_key[SPELLED.get(identifier, normalize_key(identifier))]
    assert mention.kind == "identifier"
    assert mention.surface == identifier
    assert parsed.text[mention.start : mention.end] == identifier
    assert mention.parts == parts
    for part in parts:
        assert by_key[part].kind in {"part", "term", "identifier"}


@pytest.mark.parametrize(
    ("text", "identifier", "parts"),
    [
        ("Run npm run build:worker to rebuild it.", "npm run build:worker", ("npm", "build:worker")),
        ("Then python -m pytest failed.", "python -m pytest", ("python", "-m", "pytest")),
        ("kubectl get pods shows nothing", "kubectl get pods", ("kubectl", "pod")),
        ("The API answered HTTP 429 twice.", "http 429", ("http", "429")),
    ],
)
def test_multi_token_identifiers_are_one_concept(
    extractor: ConceptExtractor, text: str, identifier: str, parts: tuple[str, ...]
) -> None:
    by_key = {mention.key: mention for mention in extractor.parse(text).mentions}
    assert by_key[identifier].kind == "identifier"
    assert by_key[identifier].parts == parts


def test_a_command_stops_before_prose(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("Always run npm run build:worker to rebuild the worker.").keys()
    assert "npm run build:worker" in keys
    assert "build:worker" in keys
    assert not [key for key in keys if key.startswith("npm run build:worker ")]


@pytest.mark.parametrize("text", ["Make sure the cargo ship docks.", "Git is slow on big repos."])
def test_english_words_that_name_programs_are_not_commands(extractor: ConceptExtractor, text: str) -> None:
    assert all(mention.kind != "identifier" for mention in extractor.parse(text).mentions)


# Realistic observations and the identifiers each must yield whole, whatever punctuation surrounds them.
SAMPLES = [
    ("Fixed the crash in (src/app/main.py), see #123.", ["src/app/main.py", "#123"]),
    ("Set GRAPHMEM_DB=/tmp/x.db; then call graphmem.core.activate().", ["graphmem.core.activate"]),
    (
        'The "Idempotency-Key" header is required by api/v2/orders.py!',
        ["idempotency key", "api/v2/orders.py"],
    ),
    (
        "Pinned spacy>=3.8,<4 and numpy 1.26.4 in pyproject.toml.",
        ["spacy>=3.8,<4", "1.26.4", "pyproject.toml"],
    ),
    (
        "Use `getUserById` or user_repo.find_one(...) from @acme/db-client.",
        ["getUserById", "@acme/db-client"],
    ),
    (
        "Ran ./scripts/bench.py --dry-run -v against v2.3.1 on C:\\data\\run.",
        ["./scripts/bench.py", "--dry-run"],
    ),
    ("Docs at https://docs.example.com/a?b=1, mirror www.example.org.", ["https://docs.example.com/a?b=1"]),
    ("Retry on HTTP 503 from PaymentService.charge (issue #45).", ["PaymentService.charge", "#45"]),
]


@pytest.mark.parametrize(("text", "identifiers"), SAMPLES)
def test_every_identifier_in_an_observation_appears_whole(
    extractor: ConceptExtractor, text: str, identifiers: list[str]
) -> None:
    keys = set(extractor.parse(text).keys())
    for identifier in identifiers:
        assert normalize_key(identifier) in keys, identifier


def test_every_token_the_tokenizer_keeps_whole_is_classified_as_an_identifier(
    extractor: ConceptExtractor,
) -> None:
    for text, identifiers in SAMPLES:
        for identifier in identifiers:
            if " " not in identifier:
                assert classify_token(identifier) in {TokenClass.IDENTIFIER, TokenClass.URL}, identifier
        assert text  # the sample itself parses without error
        extractor.parse(text)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Stripe", TokenClass.WORD),
        ("O'Reilly", TokenClass.WORD),
        ("U.S.", TokenClass.WORD),
        ("1,000", TokenClass.NUMBER),
        ("100ms", TokenClass.NUMBER),
        ("3.5", TokenClass.DECIMAL),
        ("and/or", TokenClass.PUNCT),
        ("main.py", TokenClass.IDENTIFIER),
        ("Zürich", TokenClass.WORD),
    ],
)
def test_plain_words_and_numbers_are_not_identifiers(word: str, expected: TokenClass) -> None:
    assert classify_token(word) is expected


def test_camel_case_pieces_keep_acronyms_together() -> None:
    assert [piece for piece, _ in identifier_pieces("HTTPServerError")] == ["HTTP", "Server", "Error"]


def test_a_decimal_is_a_version_unless_it_is_a_quantity(extractor: ConceptExtractor) -> None:
    keys = extractor.parse("Upgraded to Python 3.11; it cost $3.5 million and 2.5 seconds.").keys()
    assert "3.11" in keys
    assert "3.5" not in keys
    assert "2.5" not in keys

"""Multi-token identifiers found with spaCy's ``Matcher``: CLI commands and HTTP status codes.

A command such as ``npm run build:worker`` is one concept made of several tokens, so the token-level
identifier rules cannot see it. The ``Matcher`` finds the shape in compiled code (the first token is a cheap
set lookup); stopword trimming, which the pattern language cannot express together with the shape, is done on
the few matches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from spacy.matcher import Matcher
from spacy.tokens import Doc
from spacy.vocab import Vocab

__all__ = ["MultiTokenIdentifier", "MultiTokenMatcher"]

# Programs whose name is rarely an English word, so any lower-case word after them is a subcommand.
_PROGRAMS = ["npm", "npx", "yarn", "pnpm", "pip", "pip3", "git", "docker", "kubectl", "uv"]
# "make sure" and "cargo ship" are English: these programs need a known subcommand or target.
# fmt: off
_CARGO_SUBCOMMANDS = [
    "build", "run", "test", "check", "add", "install", "publish", "fmt", "clippy", "bench", "doc", "update",
    "new", "init", "clean",
]
_MAKE_TARGETS = [
    "test", "tests", "build", "install", "clean", "all", "lint", "check", "run", "dev", "release", "docs",
    "format", "fmt", "bench", "deploy", "setup", "dist", "serve",
]
# fmt: on
# Real subcommands that happen to be spaCy stopwords ("kubectl get pods", "git show", "docker compose up").
_STOPWORD_COMMAND_WORDS = frozenset({"get", "show", "top", "up", "down", "call", "move"})

_SUBCOMMAND: dict[str, Any] = {"TEXT": {"REGEX": r"^[a-z][\w:.@/-]*$"}}
# The first argument may be a plain word ("pip install requests"); a second one must look like code (a flag, a
# path, a version), otherwise commands swallow the prose after them ("kubectl get pods shows nothing").
_ARGUMENT: dict[str, Any] = {
    "TEXT": {"REGEX": r"^(?:--?[A-Za-z][\w-]*(?:=\S+)?|[a-z0-9@.~/][\w:.@/+=<>~^-]*)$"},
    "OP": "?",
}
_CODE_ARGUMENT: dict[str, Any] = {
    "TEXT": {"REGEX": r"^(?=.*\w)(?:--?[A-Za-z][\w-]*(?:=\S+)?|[\w.@~/-]*[\d:./@=_<>~^][\w:.@/+=<>~^-]*)$"},
    "OP": "?",
}
_STATUS_CODE: dict[str, Any] = {"TEXT": {"REGEX": r"^[1-5]\d\d$"}}
_STATUS_WORDS = ["http", "https", "status"]
_PYTHONS = ["python", "python3"]
# Every pattern starts with one of these words, and is at most _LONGEST_PATTERN tokens long.
_TRIGGERS = frozenset([*_PROGRAMS, "cargo", "make", *_PYTHONS, *_STATUS_WORDS])
_LONGEST_PATTERN = 4


class MultiTokenIdentifier(NamedTuple):
    """A matched multi-token identifier as a token range ``[start, end)``."""

    start: int
    end: int
    is_command: bool


class MultiTokenMatcher:
    """Find commands and status codes in a Doc.

    Parameters
    ----------
    vocab : spacy.vocab.Vocab
        The vocabulary of the pipeline whose Docs will be matched.
    stop_words : frozenset of str
        Lower-cased stopwords; a command ends at the first stopword argument.
    """

    def __init__(self, vocab: Vocab, stop_words: frozenset[str]) -> None:
        self._stop_words = stop_words
        self._matcher = Matcher(vocab)
        self._matcher.add(
            "COMMAND",
            [
                [{"LOWER": {"IN": _PROGRAMS}}, _SUBCOMMAND, _ARGUMENT, _CODE_ARGUMENT],
                [{"LOWER": "cargo"}, {"LOWER": {"IN": _CARGO_SUBCOMMANDS}}, _ARGUMENT, _CODE_ARGUMENT],
                [{"LOWER": "make"}, {"LOWER": {"IN": _MAKE_TARGETS}}],
                [{"LOWER": "make"}, {"TEXT": {"REGEX": r"^[a-z][\w.-]*[:_-][\w:.-]+$"}}],
                [
                    {"LOWER": {"IN": _PYTHONS}},
                    {"ORTH": "-m"},
                    {"TEXT": {"REGEX": r"^[A-Za-z_][\w.]*$"}},
                    _CODE_ARGUMENT,
                ],
            ],
            greedy="LONGEST",
        )
        self._matcher.add("STATUS", [[{"LOWER": {"IN": _STATUS_WORDS}}, _STATUS_CODE]])
        self._command_id = vocab.strings["COMMAND"]

    def __call__(self, doc: Doc, lower_words: Sequence[str]) -> list[MultiTokenIdentifier]:
        """Return the non-overlapping matches in ``doc``, in token order.

        Parameters
        ----------
        doc : spacy.tokens.Doc
            The Doc to match.
        lower_words : sequence of str
            The lower-cased token texts of ``doc``. The Matcher only runs on a short window after each word
            that can start a pattern, since it evaluates its set predicates on every token it is given.
        """
        candidates = []
        for trigger in [index for index, word in enumerate(lower_words) if word in _TRIGGERS]:
            window = doc[trigger : trigger + _LONGEST_PATTERN]
            candidates.extend(
                (match_id, trigger, trigger + end)
                for match_id, start, end in self._matcher(window)
                if start == 0
            )
        found: list[MultiTokenIdentifier] = []
        for match_id, start, matched_end in sorted(candidates, key=lambda match: (match[1], -match[2])):
            if found and start < found[-1].end:
                continue  # a status code inside a command ("curl ... http 404") is not worth two concepts
            if match_id != self._command_id:
                found.append(MultiTokenIdentifier(start, matched_end, is_command=False))
                continue
            end = self._trim_command(lower_words, start, matched_end)
            if end - start >= 2:
                found.append(MultiTokenIdentifier(start, end, is_command=True))
        return found

    def _trim_command(self, lower_words: Sequence[str], start: int, end: int) -> int:
        """Cut a command before its first English stopword: "npm run build:worker to rebuild"."""
        for index in range(start + 1, end):
            lower = lower_words[index]
            if lower in self._stop_words and lower not in _STOPWORD_COMMAND_WORDS:
                return index
        return end

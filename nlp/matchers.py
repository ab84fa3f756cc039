"""Multi-token identifiers found with spaCy's ``Matcher``: CLI commands and HTTP status codes.

A command such as ``npm run build:worker`` is one concept made of several tokens, so the token-level
identifier rules cannot see it. The ``Matcher`` finds the *shape* ("npm" + up to three lower-case tokens,
"HTTP" + a three-digit number). Its patterns use only token attributes that it checks in compiled code;
``REGEX`` and ``IN`` predicates are Python calls per token and made it cost more than the rest of a parse.
What the pattern language cannot say cheaply (a subcommand is not "is", a second argument looks like code, a
status code starts with 1-5) is checked in Python on the few matches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from spacy.matcher import Matcher
from spacy.tokens import Doc
from spacy.vocab import Vocab

from nlp.token_info import TokenInfo

__all__ = ["LEXEME_ATTRIBUTES", "MultiTokenIdentifier", "MultiTokenMatcher"]

# The lexeme attributes the patterns below read, besides ORTH and LENGTH (every lexeme has those): the blank
# pipeline computes only these for a new word (nlp/pipeline.py).
LEXEME_ATTRIBUTES = frozenset({"LOWER", "IS_LOWER", "IS_DIGIT"})

# Programs whose name is rarely an English word, so any lower-case word after them is a subcommand.
_PROGRAMS = ("npm", "npx", "yarn", "pnpm", "pip", "pip3", "git", "docker", "kubectl", "uv")
# "make sure" and "cargo ship" are English: these programs need a known subcommand or target.
# fmt: off
_KNOWN_SUBCOMMANDS = {
    "cargo": frozenset({
        "build", "run", "test", "check", "add", "install", "publish", "fmt", "clippy", "bench", "doc",
        "update", "new", "init", "clean",
    }),
    "make": frozenset({
        "test", "tests", "build", "install", "clean", "all", "lint", "check", "run", "dev", "release", "docs",
        "format", "fmt", "bench", "deploy", "setup", "dist", "serve",
    }),
}
# fmt: on
_PYTHONS = ("python", "python3")
_STATUS_WORDS = ("http", "https", "status")
_TRIGGERS = frozenset([*_PROGRAMS, *_KNOWN_SUBCOMMANDS, *_PYTHONS, *_STATUS_WORDS])
# Real subcommands that happen to be spaCy stopwords ("kubectl get pods", "git show", "docker compose up").
_STOPWORD_COMMAND_WORDS = frozenset({"get", "show", "top", "up", "down", "call", "move"})
# A make target such as "test-unit" or "build:docker" is unambiguous even when not in the known list.
_CODE_PUNCTUATION_RE = re.compile(r"[:_./=@-]")
# The first argument may be a plain word ("pip install requests"); a second one must look like code (a flag, a
# path, a version), otherwise commands swallow the prose after them ("kubectl get pods shows nothing").
_CODE_ARGUMENT_RE = re.compile(r"--?[a-z].*|.*[\d:./@=_<>~^].*")

_LONGEST_PATTERN = 4
_LOWER_WORD: dict[str, Any] = {"IS_LOWER": True}
_OPTIONAL_LOWER_WORD: dict[str, Any] = {"IS_LOWER": True, "OP": "?"}
_LOWER_KEY = attrgetter("lower_key")


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
        commands: list[list[dict[str, Any]]] = [
            [{"LOWER": program}, _LOWER_WORD, _OPTIONAL_LOWER_WORD, _OPTIONAL_LOWER_WORD]
            for program in (*_PROGRAMS, *_KNOWN_SUBCOMMANDS)
        ]
        commands += [
            [{"LOWER": python}, {"ORTH": "-m"}, _LOWER_WORD, _OPTIONAL_LOWER_WORD] for python in _PYTHONS
        ]
        self._matcher.add("COMMAND", commands, greedy="LONGEST")
        status: list[list[dict[str, Any]]] = [
            [{"LOWER": word}, {"IS_DIGIT": True, "LENGTH": 3}] for word in _STATUS_WORDS]
        self._matcher.add("STATUS", status)
        self._command_id = vocab.strings["COMMAND"]

    def __call__(self, doc: Doc, infos: Sequence[TokenInfo]) -> list[MultiTokenIdentifier]:
        """Return the non-overlapping matches in ``doc``, in token order.

        Parameters
        ----------
        doc : spacy.tokens.Doc
            The Doc to match.
        infos : sequence of TokenInfo
            The facts of each token of ``doc``; the Matcher is skipped when no token can start a pattern
            (most texts).
        """
        if _TRIGGERS.isdisjoint(map(_LOWER_KEY, infos)):
            return []
        words = list(map(_LOWER_KEY, infos))
        # The Matcher builds a Token object per token it scans, so it only sees a short window after each
        # trigger; the window starts at the trigger, and so must every match.
        candidates = [
            (match_id, trigger, trigger + end)
            for trigger, word in enumerate(words)
            if word in _TRIGGERS
            for match_id, start, end in self._matcher(doc[trigger : trigger + _LONGEST_PATTERN])
            if start == 0
        ]
        found: list[MultiTokenIdentifier] = []
        for match_id, start, matched_end in sorted(candidates, key=lambda match: (match[1], -match[2])):
            if found and start < found[-1].end:
                continue  # a status code inside a command ("curl ... http 404") is not worth two concepts
            end = self._validate(words, start, matched_end, is_command=match_id == self._command_id)
            if end - start >= 2:
                found.append(MultiTokenIdentifier(start, end, is_command=match_id == self._command_id))
        return found

    def _validate(self, words: list[str], start: int, end: int, *, is_command: bool) -> int:
        """Return where the identifier really ends, or ``start`` when the shape was a false alarm."""
        if not is_command:
            return end if words[end - 1][0] in "12345" else start
        program = words[start]
        first = start + 2 if program in _PYTHONS else start + 1  # the subcommand, or the module after "-m"
        if not self._is_subcommand(program, words[first]):
            return start
        # A module takes no plain-word argument ("python -m pytest failed"); a subcommand takes one.
        plain_allowed = first if program in _PYTHONS else first + 1
        for index in range(first + 1, end):
            word = words[index]
            if (word in self._stop_words and word not in _STOPWORD_COMMAND_WORDS) or (
                index > plain_allowed and not _CODE_ARGUMENT_RE.fullmatch(word)
            ):
                return index
        return end

    def _is_subcommand(self, program: str, word: str) -> bool:
        known = _KNOWN_SUBCOMMANDS.get(program)
        if known is not None:
            return word in known or bool(_CODE_PUNCTUATION_RE.search(word))
        return word not in self._stop_words or word in _STOPWORD_COMMAND_WORDS

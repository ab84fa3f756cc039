"""The literal strings every match of a regular expression contains, so a text without them is never searched.

Redaction runs 52 patterns over every text a client stores; most texts hold no credential, and a pattern that
opens with ``\\b`` or a class gets no literal scan from :mod:`re`, so each one walked the whole text (1.2 ms per
1 KB passage at load 6, docs/benchmarks.md). :func:`required_literals` reads a pattern's parse tree and
returns what any match must contain: each :data:`Needles` is a set of strings of which at least one occurs
in the match. :func:`may_match` is ``False`` only when a text lacks one of them, and then the pattern cannot
match it: skipping it gives the same result as running it.

The analysis is conservative: a literal counts only where the pattern cannot avoid it (a run of literal
characters in a part every match goes through, or one string from each alternative of an alternation that
every match goes through); an optional part, a class, a look-around or anything unknown counts as nothing.
A pattern it finds nothing in always runs.

Case-insensitive literals (``(?i:...)``) are compared with the text folded as :mod:`re` compares characters:
ASCII case, plus the four letters that ``re`` also takes for ASCII ones, ``İ ı ſ K`` (the ``re`` docs,
"IGNORECASE"); ``tests/core/test_required_literals.py`` checks this against every code point.

>>> required_literals(re.compile(r"\\bsk-ant-[A-Za-z0-9_-]{20,}"))
((frozenset({'sk-ant-'}), False),)
>>> may_match(required_literals(re.compile(r"\\bhv[sbr]\\.[A-Za-z0-9_-]{24,}")), "no vault here")
False
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["LiteralScreen", "Needles", "fold", "may_match", "required_literals"]

# The stdlib's own parser, the one re.compile reads (typeshed has no stub for it; the sre_parse alias is deprecated).
_parser: Any = importlib.import_module("re._parser")

Needles = tuple[frozenset[str], bool]  # one of these strings is in every match; True: compared case-insensitively

_REPEATS = {_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT}
# The non-ASCII letters re's IGNORECASE takes for ASCII ones; str.lower leaves ı and ſ alone and makes İ two
# characters, so they are mapped first.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def fold(text: str) -> str:
    """``text`` as case-insensitive needles are compared with it.

    >>> fold("PAſſWORD")
    'password'
    """
    return text.translate(_FOLD).lower()


def required_literals(pattern: re.Pattern[str]) -> tuple[Needles, ...]:
    """What every match of ``pattern`` contains (nothing known: an empty tuple, and the pattern always runs)."""
    try:
        tree = _parser.parse(pattern.pattern, pattern.flags)
        found = _sequence(list(tree), bool(pattern.flags & re.IGNORECASE))
    except Exception:  # a parser this code does not know: no pre-check, the pattern runs on every text
        return ()
    return tuple((frozenset(fold(s) for s in strings) if ignorecase else strings, ignorecase)
                 for strings, ignorecase in found)


def may_match(needles: Sequence[Needles], text: str, folded: str | None = None) -> bool:
    """Whether ``text`` holds one string of every needle set (``folded``: ``fold(text)``, when known)."""
    for strings, ignorecase in needles:
        haystack = text
        if ignorecase:
            folded = haystack = fold(text) if folded is None else folded
        if not any(string in haystack for string in strings):
            return False
    return True


class LiteralScreen:
    """:func:`may_match` for many patterns at once: which of them may match a text.

    A text is searched once for every needle string of every pattern (each string once, the case-insensitive
    ones in the text folded once), instead of once per pattern through :func:`may_match`'s loop; a pattern
    may match when each of its needle sets has a string in the text: the same answer, pattern by pattern.

    >>> patterns = (r"\\bsk-[a-z]+", r"(?i)token=\\w+", r"\\d+")
    >>> screen = LiteralScreen([required_literals(re.compile(pattern)) for pattern in patterns])
    >>> screen.candidates("TOKEN=abc and sk-live")
    [0, 1, 2]
    >>> screen.candidates("nothing here")
    [2]
    """

    def __init__(self, patterns: Sequence[Sequence[Needles]]) -> None:
        cased: dict[str, set[int]] = {}
        folded: dict[str, set[int]] = {}
        needs: list[frozenset[int]] = []
        number = 0
        for needles in patterns:
            ids = []
            for strings, ignorecase in needles:
                for string in strings:
                    (folded if ignorecase else cased).setdefault(string, set()).add(number)
                ids.append(number)
                number += 1
            needs.append(frozenset(ids))
        self._cased = tuple((string, frozenset(ids)) for string, ids in cased.items())
        self._folded = tuple((string, frozenset(ids)) for string, ids in folded.items())
        self._needs = tuple(needs)
        self._always = [index for index, ids in enumerate(needs) if not ids]

    def candidates(self, text: str) -> list[int]:
        """The indexes of the patterns that may match ``text`` (:func:`may_match` true), in order."""
        satisfied: set[int] = set()
        for string, ids in self._cased:
            if string in text:
                satisfied |= ids
        if self._folded:
            folded = fold(text)
            for string, ids in self._folded:
                if string in folded:
                    satisfied |= ids
        if not satisfied:
            return list(self._always)
        return [index for index, ids in enumerate(self._needs) if ids <= satisfied]


def _sequence(items: list[tuple[Any, Any]], ignorecase: bool) -> list[Needles]:
    """The needles of a sequence every match goes through: its literal runs and its required parts'."""
    found: list[Needles] = []
    run: list[str] = []
    for op, argument in [*items, (None, None)]:  # the sentinel closes the last run
        if op is _parser.LITERAL:
            run.append(chr(argument))
            continue
        if run:
            found.append((frozenset({"".join(run)}), ignorecase))
            run = []
        if op is _parser.SUBPATTERN:
            _group, add_flags, del_flags, inner = argument
            inner_case = (ignorecase or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
            found.extend(_sequence(list(inner), inner_case))
        elif op is _parser.BRANCH:
            found.extend(_branch(argument[1], ignorecase))
        elif op in _REPEATS and argument[0] >= 1:  # at least once: its content is required
            found.extend(_sequence(list(argument[2]), ignorecase))
    return found


def _branch(alternatives: list[Any], ignorecase: bool) -> list[Needles]:
    """One string from each alternative (its most selective needle set), or nothing if one has none."""
    strings: set[str] = set()
    cases: set[bool] = set()
    for alternative in alternatives:
        needles = _sequence(list(alternative), ignorecase)
        if not needles:
            return []
        best_strings, best_case = max(needles, key=lambda needle: min(map(len, needle[0])))
        strings |= best_strings
        cases.add(best_case)
    return [(frozenset(strings), cases.pop())] if len(cases) == 1 else []

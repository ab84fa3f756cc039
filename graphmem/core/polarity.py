"""Claim signals in text: the polarity of a clause, the values attached to a concept, the outcome.

These are the surface cues conflict detection compares between two memories that share concepts.
They are deliberately lexical and explainable (every signal can be quoted back in a reason), and
they work on character offsets so the caller can point them at the concepts its own parser found.

Polarity is read from the nearest cue *before* a concept in its clause ("never use X"), or, when
there is none, from a cue right after it ("X is not supported"). Adjacent cues combine by product,
so "do not use" is negative and "never disable" is positive; a run of cues is broken by punctuation
or by a concept in between, so "use Postgres, not MySQL" keeps Postgres positive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["CUE_WORDS", "Cue", "find_cues", "outcome_of", "polarity_at", "values_near"]

_NEGATIVE = (
    r"do\s+not|does\s+not|did\s+not|don['’]?t|doesn['’]?t|didn['’]?t|never|must\s+not|mustn['’]?t|"
    r"should\s+not|shouldn['’]?t|cannot|can['’]?t|won['’]?t|will\s+not|no\s+longer|not|no|"
    r"avoid(?:s|ed|ing)?|disabl(?:e|es|ed|ing)|stop(?:ped)?\s+using|turn(?:ed)?\s+off|forbid(?:den)?|"
    r"ban(?:ned)?|drop(?:ped)?|remov(?:e|ed|es)|deprecat(?:e|ed)|against|instead\s+of|rather\s+than"
)
_POSITIVE = (
    r"always|must|should|use[sd]?|using|enabl(?:e|es|ed|ing)|prefer(?:s|red)?|requir(?:e|es|ed)|"
    r"recommend(?:s|ed)?|adopt(?:s|ed)?|choose|chose|chosen|pick(?:ed)?|switch(?:ed)?\s+to|"
    r"turn(?:ed)?\s+on|keep|stick\s+with|go\s+with|went\s+with|standardi[sz]e(?:d)?\s+on"
)
_CUE = re.compile(rf"\b(?:(?P<neg>{_NEGATIVE})|(?P<pos>{_POSITIVE}))\b", re.IGNORECASE)
# A clause ends at sentence punctuation (not the dots inside 2.3.1), a semicolon, a newline or "but".
_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|\n|\bbut\b|\bhowever\b", re.IGNORECASE)
_WORD = re.compile(r"\S+")
_RUN_GAP_WORDS = 2  # "should (really) not use": cues this close act as one
_AFTER_WORDS = 3  # "X is not supported": a following cue counts only this close

_SUCCESS = re.compile(r"\b(?:succeed(?:s|ed)?|success(?:ful(?:ly)?)?|works?|worked|working|fixed|fixes|"
                      r"resolved|solved|pass(?:es|ed))\b", re.IGNORECASE)
_FAILURE = re.compile(r"\b(?:fail(?:s|ed|ure|ing)?|broke|broken|breaks|crash(?:es|ed)?|errors?|"
                      r"timed?\s+out|regress(?:ion|ed)?|(?:does|do|did)\s*n[o']?[t’]?\s+work|"
                      r"not\s+working)\b",
                      re.IGNORECASE)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b")
_VALUE = re.compile(r"(?<![\w.])v?(\d+(?:[.,]\d+)*)(?:\s?(%|ms|s|sec|min|h|d|kb|mb|gb|tb|x)\b)?(?![\w.])",
                    re.IGNORECASE)
_VALUE_BEFORE_CHARS = 60  # "the rate limit is now 100": the value follows its subject within a clause
_VALUE_AFTER_CHARS = 20  # "100 requests": or the subject follows the value closely

# Concept keys that are themselves cue words: they carry the signal, they are not what a claim is about.
CUE_WORDS = frozenset({
    "use", "enable", "disable", "avoid", "always", "never", "fail", "failure", "succeed", "success", "work",
    "fix", "error", "prefer", "choose", "pick", "switch", "keep", "remove", "drop", "stop", "require",
    "recommend", "adopt", "break", "crash", "must", "should", "not", "instead", "turn", "deprecate",
})


@dataclass(frozen=True, slots=True)
class Cue:
    """A run of adjacent polarity cue words: its span, combined sign and text."""

    start: int
    end: int
    sign: int
    text: str


def find_cues(text: str, concept_offsets: Iterable[int] = ()) -> list[Cue]:
    """Polarity cues of ``text``, adjacent cues merged (sign = product) unless a concept or punctuation
    lies between them.

    >>> [(c.text, c.sign) for c in find_cues("Do not use X. Never disable TLS.")]
    [('Do not use', -1), ('Never disable', 1)]
    """
    offsets = sorted(concept_offsets)
    cues: list[Cue] = []
    for match in _CUE.finditer(text):
        sign = -1 if match.group("neg") else 1
        if cues and _joins(text, cues[-1].end, match.start(), offsets):
            last = cues[-1]
            cues[-1] = Cue(last.start, match.end(), last.sign * sign, text[last.start : match.end()])
        else:
            cues.append(Cue(match.start(), match.end(), sign, match.group(0)))
    return cues


def _joins(text: str, end: int, start: int, offsets: list[int]) -> bool:
    gap = text[end:start]
    if re.search(r"[,;:.!?()\n]", gap) or len(gap.split()) > _RUN_GAP_WORDS:
        return False
    return not any(end <= offset < start for offset in offsets)


def _clause(text: str, offset: int) -> tuple[int, int]:
    start, end = 0, len(text)
    for match in _CLAUSE_END.finditer(text):
        if match.end() <= offset:
            start = match.end()
        elif match.start() >= offset:
            end = match.start()
            break
    return start, end


def polarity_at(text: str, offset: int, cues: list[Cue]) -> tuple[int, Cue | None]:
    """The sign (+1, -1, or 0 when no cue applies) of the clause position ``offset`` and the deciding cue.

    >>> text = "Use Redis instead of Postgres for sessions"
    >>> cues = find_cues(text, [4, 21])
    >>> polarity_at(text, 4, cues)[0], polarity_at(text, 21, cues)[0]
    (1, -1)
    """
    start, end = _clause(text, offset)
    before = [cue for cue in cues if start <= cue.start and cue.end <= offset]
    if before:
        return before[-1].sign, before[-1]
    for cue in cues:
        if offset < cue.start < end and len(text[offset : cue.start].split()) <= _AFTER_WORDS \
                and "," not in text[offset : cue.start]:
            return cue.sign, cue
    return 0, None


def outcome_of(text: str) -> tuple[int, str | None]:
    """+1 when the text reports only success, -1 only failure, 0 otherwise; with the word that decided.

    >>> outcome_of("The deploy failed twice"), outcome_of("It doesn't work"), outcome_of("Deploy works")
    ((-1, 'failed'), (-1, "doesn't work"), (1, 'works'))
    """
    failure = _FAILURE.search(text)
    success = _SUCCESS.search(_FAILURE.sub(" ", text))
    if failure and not success:
        return -1, failure.group(0)
    if success and not failure:
        return 1, success.group(0)
    return 0, None


def values_near(text: str, offset: int) -> frozenset[str]:
    """Numbers and versions in the clause of ``offset`` close enough to belong to the concept there.

    >>> sorted(values_near("The API rate limit is 100 requests per minute", 8))
    ['100']
    """
    start, end = _clause(text, offset)
    clause = _DATE.sub(lambda m: " " * len(m.group(0)), text[start:end])
    found = set()
    for match in _VALUE.finditer(clause):
        position = start + match.start()
        if 0 <= position - offset <= _VALUE_BEFORE_CHARS or 0 < offset - position <= _VALUE_AFTER_CHARS:
            unit = (match.group(2) or "").casefold()
            found.add(match.group(1).replace(",", ".") + unit)
    return frozenset(found)

"""Claim signals in text: the polarity of a clause, its time order, the values attached to a concept,
the outcome.

These are the surface cues conflict detection compares between two memories that share concepts.
They are deliberately lexical and explainable (every signal can be quoted back in a reason), and
they work on character offsets so the caller can point them at the concepts its own parser found.

Polarity is read from the nearest cue at most :data:`_BEFORE_WORDS` words *before* a concept in its
clause ("never use X"), or, when there is none, from a cue right after it ("X is not supported").
Adjacent cues combine by product, so "do not use" is negative and "never disable" is positive; a run
of cues is broken by punctuation or by a concept in between, so "use Postgres, not MySQL" keeps
Postgres positive. Cues are *strong* (always, never, don't, avoid, enable, disable, instead of …) or
*weak* (use, must, not, no, cannot …): weak words are everywhere in descriptive text ("the job uses
X", "cannot read properties of undefined"), so a conflict needs a strong cue on at least one side.
Text inside backticks is code or an error message, not a stance, and carries no cues.

Measured on the labelled pairs of ``data/lifecycle_pairs.json`` over the 341-memory sample corpus
(full scan, 5 836 pairs compared): with every cue treated alike and no distance limit, the scan
returned over 500 candidates, ranked two of the three contradictions 6th and 17th and missed the
third; with strong/weak cues, the distance limit, the code-span mask, the same-subject rule of
``graphmem.core.conflicts`` and the before/after signal it returns 103, with the three at ranks 2, 3
and 8 (one of the six near-duplicates still appears: "never starve … of worker slots" against "always
get worker slots").
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["CUE_WORDS", "Cue", "clause_bounds", "find_cues", "order_at", "outcome_of", "polarity_at",
           "values_near"]

_STRONG_NEGATIVE = (
    r"do\s+not|does\s+not|did\s+not|don['’]?t|doesn['’]?t|didn['’]?t|never|must\s+not|mustn['’]?t|"
    r"should\s+not|shouldn['’]?t|won['’]?t|will\s+not|no\s+longer|avoid(?:s|ed|ing)?|disabl(?:e|es|ed|ing)|"
    r"stop(?:ped)?\s+using|turn(?:ed)?\s+off|forbid(?:den)?|ban(?:ned)?|deprecat(?:e|ed)|instead\s+of|"
    r"rather\s+than"
)
_WEAK_NEGATIVE = r"cannot|can['’]?t|not|no|drop(?:ped)?|remov(?:e|ed|es)|against"
_STRONG_POSITIVE = (
    r"always|enabl(?:e|es|ed|ing)|prefer(?:s|red)?|recommend(?:s|ed)?|adopt(?:s|ed)?|choose|chose|chosen|"
    r"switch(?:ed)?\s+to|turn(?:ed)?\s+on|stick\s+with|go\s+with|went\s+with|standardi[sz]e(?:d)?\s+on"
)
_WEAK_POSITIVE = r"must|should|use[sd]?|using|requir(?:e|es|ed)|keep|pick(?:ed)?"
# Negatives first: at one position "must not" has to win over "must", "no longer" over "no".
_CUE = re.compile(rf"\b(?:(?P<sneg>{_STRONG_NEGATIVE})|(?P<wneg>{_WEAK_NEGATIVE})"
                  rf"|(?P<spos>{_STRONG_POSITIVE})|(?P<wpos>{_WEAK_POSITIVE}))\b", re.IGNORECASE)
_ORDER = re.compile(r"\b(?:(?P<before>before|prior\s+to)|(?P<after>after|once))\b", re.IGNORECASE)
_CODE = re.compile(r"`[^`\n]*`")
# A clause ends at sentence punctuation (not the dots inside 2.3.1), a semicolon, a newline or "but".
_CLAUSE_END = re.compile(r"[.!?;](?=\s|$)|\n|\bbut\b|\bhowever\b", re.IGNORECASE)
_RUN_GAP_WORDS = 2  # "should (really) not use": cues this close act as one
_BEFORE_WORDS = 5  # "never wrap Alembic migration scripts": a cue governs the next few words only
_AFTER_WORDS = 3  # "X is not supported": a following cue counts only this close

_SUCCESS = re.compile(r"\b(?:succeed(?:s|ed)?|success(?:ful(?:ly)?)?|works?|worked|working|fixed|fixes|"
                      r"resolved|solved|pass(?:es|ed))\b", re.IGNORECASE)
_FAILURE = re.compile(r"\b(?:fail(?:s|ed|ure|ing)?|broke|broken|breaks|crash(?:es|ed)?|errors?|"
                      r"timed?\s+out|regress(?:ion|ed)?|(?:does|do|did)\s*n[o']?[t’]?\s+work|"
                      r"not\s+working)\b", re.IGNORECASE)
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b")
_VALUE = re.compile(r"(?<![\w.])v?(\d+(?:[.,]\d+)*)(?:\s?(%|ms|s|sec|min|h|d|kb|mb|gb|tb|x)\b)?(?![\w.])",
                    re.IGNORECASE)
# "the rate limit is now 100": a value belongs to a concept it follows within a few words, or that it
# directly precedes ("100 requests").
_VALUE_AFTER_WORDS = 3
_VALUE_BEFORE_WORDS = 1

# Concept keys that are themselves cue words: they carry the signal, they are not what a claim is about.
CUE_WORDS = frozenset({
    "use", "enable", "disable", "avoid", "always", "never", "fail", "failure", "succeed", "success", "work",
    "fix", "error", "prefer", "choose", "pick", "switch", "keep", "remove", "drop", "stop", "require",
    "recommend", "adopt", "break", "crash", "must", "should", "not", "instead", "turn", "deprecate",
    "before", "after",
})


@dataclass(frozen=True, slots=True)
class Cue:
    """A run of adjacent polarity cue words: its span, combined sign, text and whether one is strong."""

    start: int
    end: int
    sign: int
    text: str
    strong: bool = True


def _masked(text: str) -> str:
    """``text`` with code spans blanked (same length, so offsets still match)."""
    return _CODE.sub(lambda match: " " * len(match.group(0)), text)


def find_cues(text: str, concept_offsets: Iterable[int] = ()) -> list[Cue]:
    """Polarity cues of ``text`` outside code spans, adjacent cues merged (sign = product) unless a
    concept or punctuation lies between them.

    >>> [(c.text, c.sign, c.strong) for c in find_cues("Do not use X. Never disable TLS. It uses `no` Y")]
    [('Do not use', -1, True), ('Never disable', 1, True), ('uses', 1, False)]
    """
    return list(_cues(text, tuple(sorted(concept_offsets))))


@lru_cache(maxsize=1024)
def _cues(text: str, offsets: tuple[int, ...]) -> tuple[Cue, ...]:
    cues: list[Cue] = []
    for match in _CUE.finditer(_masked(text)):
        sign = -1 if match.group("sneg") or match.group("wneg") else 1
        strong = bool(match.group("sneg") or match.group("spos"))
        if cues and _joins(text, cues[-1].end, match.start(), offsets):
            last = cues[-1]
            cues[-1] = Cue(last.start, match.end(), last.sign * sign, text[last.start : match.end()],
                           last.strong or strong)
        else:
            cues.append(Cue(match.start(), match.end(), sign, match.group(0), strong))
    return tuple(cues)


def _joins(text: str, end: int, start: int, offsets: tuple[int, ...]) -> bool:
    gap = text[end:start]
    if re.search(r"[,;:.!?()`\n]", gap) or len(gap.split()) > _RUN_GAP_WORDS:
        return False
    return not any(end <= offset < start for offset in offsets)


def clause_bounds(text: str, offset: int) -> tuple[int, int]:
    """The (start, end) of the clause containing ``offset``.

    >>> text = "Use Redis; never Postgres"
    >>> text[slice(*clause_bounds(text, 12))].strip()
    'never Postgres'
    """
    starts, ends = _clause_marks(text)
    # the last clause mark ending at or before offset, the first starting at or after it
    before = bisect.bisect_right(ends, offset) - 1
    after = bisect.bisect_left(starts, offset)
    return (ends[before] if before >= 0 else 0), (starts[after] if after < len(starts) else len(text))


@lru_cache(maxsize=1024)
def _clause_marks(text: str) -> tuple[list[int], list[int]]:
    """Start and end offsets of the clause marks of ``text`` (a scan compares one memory with dozens)."""
    marks = list(_CLAUSE_END.finditer(text))
    return [m.start() for m in marks], [m.end() for m in marks]


def polarity_at(text: str, offset: int, cues: list[Cue]) -> tuple[int, Cue | None]:
    """The sign (+1, -1, or 0 when no cue applies) of the concept at ``offset`` and the deciding cue.

    >>> text = "Use Redis instead of Postgres for sessions"
    >>> cues = find_cues(text, [4, 21])
    >>> polarity_at(text, 4, cues)[0], polarity_at(text, 21, cues)[0]
    (1, -1)
    """
    start, end = clause_bounds(text, offset)
    before = [cue for cue in cues if start <= cue.start and cue.end <= offset]
    if before:
        nearest = before[-1]
        if len(text[nearest.end : offset].split()) <= _BEFORE_WORDS:
            return nearest.sign, nearest
        return 0, None
    for cue in cues:
        if offset < cue.start < end and len(text[offset : cue.start].split()) <= _AFTER_WORDS \
                and "," not in text[offset : cue.start]:
            return cue.sign, cue
    return 0, None


def order_at(text: str, offset: int) -> tuple[int, str | None]:
    """+1 when the concept at ``offset`` is followed in its clause by "before …", -1 by "after …".

    >>> order_at("Commit offsets before processing the batch", 7)
    (1, 'before')
    """
    _, end = clause_bounds(text, offset)
    for match in _ORDER.finditer(_masked(text), offset, end):
        if len(text[offset : match.start()].split()) <= _BEFORE_WORDS:
            return (1 if match.group("before") else -1), match.group(0)
        break
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


def values_near(text: str, offset: int, key_words: int = 1) -> frozenset[str]:
    """Numbers and versions that belong to the concept at ``offset`` (``key_words`` words long): within
    a few words after it, or directly before it.

    >>> sorted(values_near("The API rate limit is 100 requests per minute", 8, 2))
    ['100']
    """
    start, end = clause_bounds(text, offset)
    clause = _DATE.sub(lambda m: " " * len(m.group(0)), text[start:end])
    found = set()
    for match in _VALUE.finditer(clause):
        position = start + match.start()
        if position >= offset:
            close = len(text[offset:position].split()) - key_words <= _VALUE_AFTER_WORDS
        else:
            close = len(text[start + match.end() : offset].split()) <= _VALUE_BEFORE_WORDS
        if close:
            found.add(match.group(1).replace(",", ".") + (match.group(2) or "").casefold())
    return frozenset(found)

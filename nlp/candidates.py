"""Turn a Doc's token facts into concept occurrences: terms, phrases, names, identifiers and their parts."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from nlp.doc_view import DocView
from nlp.identifiers import TokenClass
from nlp.matchers import MultiTokenIdentifier
from nlp.names import NameSpan, find_names
from nlp.normalize import normalize_key
from nlp.phrases import find_phrase_runs, sub_phrases
from nlp.salience import Occurrence

__all__ = ["find_occurrences"]

_IDENTIFIER_CLASSES = frozenset({TokenClass.IDENTIFIER, TokenClass.URL})
_CURRENCY = frozenset("$€£¥")
# A bare "3.5" followed by one of these is a quantity, not a version.
# fmt: off
_QUANTITY_WORDS = frozenset({
    "%", "million", "billion", "trillion", "thousand", "hundred", "percent", "times", "x", "ms", "s", "sec",
    "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "year", "years", "km", "kg",
    "mb", "gb", "kb", "tb", "point", "points", "per",
})
# fmt: on
_MAX_TITLE_TOKENS = 12  # a longer first line is a sentence that lacks its period, not a title
_TITLE_BREAKERS = frozenset(".!?:;,")
_ENUMERATION_RE = re.compile(r"\d+[.)]\s")
_ACRONYM_PLURAL_RE = re.compile(r"[A-Z]{2,}s")


def find_occurrences(
    view: DocView,
    multi_token: Sequence[MultiTokenIdentifier],
    *,
    max_phrase_words: int,
    model_phrases: Iterable[tuple[int, ...]] = (),
    model_names: Iterable[NameSpan] = (),
) -> list[Occurrence]:
    """Collect every concept occurrence in one Doc.

    Parameters
    ----------
    view : DocView
        The Doc's token facts; ``blocked`` and ``term_keys`` are filled in here.
    multi_token : sequence of MultiTokenIdentifier
        Commands and status codes found by the matcher.
    max_phrase_words : int
        Longest rule-based phrase.
    model_phrases, model_names : iterables
        Extra phrase runs and name spans from a trained pipeline (noun chunks, entities).

    Returns
    -------
    list of Occurrence
        Unmerged; :func:`nlp.salience.aggregate_mentions` merges them by key.
    """
    view.blocked = {index for match in multi_token for index in range(match.start, match.end)}
    _keep_hyphenated_participles(view)
    title_end = _title_line_end(view)
    names = [*find_names(view, leading_topic=title_end < 0), *model_names]
    occurrences = _name_occurrences(view, names)
    named_spans = {(name.first, name.last) for name in names}
    runs = dict.fromkeys([*find_phrase_runs(view), *model_phrases])
    heads = {run[-1] for run in runs if (run[0], run[-1]) not in named_spans}
    phrases = dict.fromkeys(phrase for run in runs for phrase in sub_phrases(run, max_phrase_words))
    name_of = {index: name for name in names if len(name.words) > 1 for index in name.words}
    for words in phrases:
        if (words[0], words[-1]) not in named_spans and not _cuts_a_name(words, name_of):
            occurrences.append(_phrase_occurrence(view, words))
    occurrences.extend(_token_occurrences(view, heads))
    for match in multi_token:
        occurrences.extend(_multi_token_occurrences(view, match))
    if title_end >= 0:
        occurrences = _with_title(view, occurrences, title_end)
    return occurrences


def _is_plural_noun(view: DocView, index: int) -> bool:
    """A one-word name that is a regular plural the tables know ("Deployments", "Secrets", "DAGs" in a
    heading) is the noun, so it meets its singular instead of becoming a near-duplicate node."""
    info = view.infos[index]
    return info.key == info.lower_key[:-1] or bool(_ACRONYM_PLURAL_RE.fullmatch(info.text))


def _keep_hyphenated_participles(view: DocView) -> None:
    """A participle closing a hyphenated modifier ("zebra-striped", "London-based") keeps its spelling.

    The modifier is an adjective, and the lemma would turn "zebra-striped rug" into "stripe", which joins it to
    Stripe the brand.
    """
    for index, info in enumerate(view.infos):
        if info.is_participle and index > 1 and view.joined_by_hyphen(index - 1):
            view.term_keys[index] = info.lower_key


def _name_occurrences(view: DocView, names: Sequence[NameSpan]) -> list[Occurrence]:
    # Words inside names keep their surface form: "United States" must not become "unite state".
    for name in names:
        for index in name.words if len(name.words) > 1 or not _is_plural_noun(view, name.first) else ():
            info = view.infos[index]
            if info.cls is TokenClass.WORD and not _ACRONYM_PLURAL_RE.fullmatch(info.text):
                view.term_keys[index] = info.lower_key  # "DAGs" in "Daily DAGs" stays the plural of "dag"
    occurrences = []
    for name in names:
        surface = view.surface(name.first, name.last)
        key = normalize_key(surface)
        if name.first == name.last and (
            view.infos[name.first].cls is TokenClass.IDENTIFIER or _is_plural_noun(view, name.first)
        ):
            key = view.term_keys[name.first]  # "QueueWriter" is "queue writer" in code and prose
        parts = tuple(dict.fromkeys(view.term_keys[index] for index in name.words))
        occurrences.append(
            Occurrence(
                key,
                surface,
                "entity",
                view.starts[name.first],
                view.end(name.last),
                view.sentences.ids[name.first],
                is_title=name.is_title,
                parts=parts,
            )
        )
    return occurrences


def _cuts_a_name(words: tuple[int, ...], name_of: dict[int, NameSpan]) -> bool:
    """Whether a phrase holds only part of a multi-word name ("engineer Gustave" of "Gustave Eiffel")."""
    first, last = words[0], words[-1]
    return any(
        name.first < first or name.last > last for name in (name_of.get(index) for index in words) if name
    )


def _phrase_occurrence(view: DocView, words: tuple[int, ...]) -> Occurrence:
    keys = [view.term_keys[index] for index in words]
    return Occurrence(
        " ".join(keys),
        view.surface(words[0], words[-1]),
        "phrase",
        view.starts[words[0]],
        view.end(words[-1]),
        view.sentences.ids[words[0]],
        parts=tuple(dict.fromkeys(keys)),
    )


def _token_occurrences(view: DocView, heads: set[int]) -> list[Occurrence]:
    """Terms, single-token identifiers and identifier parts, in one pass (the hot loop of every parse)."""
    occurrences = []
    term_keys, starts, sentence_ids = view.term_keys, view.starts, view.sentences.ids
    for index, info in enumerate(view.infos):
        start, sentence = starts[index], sentence_ids[index]
        end = start + len(info.text)
        if info.is_content and not info.is_participle:  # "-ed" forms modify phrases; no concept alone
            term_key = term_keys[index]
            if term_key != info.key and term_key.endswith("s") and info.key == term_key[:-1]:
                # A plural inside a longer name is still the noun: "Secrets" of "AWS Secrets Manager" is
                # "secret" (the name itself keeps its spelling; a one-word name such as "Wales" is untouched).
                term_key = info.key
            term = Occurrence(term_key, info.text, "term", start, end, sentence, index in heads)
            occurrences.append(term)
        elif info.cls in _IDENTIFIER_CLASSES or (info.cls is TokenClass.DECIMAL and _is_version(view, index)):
            identifier = Occurrence(
                info.key, info.text, "identifier", start, end, sentence, parts=info.part_keys
            )
            occurrences.append(identifier)
            phrase_key = _identifier_phrase(info.text, info.part_keys)
            if phrase_key and phrase_key != info.key:
                occurrences.append(Occurrence(phrase_key, info.text, "phrase", start, end, sentence,
                                              parts=info.part_keys))
            for key, surface, offset in info.parts:
                part_start = start + offset
                part_end = part_start + len(surface)
                occurrences.append(Occurrence(key, surface, "part", part_start, part_end, sentence))
    return occurrences


def _identifier_phrase(text: str, part_keys: tuple[str, ...]) -> str | None:
    """The words of a compound name as a phrase: ``idempotency_keys`` and ``Idempotency-Key`` both
    also mention "idempotency key", so code and prose about one thing share a concept.

    Only for names made of 2–4 plain words (snake_case, kebab-case, CamelCase); paths, dotted
    names and URLs are addresses, not phrases.
    """
    if not 2 <= len(part_keys) <= 4 or any(ch in text for ch in "/.:@\\"):
        return None
    if not all(part.isalpha() for part in part_keys):
        return None
    return " ".join(part_keys)


def _is_version(view: DocView, index: int) -> bool:
    """Decide whether a bare decimal such as "3.11" is a version ("Python 3.11") or a quantity ("$3.5")."""
    if index > 0 and view.infos[index - 1].text[-1] in _CURRENCY:
        return False
    following = view.infos[index + 1] if index + 1 < len(view.infos) else None
    return following is None or following.lower_key not in _QUANTITY_WORDS


def _multi_token_occurrences(view: DocView, match: MultiTokenIdentifier) -> list[Occurrence]:
    """The command or status code itself, plus numbers that only exist as its parts ("429" in "HTTP 429")."""
    surface = view.surface(match.start, match.end - 1)
    sentence = view.sentences.ids[match.start]
    occurrences = []
    parts: list[str] = []
    for index in range(match.start, match.end):
        info = view.infos[index]
        if info.is_content:
            parts.append(view.term_keys[index])
        elif info.cls in _IDENTIFIER_CLASSES or info.cls is TokenClass.DECIMAL:
            parts.append(info.key)
        elif info.cls is TokenClass.NUMBER and not match.is_command:
            parts.append(info.key)
            occurrences.append(
                Occurrence(info.key, info.text, "part", view.starts[index], view.end(index), sentence)
            )
    key = normalize_key(surface)
    occurrences.append(
        Occurrence(
            key,
            surface,
            "identifier",
            view.starts[match.start],
            view.end(match.end - 1),
            sentence,
            parts=tuple(dict.fromkeys(parts)),
        )
    )
    return occurrences


def _title_line_end(view: DocView) -> int:
    """Return the offset of the newline ending a title line, or -1 when the text does not start with one."""
    newline = view.text.find("\n")
    line = view.text[:newline].strip().lstrip("#").strip() if newline > 0 else ""
    # Bullets ("- item", "1. item") and sentences are not titles.
    if not line or not line[0].isalnum() or line[-1] in _TITLE_BREAKERS or _ENUMERATION_RE.match(line):
        return -1
    in_line = [info for start, info in zip(view.starts, view.infos, strict=True) if start < newline]
    tokens = sum(1 for info in in_line if info.cls is not TokenClass.SPACE)
    if not any(info.is_content or info.cls in _IDENTIFIER_CLASSES for info in in_line):
        return -1  # "0/" or "---" names nothing
    return newline if 0 < tokens <= _MAX_TITLE_TOKENS else -1


def _with_title(view: DocView, occurrences: list[Occurrence], title_end: int) -> list[Occurrence]:
    """Add the title line as an entity and give everything inside it title salience."""
    raw_line = view.text[:title_end]
    line = raw_line.strip().lstrip("#").strip()
    start = raw_line.find(line)
    inside = [occ._replace(is_title=True) for occ in occurrences if occ.start < title_end]
    key = normalize_key(line)
    parts = tuple(dict.fromkeys(occ.key for occ in inside if occ.kind != "part" and occ.key != key))
    title = Occurrence(key, line, "entity", start, start + len(line), 0, is_title=True, parts=parts)
    return [title, *inside, *(occ for occ in occurrences if occ.start >= title_end)]

"""Loading multi-hop QA sets (MuSiQue and HotpotQA shapes) into one normalized form.

Shapes accepted, detected per file from the content rather than the file name:

* corpus, MuSiQue shape: ``[{"title": ..., "text": ...}, ...]``
* corpus, HotpotQA shape: ``{title: [sentence, ...]}`` (a plain string value is accepted too)
* questions, MuSiQue shape:
  ``[{"id", "question", "paragraphs": [{"title", "paragraph_text", "is_supporting"}, ...]}]``
* questions, HotpotQA shape: ``[{"_id", "question", "supporting_facts": [[title, sentence_idx], ...]}]``

Gold sets are sets of *titles*, as the README defines the metrics.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BUILTIN_DATASETS = ("musique", "hotpotqa")


@dataclass(frozen=True, slots=True)
class Passage:
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    gold_titles: frozenset[str]


@dataclass(slots=True)
class Dataset:
    name: str
    passages: list[Passage]
    questions: list[Question]
    # Questions dropped while loading (no gold title at all), kept so a report can say so.
    dropped: list[str] = field(default_factory=list)

    @property
    def titles(self) -> set[str]:
        return {p.title for p in self.passages}

    def missing_gold(self) -> dict[str, list[str]]:
        """Question id -> gold titles that no passage in the corpus carries (unreachable gold)."""
        titles = self.titles
        out: dict[str, list[str]] = {}
        for q in self.questions:
            missing = sorted(t for t in q.gold_titles if t not in titles)
            if missing:
                out[q.id] = missing
        return out

    def limited(self, limit: int | None) -> Dataset:
        """The first ``limit`` questions over the *full* passage pool (the pool is what makes it hard)."""
        if limit is None or limit >= len(self.questions):
            return self
        return Dataset(self.name, self.passages, self.questions[:limit], self.dropped)


class DatasetFormatError(ValueError):
    """A file does not have one of the accepted shapes."""


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def _join_sentences(sentences: Iterable[str]) -> str:
    return " ".join(s.strip() for s in sentences if s and s.strip())


def parse_corpus(raw: Any, source: str = "corpus") -> list[Passage]:
    """Normalize a corpus in either shape into passages, deduplicated by (title, text), order kept."""
    passages: list[Passage] = []
    if isinstance(raw, dict):
        for title, body in raw.items():
            text = body if isinstance(body, str) else _join_sentences(body)
            passages.append(Passage(str(title), text))
    elif isinstance(raw, list):
        for i, item in enumerate(raw):
            if not isinstance(item, dict) or "title" not in item:
                raise DatasetFormatError(f"{source}: item {i} is not an object with a 'title'")
            text = item.get("text", item.get("paragraph_text"))
            if text is None:
                raise DatasetFormatError(f"{source}: item {i} has no 'text'")
            if not isinstance(text, str):
                text = _join_sentences(text)
            passages.append(Passage(str(item["title"]), text))
    else:
        raise DatasetFormatError(
            f"{source}: expected a list of {{title, text}} or a {{title: sentences}} object"
        )
    seen: set[tuple[str, str]] = set()
    unique: list[Passage] = []
    for p in passages:
        key = (p.title, p.text)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def _gold_titles(item: dict[str, Any], source: str, i: int) -> frozenset[str]:
    if "paragraphs" in item:
        return frozenset(str(p["title"]) for p in item["paragraphs"] if p.get("is_supporting"))
    if "supporting_facts" in item:
        return frozenset(str(fact[0]) for fact in item["supporting_facts"])
    raise DatasetFormatError(f"{source}: question {i} has neither 'paragraphs' nor 'supporting_facts'")


def parse_questions(raw: Any, source: str = "questions") -> tuple[list[Question], list[str]]:
    """Normalize questions in either shape. Returns (questions, ids dropped for having no gold title)."""
    if not isinstance(raw, list):
        raise DatasetFormatError(f"{source}: expected a list of question objects")
    questions: list[Question] = []
    dropped: list[str] = []
    seen_ids: set[str] = set()
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "question" not in item:
            raise DatasetFormatError(f"{source}: item {i} is not an object with a 'question'")
        qid = str(item.get("id", item.get("_id", i)))
        if qid in seen_ids:  # keep ids unique so per-question output can be joined across retrievers
            qid = f"{qid}#{i}"
        seen_ids.add(qid)
        gold = _gold_titles(item, source, i)
        if not gold:
            dropped.append(qid)
            continue
        questions.append(Question(qid, str(item["question"]), gold))
    return questions, dropped


def default_data_dir() -> Path:
    """``<repo>/../shared/eval/multihop``, resolved from this file (scripts/retrieval_eval/data.py)."""
    repo_root = Path(__file__).resolve().parents[2]
    return (repo_root / ".." / "shared" / "eval" / "multihop").resolve()


def load_files(corpus: str | Path, questions: str | Path, name: str | None = None) -> Dataset:
    corpus, questions = Path(corpus), Path(questions)
    passages = parse_corpus(_read_json(corpus), str(corpus))
    qs, dropped = parse_questions(_read_json(questions), str(questions))
    if dropped:
        print(f"warning: {questions}: dropped {len(dropped)} question(s) with no gold title", file=sys.stderr)
    return Dataset(name or questions.stem, passages, qs, dropped)


def load_dataset(
    name_or_paths: str | Path | Sequence[str | Path],
    data_dir: str | Path | None = None,
) -> Dataset:
    """Load a shipped set by name (``musique``/``hotpotqa``) or a ``(corpus, questions)`` pair of files.

    A shipped name resolves to ``<data_dir>/<name>_train.json`` and ``<data_dir>/<name>_train_corpus.json``;
    ``data_dir`` defaults to :func:`default_data_dir`. A single path to a questions file ``X.json`` is also
    accepted when ``X_corpus.json`` sits beside it.
    """
    if isinstance(name_or_paths, str | Path) and str(name_or_paths) in BUILTIN_DATASETS:
        name = str(name_or_paths)
        base = Path(data_dir) if data_dir is not None else default_data_dir()
        return load_files(base / f"{name}_train_corpus.json", base / f"{name}_train.json", name=name)
    if isinstance(name_or_paths, str | Path):
        qpath = Path(name_or_paths)
        cpath = qpath.with_name(f"{qpath.stem}_corpus{qpath.suffix}")
        if not (qpath.is_file() and cpath.is_file()):
            raise FileNotFoundError(
                f"{name_or_paths!r} is neither one of {BUILTIN_DATASETS} nor a questions file with a "
                f"sibling {cpath.name}"
            )
        return load_files(cpath, qpath)
    paths = list(name_or_paths)
    if len(paths) != 2:
        raise ValueError("pass a dataset name or a (corpus_path, questions_path) pair")
    return load_files(paths[0], paths[1])

"""Tests for the retrieval evaluation harness (scripts/eval_retrieval.py, scripts/retrieval_eval/)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

import eval_retrieval  # noqa: E402
from retrieval_eval import (  # noqa: E402
    BM25Baseline,
    Dataset,
    Passage,
    Question,
    Retriever,
    evaluate,
    format_table,
    load_dataset,
    query_tokens,
)
from retrieval_eval.bm25 import fts_query  # noqa: E402

PASSAGES = [
    Passage("Eiffel Tower", "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."),
    Passage("Gustave Eiffel", "He was a French civil engineer whose company built the tower."),
    Passage("Colosseum", "The Colosseum is an elliptical amphitheatre in the centre of Rome, Italy."),
]
QUESTIONS = [
    Question(
        "q1", "Who built the wrought-iron tower in Paris?", frozenset({"Eiffel Tower", "Gustave Eiffel"})
    ),
    Question("q2", "Where is the elliptical amphitheatre called the Colosseum?", frozenset({"Colosseum"})),
]


@pytest.fixture
def tiny() -> Dataset:
    return Dataset("tiny", list(PASSAGES), list(QUESTIONS))


class FixedRetriever:
    """Returns a canned ranking per question (duplicates included on purpose)."""

    name = "fixed"

    def __init__(self, rankings: dict[str, list[str]]) -> None:
        self.rankings = rankings
        self.indexed: list[Passage] = []

    def index(self, passages):
        self.indexed = list(passages)

    def retrieve(self, question: str, k: int) -> list[str]:
        return list(self.rankings[question])


class SetFixedRetriever(FixedRetriever):
    name = "composer"

    def __init__(self, rankings: dict[str, list[str]], sets: dict[str, list[str]]) -> None:
        super().__init__(rankings)
        self.sets = sets

    def retrieve_set(self, question: str) -> list[str]:
        return list(self.sets[question])


Q1, Q2 = QUESTIONS[0].question, QUESTIONS[1].question


def test_metric_math_exact(tiny: Dataset) -> None:
    # q1 gold {Eiffel Tower, Gustave Eiffel}; q2 gold {Colosseum}.
    fixed = FixedRetriever(
        {
            # the duplicate must not count twice
            Q1: ["Eiffel Tower", "Eiffel Tower", "Colosseum", "Gustave Eiffel"],
            Q2: ["Gustave Eiffel", "Colosseum"],
        }
    )
    res = evaluate(fixed, tiny, ks=(1, 2, 3, 10))
    m = res.metrics
    # q1 deduped ranking: [Eiffel Tower, Colosseum, Gustave Eiffel]
    assert m["R@1"] == pytest.approx((1 / 2 + 0) / 2)
    assert m["R@2"] == pytest.approx((1 / 2 + 1) / 2)
    assert m["R@3"] == pytest.approx((1 + 1) / 2)
    assert m["R@10"] == pytest.approx(1.0)  # k beyond the list length
    assert m["AR@1"] == 0.0
    assert m["AR@2"] == pytest.approx(0.5)  # only q2 complete
    assert m["AR@3"] == 1.0
    assert fixed.indexed == PASSAGES
    assert res.per_query[0].ranked == ["Eiffel Tower", "Colosseum", "Gustave Eiffel"]
    assert res.per_query[0].missed == []
    assert len(res.latencies_ms) == 2
    assert m["p95_ms"] >= m["p50_ms"] >= 0.0


def test_failing_retriever_scores_zero(tiny: Dataset) -> None:
    wrong = FixedRetriever({Q1: ["Nope", "Nada"], Q2: ["Eiffel Tower", "Gustave Eiffel"]})
    m = evaluate(wrong, tiny).metrics
    for key in ("R@2", "R@5", "R@10", "AR@2", "AR@5", "AR@10"):
        assert m[key] == 0.0, key


def test_bm25_ranks_obvious_match_first(tiny: Dataset) -> None:
    bm25 = BM25Baseline()
    assert isinstance(bm25, Retriever)
    bm25.index(tiny.passages)
    assert bm25.retrieve("elliptical amphitheatre in Rome", 3)[0] == "Colosseum"
    assert bm25.retrieve("French civil engineer", 1) == ["Gustave Eiffel"]
    # porter stemming: "engineers" matches "engineer"; a title-only word ("Gustave") is indexed too
    assert bm25.retrieve("engineers", 1) == ["Gustave Eiffel"]
    assert bm25.retrieve("Gustave", 3) == ["Gustave Eiffel"]
    # FTS5 syntax in the question must not raise; stopword-only questions give nothing
    assert bm25.retrieve('What is "NEAR" AND (OR) NOT tower*?', 3)[0] in {"Eiffel Tower", "Gustave Eiffel"}
    assert bm25.retrieve("what is it and who was there?", 3) == []
    res = evaluate(BM25Baseline(), tiny)
    assert res.metrics["AR@2"] == 1.0
    bm25.close()


def test_bm25_dedupes_titles_sharing_passages() -> None:
    passages = [
        Passage("Twin", "alpha beta gamma"),
        Passage("Twin", "alpha beta delta"),
        Passage("Other", "alpha epsilon"),
    ]
    bm25 = BM25Baseline()
    bm25.index(passages)
    assert bm25.retrieve("alpha beta", 2) == ["Twin", "Other"]


def test_query_tokens_drop_stopwords() -> None:
    assert query_tokens("What is the capital of France's neighbour, the_one?") == [
        "capital",
        "france",
        "neighbour",
        "one",
    ]
    assert fts_query("Who wrote Hamlet?") == '"wrote" OR "hamlet"'


def _write(path: Path, obj: object) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def _musique_files(tmp: Path) -> tuple[Path, Path]:
    corpus = [
        {"title": "A", "text": "alpha text"},
        {"title": "B", "text": "beta text"},
        {"title": "A", "text": "alpha text"},  # exact duplicate: dropped
        {"title": "A", "text": "another alpha passage"},  # same title, new text: kept
    ]
    questions = [
        {
            "id": "m1",
            "question": "alpha and beta?",
            "answer": "x",
            "paragraphs": [
                {"idx": 0, "title": "A", "paragraph_text": "alpha text", "is_supporting": True},
                {"idx": 1, "title": "B", "paragraph_text": "beta text", "is_supporting": True},
                {"idx": 2, "title": "C", "paragraph_text": "noise", "is_supporting": False},
            ],
        },
        {
            "id": "m2",
            "question": "nothing supports me",
            "paragraphs": [{"title": "B", "is_supporting": False}],
        },
    ]
    return _write(tmp / "musique_train_corpus.json", corpus), _write(tmp / "musique_train.json", questions)


def _hotpot_files(tmp: Path) -> tuple[Path, Path]:
    corpus = {"Alpha": ["Alpha is first.", " It has two sentences."], "Beta": ["Beta is second."]}
    questions = [
        {
            "_id": "h1",
            "question": "Which is first?",
            "answer": "Alpha",
            "supporting_facts": [["Alpha", 0], ["Alpha", 1], ["Beta", 0]],
        }
    ]
    return _write(tmp / "hotpotqa_train_corpus.json", corpus), _write(tmp / "hotpotqa_train.json", questions)


def test_load_musique_shape(tmp_path: Path) -> None:
    corpus, questions = _musique_files(tmp_path)
    ds = load_dataset((corpus, questions))
    assert ds.passages == [
        Passage("A", "alpha text"),
        Passage("B", "beta text"),
        Passage("A", "another alpha passage"),
    ]
    assert ds.questions == [Question("m1", "alpha and beta?", frozenset({"A", "B"}))]
    assert ds.dropped == ["m2"]
    assert ds.missing_gold() == {}
    by_name = load_dataset("musique", data_dir=tmp_path)
    assert by_name.name == "musique"
    assert by_name.questions == ds.questions


def test_load_hotpot_shape(tmp_path: Path) -> None:
    corpus, questions = _hotpot_files(tmp_path)
    ds = load_dataset((corpus, questions))
    assert ds.passages == [
        Passage("Alpha", "Alpha is first. It has two sentences."),
        Passage("Beta", "Beta is second."),
    ]
    assert ds.questions == [Question("h1", "Which is first?", frozenset({"Alpha", "Beta"}))]
    assert isinstance(ds.questions[0].gold_titles, frozenset)
    assert load_dataset("hotpotqa", data_dir=tmp_path).passages == ds.passages


def test_set_mode_compares_with_bm25_same_size(tiny: Dataset) -> None:
    composer = SetFixedRetriever(
        rankings={Q1: [], Q2: []},
        sets={Q1: ["Gustave Eiffel", "Gustave Eiffel"], Q2: ["Colosseum", "Eiffel Tower"]},
    )
    res = evaluate(composer, tiny)
    m = res.metrics
    assert m["mean_set_size"] == pytest.approx(1.5)  # sizes 1 (after dedupe) and 2
    assert m["AR@|set|"] == pytest.approx(0.5)  # q1 incomplete, q2 complete
    assert m["R@|set|"] == pytest.approx((1 / 2 + 1) / 2)
    # BM25 gets k = 1 on q1 (one of two gold) and k = 2 on q2 (only the Colosseum matches)
    assert [len(r.baseline_same_size or []) for r in res.per_query] == [1, 1]
    assert m["BM25 AR@|set|"] == pytest.approx(0.5)
    assert m["BM25 R@|set|"] == pytest.approx((1 / 2 + 1) / 2)
    assert m["R@2"] == 0.0  # its plain ranking is empty
    table = format_table([evaluate(BM25Baseline(), tiny), res])
    set_part = table.split("Composition (set) mode")[1]
    assert "| tiny | composer | 1.50 | 0.500 | 0.500 | +0.000 |" in set_part


def test_format_table_has_row_per_result_and_vs_column(tiny: Dataset) -> None:
    base = evaluate(BM25Baseline(), tiny)
    half = evaluate(FixedRetriever({Q1: ["Eiffel Tower"], Q2: ["Nope"]}), tiny)
    table = format_table([base, half])
    lines = table.splitlines()
    assert "R@5 vs BM25" in lines[0]
    assert len(lines) == 4
    assert "| tiny | bm25 |" in lines[2] and "(baseline)" in lines[2]
    # BM25 R@5 = 1.0 here, the fixed retriever 0.25: delta -0.750, ratio 0.25
    assert lines[3].startswith("| tiny | fixed |") and "-0.750 (×0.25)" in lines[3]


def test_cli_on_user_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, questions = _hotpot_files(tmp_path)
    out = tmp_path / "out.json"
    eval_retrieval.RETRIEVERS["always-wrong"] = lambda: FixedRetriever({"Which is first?": ["Zeta"]})
    try:
        rc = eval_retrieval.main(
            [
                "--corpus",
                str(corpus),
                "--questions",
                str(questions),
                "--retriever",
                "always-wrong",
                "--json",
                str(out),
                "--quiet",
            ]
        )
    finally:
        del eval_retrieval.RETRIEVERS["always-wrong"]
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| hotpotqa_train | bm25 |" in printed and "| hotpotqa_train | always-wrong |" in printed
    payload = json.loads(out.read_text())
    assert [r["retriever"] for r in payload["results"]] == ["bm25", "always-wrong"]
    assert payload["results"][1]["metrics"]["R@5"] == 0.0
    assert payload["results"][1]["per_query"][0]["ranked"] == ["Zeta"]
    assert eval_retrieval.main(["--retriever", "no-such-thing", "--quiet"]) == 2

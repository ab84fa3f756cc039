"""The conversational protocol of the eval harness (scripts/retrieval_eval/conversational.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from retrieval_eval.conversational import (  # noqa: E402
    ConvBM25,
    evaluate_conversations,
    load_conversations,
    run_conversations,
)
from retrieval_eval.graphmem_retrievers import GraphmemConversationSearch  # noqa: E402

SAMPLE = [
    {"sample_id": "conv-a", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1_date_time": "1:00 pm on 2 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy called Rex."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! Here is my garden.", "blip_caption": "a rose bed"},
        ],
        "session_2_date_time": "9:00 am on 5 May, 2023",
        "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Rex chewed my violin."}],
    }, "qa": [
        {"question": "What is the name of Ann's puppy?", "evidence": ["D1:1"], "category": 4},
        {"question": "What did Rex chew?", "evidence": ["D2:1"], "category": 1},
        {"question": "Adversarial", "evidence": ["D1:1"], "category": 5},
        {"question": "No evidence", "evidence": ["D"], "category": 2},
    ]},
    {"sample_id": "conv-b", "conversation": {
        "session_1_date_time": "3 June, 2023",
        "session_1": [{"speaker": "Cy", "dia_id": "D1:1", "text": "My puppy Rex loves the violin."}],
    }, "qa": [{"question": "Who loves the violin?", "evidence": ["D1:1"], "category": 4}]},
]


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(SAMPLE), encoding="utf-8")
    return path


def test_turns_are_stored_with_the_readme_text_and_one_project_per_conversation(tmp_path: Path) -> None:
    dataset = load_conversations(_write(tmp_path))
    assert [t.text for t in dataset.turns[:2]] == [
        "Ann: I adopted a puppy called Rex. (said on 1:00 pm on 2 May, 2023)",
        "Bo: Lovely! Here is my garden. [shares a photo: a rose bed] (said on 1:00 pm on 2 May, 2023)",
    ]
    assert {t.project for t in dataset.turns} == {"conv-a", "conv-b"}


def test_only_categories_one_to_four_with_a_turn_id_are_asked(tmp_path: Path) -> None:
    questions = load_conversations(_write(tmp_path)).questions
    assert [(q.project, q.category) for q in questions] == [("conv-a", 4), ("conv-a", 1), ("conv-b", 4)]


def test_bm25_answers_from_the_questions_project_only(tmp_path: Path) -> None:
    dataset = load_conversations(_write(tmp_path))
    baseline = ConvBM25()
    result = evaluate_conversations(baseline, dataset)
    assert result.per_query[1]["ranked"][0] == "D2:1"
    assert all(rank.startswith("D") for q in result.per_query for rank in q["ranked"])
    assert baseline.retrieve("violin", "conv-b", 10) == ["D1:1"]
    assert result.metrics["R@10 multi-hop"] == 1.0


def test_graphmem_search_runs_beside_bm25_in_one_store(tmp_path: Path) -> None:
    dataset = load_conversations(_write(tmp_path))
    results = run_conversations(dataset, {"graphmem-search": GraphmemConversationSearch})
    assert [r.retriever for r in results] == ["bm25", "graphmem-search"]
    assert results[1].metrics["R@10"] == 1.0

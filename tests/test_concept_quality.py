"""The hand-labelled concept set (tests/data/concepts): its shape, and a floor under the extractor's figures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from concept_quality import labelled_set, score_concepts

# Just under what the extractor reaches (docs/retrieval.md, "Concept quality"); raise them when it improves.
PRECISION_FLOOR = 0.58
RECALL_FLOOR = 0.90


def test_the_labelled_set_has_at_least_150_texts_each_with_concepts() -> None:
    labelled = labelled_set()
    assert len(labelled) >= 150
    assert all(text and gold for text, gold in labelled)


def test_extraction_stays_above_the_precision_and_recall_floor() -> None:
    score = score_concepts()
    assert score.precision >= PRECISION_FLOOR, score.precision
    assert score.recall >= RECALL_FLOOR, score.recall

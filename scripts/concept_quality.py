"""Concept precision and recall on the hand-labelled concept set (``tests/data/concepts/``).

    python scripts/concept_quality.py            # the figures, then the worst observations

A predicted concept is every key the extractor yields for a text, parts included: each one becomes a concept
node. Keys are compared exactly after :func:`nlp.normalize_key`; the labelling rules are in
``tests/data/concepts/README.md``. Scores are micro-averaged over all (text, key) pairs.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ConceptScore", "labelled_set", "score_concepts"]

_ROOT = Path(__file__).resolve().parent.parent
LABELS = _ROOT / "tests" / "data" / "concepts"


@dataclass(frozen=True, slots=True)
class ConceptScore:
    """Micro-averaged figures plus, per text, what was missed and what was extra."""

    texts: int
    precision: float
    recall: float
    errors: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]  # (text, missed, extra)

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


def labelled_set(root: Path = LABELS) -> list[tuple[str, frozenset[str]]]:
    """Return (text, gold keys) for every labelled observation: the data/ ones, then the written ones."""
    from nlp import normalize_key

    lines = (_ROOT / "data" / "observations.jsonl").read_text(encoding="utf-8").splitlines()
    data = json.loads((root / "data_labels.json").read_text(encoding="utf-8"))
    written = json.loads((root / "conversation_labels.json").read_text(encoding="utf-8"))
    pairs = [(json.loads(lines[int(line) - 1])["content"], keys) for line, keys in data.items()]
    pairs += [(text, keys) for text, keys in written]
    return [(text, frozenset(normalize_key(key) for key in keys)) for text, keys in pairs]


def score_concepts(model: str = "blank") -> ConceptScore:
    """Extract every labelled text and compare its keys with the gold keys."""
    from nlp import ConceptExtractor

    labelled = labelled_set()
    parsed = ConceptExtractor(model).parse_many([text for text, _ in labelled])
    hits = predicted = gold_total = 0
    errors = []
    for (text, gold), observation in zip(labelled, parsed, strict=True):
        keys = set(observation.keys())
        hits += len(keys & gold)
        predicted += len(keys)
        gold_total += len(gold)
        errors.append((text, tuple(sorted(gold - keys)), tuple(sorted(keys - gold))))
    return ConceptScore(len(labelled), hits / max(predicted, 1), hits / max(gold_total, 1), tuple(errors))


def concept_quality_rows(model: str = "blank") -> list[tuple[str, str, str]]:
    """The bench rows: precision, recall and F1 on the labelled set."""
    score = score_concepts(model)
    label = f"concept set ({score.texts} labelled texts)"
    return [(f"{label}: precision / recall / F1", f"{score.precision:.3f} / {score.recall:.3f} / "
             f"{score.f1:.3f}", "hand labels (tests/data/concepts)")]


def main() -> int:
    score = score_concepts(sys.argv[1] if len(sys.argv) > 1 else "blank")
    print(f"texts {score.texts}  precision {score.precision:.3f}  recall {score.recall:.3f}  f1 {score.f1:.3f}")
    worst = sorted(score.errors, key=lambda error: -(len(error[1]) + len(error[2])))
    for text, missed, extra in worst[:15]:
        print(f"\n{text[:100]}\n  missed: {', '.join(missed)}\n  extra:  {', '.join(extra)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(_ROOT))
    sys.exit(main())

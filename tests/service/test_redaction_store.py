"""Every documented secret format stored through the service leaves no trace in the store, its export or
its concepts (the outside corpus of tests/core/test_redaction_outside.py, end to end)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from tests.service.test_scrub import _database_text

CORPUS = [json.loads(line) for line in
          (Path(__file__).parents[1] / "data" / "redaction_outside_corpus.jsonl").read_text().splitlines()]
POSITIVES = [case for case in CORPUS if case["secret"]]


def test_no_documented_secret_reaches_the_rows_the_export_or_a_concept_name(service):
    concepts: list[str] = []
    for case in POSITIVES:
        stored = service.store(f"Ops note: {case['text']}", entities=[case["text"][:200]], meta={"raw": case["text"]})
        assert stored.redacted, case["format"]
        concepts += stored.concepts
    export = io.StringIO()
    service.export_jsonl(export)
    everything = "\n".join([_database_text(service), export.getvalue(), " ".join(concepts)])
    leaked = [case["format"] for case in POSITIVES
              if case["secret"] in everything or case["secret"].casefold() in everything.casefold()]
    assert leaked == []

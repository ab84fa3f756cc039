"""The bundled sample corpus, loaded once per module into its own store (clusters and duplicates read it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings

DATA = Path(__file__).resolve().parents[3] / "data"


def sample_records() -> list[dict]:
    return [json.loads(line) for line in (DATA / "observations.jsonl").read_text(encoding="utf-8").splitlines()]


def near_duplicates() -> list[frozenset[str]]:
    pairs = json.loads((DATA / "lifecycle_pairs.json").read_text(encoding="utf-8"))["near_duplicates"]
    return [frozenset((pair["a"], pair["b"])) for pair in pairs]


@pytest.fixture
def sample(new_store, extractor) -> Iterator[MemoryService]:
    service = MemoryService(Settings.load(db=new_store("sample.db"), environ={}), extractor=extractor)
    service.store_many(sample_records())
    yield service
    service.close()

"""Composition on the bundled sample corpus (issue 13, items 1 and 2): a chosen source that an activated memory
contradicts is flagged, and the needs are the task's meaningful concepts, never its function words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from tests.conftest import copy_store, drop_store

CORPUS = Path(__file__).resolve().parents[2] / "data" / "observations.jsonl"
RETRY_POST = "retry on HTTP 500 for POST requests to downstream services"


@pytest.fixture(scope="module")
def bundled_db(module_store, extractor) -> str:
    """The sample corpus imported once per backend; each test opens its own copy."""
    db = module_store("memory.db")
    service = MemoryService(Settings.load(db=db, environ={}), extractor=extractor)
    service.import_jsonl(CORPUS.read_text(encoding="utf-8").splitlines())
    service.close()
    return db


@pytest.fixture
def bundled(bundled_db, tmp_path, extractor) -> Iterator[MemoryService]:
    db = copy_store(bundled_db, str(tmp_path / "memory.db"))
    service = MemoryService(Settings.load(db=db, environ={}), extractor=extractor)
    yield service
    service.close()
    drop_store(db)


def _memory(service: MemoryService, prefix: str) -> str:
    hits = service.search(prefix, limit=5).hits
    return next(hit.id for hit in hits if hit.content.startswith(prefix))


# -- item 1: a contradicted source is flagged -------------------------------------------------------
def test_a_source_contradicted_by_an_activated_memory_is_reported_with_the_newer_side(bundled):
    always = _memory(bundled, "Always retry on HTTP 500")
    never = _memory(bundled, "Never retry a non-idempotent POST")
    composition = bundled.associate(RETRY_POST, mode="composition", project="payments-api").composition
    chosen = [hit.id for hit in composition.sources]
    assert always in chosen and never not in chosen
    reports = [c for c in composition.conflicts if set(c.memory_ids) == {always, never}]
    assert len(reports) == 1, composition.conflicts
    assert reports[0].memory_ids == (always, never) and reports[0].newer_id == never
    assert not reports[0].in_selection


def test_a_judged_contradiction_of_a_source_names_the_relation_and_the_stronger_side(bundled):
    always = _memory(bundled, "Always retry on HTTP 500")
    never = _memory(bundled, "Never retry a non-idempotent POST")
    related = bundled.relations.relate(never, always, "contradicts")
    composition = bundled.associate(RETRY_POST, mode="composition", project="payments-api").composition
    reports = [c for c in composition.conflicts if set(c.memory_ids) == {always, never}]
    assert len(reports) == 1, composition.conflicts
    report = reports[0]
    assert report.memory_ids == (always, never)
    assert (report.relation_id, report.relation_type, report.newer_id) == (related.relation.id, "contradicts", never)
    assert report.stronger_id == related.relation.meta.get("stronger_id")


# -- item 2: needs are the task's meaningful concepts -----------------------------------------------
def test_an_unknown_phrase_is_one_gap_not_one_per_word_and_sub_phrase(bundled):
    composition = bundled.associate("quantum blockchain teleportation", mode="composition").composition
    assert composition.gaps == ("quantum blockchain teleportation",)
    assert composition.sources == () and not composition.coverage_met


def test_a_generic_verb_is_not_a_need_a_memory_can_cover(bundled):
    query = "keep users signed in across tabs, invalidate on logout, and survive a browser restart"
    composition = bundled.associate(query, mode="composition", project="web-frontend",
                                    min_coverage=1.0).composition
    needs = {*composition.covered, *composition.gaps}
    assert "survive" not in needs and {"logout", "browser restart"} <= needs
    assert not any("survives the download" in hit.content for hit in composition.sources)


def test_min_coverage_zero_takes_one_source_and_an_empty_selection_does_not_meet_it(bundled):
    found = bundled.associate(RETRY_POST, mode="composition", project="payments-api", min_coverage=0.0).composition
    assert len(found.sources) == 1 and found.coverage_met
    empty = bundled.associate("quantum blockchain teleportation", mode="composition", min_coverage=0.0).composition
    assert empty.sources == () and not empty.coverage_met

"""Temporal facts: a replacement closes the old fact, the past stays queryable, facts live in the graph."""

from __future__ import annotations

import io

import pytest

from graphmem import MemoryService
from graphmem.errors import ConflictError, InvalidInput, NotFound


def objects_at(service: MemoryService, instant: str) -> list[str]:
    return [fact.object for fact in service.facts.at(instant, subject="Alice").facts]


def test_a_replaced_fact_queried_at_three_instants(service):
    facts = service.facts
    acme = facts.add("Alice", "works at", "ACME Corp", valid_from="2024-01-01T00:00:00Z").fact
    replaced = facts.add("alice", "Works at", "Globex", valid_from="2024-06-01T00:00:00Z")
    assert [f.id for f in replaced.closed] == [acme.id]
    assert replaced.closed[0].superseded_by == replaced.fact.id
    assert objects_at(service, "2023-12-01T00:00:00Z") == []
    assert objects_at(service, "2024-03-01T00:00:00Z") == ["acme corp"]
    assert objects_at(service, "2024-06-01T00:00:00Z") == ["globex"]
    assert objects_at(service, "2024-09-01T00:00:00Z") == ["globex"]
    timeline = facts.timeline("ALICE").facts
    assert [(f.object, f.valid_to is None) for f in timeline] == [("acme corp", False), ("globex", True)]


def test_invalidation_takes_a_time_and_refuses_impossible_ones(service):
    facts = service.facts
    fact = facts.add("alice", "lives in", "Zürich", valid_from="2024-01-01T00:00:00Z").fact
    with pytest.raises(InvalidInput, match="before the fact began"):
        facts.invalidate(fact.id, at="2023-01-01T00:00:00Z")
    closed = facts.invalidate(fact.id, at="2024-05-01T00:00:00Z", reason="moved").fact
    assert closed.valid_to.isoformat().startswith("2024-05-01") and closed.reason == "moved"
    assert facts.at("2024-04-30T00:00:00Z").facts[0].object == "zürich"
    assert facts.at("2024-05-01T00:00:00Z").facts == ()
    with pytest.raises(ConflictError, match="already stopped"):
        facts.invalidate(fact.id)
    with pytest.raises(NotFound):
        facts.invalidate("fact_missing")


def test_a_repeated_fact_is_a_duplicate_and_a_back_dated_one_fits_before_the_current(service):
    facts = service.facts
    current = facts.add("payments api", "owned by", "team blue", valid_from="2024-06-01T00:00:00Z").fact
    assert facts.add("Payments API", "owned by", "Team Blue").duplicate
    earlier = facts.add("payments api", "owned by", "team red", valid_from="2024-01-01T00:00:00Z").fact
    assert earlier.valid_to == current.valid_from and earlier.superseded_by == current.id
    assert [f.object for f in facts.timeline("payments api").facts] == ["team red", "team blue"]
    many = facts.add("payments api", "owned by", "team green", invalidate_previous=False)
    assert many.closed == () and len(facts.at(subject="payments api").facts) == 2


def test_subjects_and_objects_are_concept_nodes_that_activation_flows_through(service):
    billing = service.store("Globex runs the billing cluster on bare metal").id
    assert service.associate("alice").memories == ()
    service.facts.add("Alice", "works at", "Globex")
    assert {"alice", "globex"} <= service.projection.concept_nodes.keys()
    assert [m.id for m in service.associate("alice").memories] == [billing]
    reloaded = MemoryService(service.settings, extractor=service.extractor)  # rows alone rebuild the edge
    assert [m.id for m in reloaded.associate("alice").memories] == [billing]
    reloaded.close()


def test_bad_fact_input_is_refused_and_nothing_is_written(service):
    facts = service.facts
    with pytest.raises(InvalidInput, match="subject"):
        facts.add("  ", "works at", "acme")
    with pytest.raises(InvalidInput, match="only punctuation"):
        facts.add("alice", "works at", "?!")
    with pytest.raises(InvalidInput, match="valid_from"):
        facts.add("alice", "works at", "acme", valid_from="yesterday")
    assert facts.timeline("alice").facts == ()
    assert "alice" not in service.projection.concept_nodes


def test_facts_survive_export_and_import_unchanged(service, new_store, extractor):
    service.facts.add("alice", "works at", "acme", valid_from="2024-01-01T00:00:00Z",
                                reason="hired")
    service.facts.add("alice", "works at", "globex", valid_from="2024-06-01T00:00:00Z")
    exported = io.StringIO()
    service.export_jsonl(exported)
    other = MemoryService(service.settings.model_copy(update={"db": new_store("copy.db")}),
                          extractor=extractor)
    report = other.import_jsonl(exported.getvalue().splitlines())
    assert report.added["facts"] == 2
    assert other.facts.timeline("alice") == service.facts.timeline("alice")
    again = io.StringIO()
    other.export_jsonl(again)
    assert again.getvalue() == exported.getvalue()
    other.close()

"""Consolidation: preview, apply, undo; originals archived, never deleted; as_of still sees them."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.core import consolidation

OLD = "Never store access tokens in localStorage; an XSS payload can read them."
NEW = "Access tokens must not go into localStorage because XSS can read them. Keep them in HttpOnly cookies."


def test_the_consolidation_docstring_examples_hold():
    import doctest

    assert doctest.testmod(consolidation).failed == 0


def _pair(service):
    a, b = service.store_many([
        {"content": OLD, "kind": "decision", "project": "web", "tags": ["security"], "entities": ["XSS"],
         "created_at": "2026-01-01T00:00:00Z"},
        {"content": NEW, "kind": "decision", "project": "web", "tags": ["tokens"],
         "created_at": "2026-02-01T00:00:00Z"}])
    return a.id, b.id


def test_preview_merges_fields_and_writes_nothing(service):
    a, b = _pair(service)
    result = service.learning.consolidation.consolidate(memory_ids=[a, b])
    preview = result.previews[0]
    assert preview.tags == ("security", "tokens") and preview.entities == ("XSS",)
    assert preview.valid_from.startswith("2026-01-01")
    assert "HttpOnly cookies" in preview.content and preview.content.count("localStorage") == 2
    assert service.repository.counts()["memories"] == 2


def test_a_repeated_statement_is_kept_once():
    merged = consolidation.merge_statements(["Run the backfill in the pool.", "run the backfill in the pool",
                                             "Then restart."])
    assert merged.content == "Run the backfill in the pool. Then restart."


def test_apply_archives_the_originals_search_returns_the_merged_memory_and_undo_restores(service):
    a, b = _pair(service)
    before = datetime(2026, 3, 1, tzinfo=UTC)
    applied = service.learning.consolidation.consolidate(memory_ids=[a, b], mode="apply")
    merged = applied.merged_id
    statuses = {m.id: m.status for m in service.repository.memories_by_id([a, b, merged]).values()}
    assert statuses == {a: "archived", b: "archived", merged: "active"}
    assert [h.id for h in service.search("localStorage tokens").hits] == [merged]
    assert {h.id for h in service.search("localStorage tokens", as_of=before.isoformat()).hits} == {a, b}
    relations = service.repository.relations_touching([merged])
    assert {(r.type, r.target_id) for r in relations} == {("consolidated_from", a), ("consolidated_from", b)}
    service.learning.consolidation.undo(merged)
    statuses = {m.id: m.status for m in service.repository.memories_by_id([a, b, merged]).values()}
    assert statuses == {a: "active", b: "active", merged: "archived"}
    assert {h.id for h in service.search("localStorage tokens").hits} == {a, b}


def test_a_consolidated_from_relation_archives_its_target(service):
    a, b = _pair(service)
    service.relations.relate(b, a, "consolidated_from")
    assert service.repository.memories_by_id([a])[a].status == "archived"


def test_consolidating_a_cluster_of_the_sample_then_searching_returns_the_merged_memory(sample):
    cluster = next(c for c in sample.learning.clusters.clusters().clusters if "version code" in c.shared_concepts)
    applied = sample.learning.consolidation.consolidate(cluster.id, mode="apply")
    hits = [h.id for h in sample.search("versionCode Play Console upload", project="mobile-app").hits]
    assert hits[0] == applied.merged_id
    assert not set(cluster.memory_ids) & set(hits)


def test_auto_detect_picks_merge_clusters_above_the_cohesion_threshold(sample):
    preview = sample.learning.consolidation.consolidate(auto_detect=True, cohesion_threshold=0.75)
    assert preview.previews and all(p.cohesion >= 0.75 for p in preview.previews)
    assert sample.repository.counts()["memories"] == 341

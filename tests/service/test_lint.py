"""Lint on a deliberately damaged database: every kind of damage is found, ``fix`` repairs the safe ones,
and a healthy store reports nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from graphmem import MemoryService
from tests.conftest import ORDERS, WEBHOOK


@pytest.fixture
def damaged(service: MemoryService) -> MemoryService:
    """A store hit by every kind of damage lint knows, written past the service (raw SQL)."""
    webhook = service.store(WEBHOOK).id
    service.store(ORDERS)
    with service.engine.connect() as outer:
        sqlite = outer.dialect.name == "sqlite"
        if sqlite:  # the store's FTS5 index (a PostgreSQL store keeps none)
            assert len(service.repository.bm25("stripe", 5)) == 1
        if sqlite:  # the pragma works only outside a transaction: set it on the driver connection first
            outer.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")
        _damage(outer, webhook)
        if sqlite:
            outer.connection.dbapi_connection.execute("PRAGMA foreign_keys=ON")
    return service


def _damage(connection, webhook: str) -> None:
    sqlite = connection.dialect.name == "sqlite"
    with connection.begin():
        if not sqlite:  # PostgreSQL enforces foreign keys with triggers, which the replica role skips
            connection.execute(text("SET LOCAL session_replication_role = replica"))
        for key, df in (("lonely", 0), ("Webhook", 1)):
            connection.execute(
                text("INSERT INTO concept (key, kind, df, aliases) VALUES (:k, 'term', :df, '[]')"),
                {"k": key, "df": df})
        connection.execute(text(
            "INSERT INTO mention (memory_seq, concept_seq, weight, count) SELECT m.seq, c.seq, 0.5, 1 "
            "FROM memory m, concept c WHERE m.id = :id AND c.key = 'Webhook'"), {"id": webhook})
        connection.execute(text(
            "INSERT INTO relation (id, source_id, target_id, type, confidence, meta, status, created_at) "
            "VALUES ('rel_dangling', :id, 'mem_gone', 'supports', 1.0, '{}', 'judged', 0)"), {"id": webhook})
        connection.execute(text(
            "INSERT INTO relation (id, source_id, target_id, type, confidence, meta, status, created_at) "
            "SELECT 'rel_odd', :source, id, 'replaces', 1.0, '{}', 'judged', 0 FROM memory WHERE id != :id"),
            {"source": webhook, "id": webhook})
        connection.execute(text(
            "INSERT INTO memory (id, content, content_hash, kind, project_key, tags, entities, meta, "
            "created_at, last_used_at, use_count, strength, status, valid_from, concept_count) "
            "VALUES ('mem_bare', 'written by hand', 'h', 'note', '', '[]', '[]', '{}', "
            "0, 0, 0, 1.0, 'active', 0, 0)"))
        connection.execute(text("UPDATE memory SET status = 'forgotten' WHERE id = :id"), {"id": webhook})
        connection.execute(text(
            "INSERT INTO session (id, started_at, last_activity_at, timeout_s) "
            "VALUES ('ses_stale', 0, 1000, 60)"))
        if sqlite:  # an FTS5 index can lose a row (a PostgreSQL store keeps no full-text index)
            connection.execute(text(
                "INSERT INTO memory_fts(memory_fts, rowid, content) SELECT 'delete', seq, content FROM memory "
                "WHERE id = :id"), {"id": webhook})


def test_a_healthy_store_has_no_findings(service):
    service.store(WEBHOOK)
    service.facts.add("alice", "works at", "acme")
    report = service.lint.run()
    assert report.ok and report.findings == ()


def test_lint_finds_every_kind_of_damage(damaged, backend):
    report = damaged.lint.run()
    assert not report.ok and report.fixed == 0
    assert report.counts == {"projection_out_of_sync": report.counts["projection_out_of_sync"],
                             "orphan_concept": 1, "dangling_relation": 1, "unknown_relation_type": 1,
                             "memory_without_concepts": 1, "duplicate_concept": 1, "stale_session": 1,
                             **({"fts_out_of_sync": 1} if backend == "sqlite" else {})}
    by_check = {f.check: f for f in report.findings}
    assert by_check["orphan_concept"].subject == "lonely"
    assert by_check["dangling_relation"].subject == "rel_dangling"
    assert by_check["memory_without_concepts"].subject == "mem_bare"
    assert by_check["duplicate_concept"].subject == "webhook"
    assert by_check["stale_session"].subject == "ses_stale"
    with damaged.engine.connect() as connection:
        forgotten = connection.execute(text("SELECT id FROM memory WHERE status = 'forgotten'")).scalar_one()
    out_of_sync = {f.subject: f.detail for f in report.findings if f.check == "projection_out_of_sync"}
    assert "counts" in out_of_sync and "status" in out_of_sync[forgotten]
    if backend == "sqlite":
        assert damaged.repository.bm25("stripe", 5) == []


def test_fix_repairs_the_safe_findings_and_leaves_the_rest_reported(damaged, backend):
    fixed = damaged.lint.run(fix=True)
    assert fixed.fixed == sum(f.fixable for f in fixed.findings) > 0
    after = damaged.lint.run()
    assert {f.check for f in after.findings} == {"unknown_relation_type", "memory_without_concepts"}
    assert not any(f.fixable for f in after.findings)
    with damaged.engine.connect() as connection:
        found = connection.execute(text("SELECT key FROM concept WHERE lower(key) = 'webhook'"))
        keys = [key for (key,) in found]
        ended = connection.execute(text("SELECT ended_at FROM session WHERE id = 'ses_stale'")).scalar_one()
    assert keys == ["webhook"] and ended == 1000
    # The reloaded projection knows the row's status, and the rebuilt index finds the text again.
    assert WEBHOOK not in [h.content for h in damaged.search("stripe webhook retries").hits]
    if backend == "sqlite":
        assert len(damaged.repository.bm25("stripe", 5)) == 1


def test_a_fresh_import_of_the_sample_data_has_at_most_20_similar_concepts(service: MemoryService) -> None:
    """Issue 9: 193 near-duplicate concepts came from extraction (an identifier beside the phrase it spells,
    lemma slips such as cooky/cookies); the check itself is unchanged."""
    lines = (Path(__file__).resolve().parents[2] / "data" / "observations.jsonl").read_text().splitlines()
    service.import_jsonl(lines)
    similar = [f.subject for f in service.lint.run().findings if f.check == "similar_concepts"]
    assert len(similar) <= 20, similar

"""The write path's bulk statements (graphmem/store/bulk.py) on both databases: an upsert adds to what is
stored and returns every row after the write, across SQLite's VALUES pages; a memory row's JSON columns,
NULLs and text reach the table as the service reads them back."""

from __future__ import annotations

import json

from sqlalchemy import text

from graphmem import MemoryService
from graphmem.store import bulk

ROWS = 2_500  # more than two of SQLite's 1,000-row VALUES pages


def test_a_concept_upsert_inserts_then_adds_document_frequencies_and_returns_every_row(service: MemoryService):
    keys = [f"concept {i:04d}" for i in range(ROWS)]
    with service.engine.begin() as connection:
        first = bulk.run(connection, bulk.CONCEPT_UPSERT, [(key, "phrase", 1, []) for key in keys])
        again = bulk.run(connection, bulk.CONCEPT_UPSERT,
                         [(key, "entity", i % 3 + 1, []) for i, key in enumerate(keys[::2])])
    assert sorted(key for _, key, _, _ in first) == keys
    assert {key: df for _, key, _, df in first} == dict.fromkeys(keys, 1)
    assert {key: (kind, df) for _, key, kind, df in again} == {
        key: ("phrase", 1 + i % 3 + 1) for i, key in enumerate(keys[::2])}  # the kind stays the first one
    with service.engine.connect() as connection:
        stored = {key: df for key, df in connection.execute(text("SELECT key, df FROM concept"))}
        aliases = set(connection.execute(text("SELECT CAST(aliases AS TEXT) FROM concept")).scalars())
    assert stored == {key: 1 + (i // 2 % 3 + 1 if i % 2 == 0 else 0) for i, key in enumerate(keys)}
    assert aliases == {"[]"}


def test_an_edge_upsert_returns_each_pairs_count_after_the_increment(service: MemoryService):
    with service.engine.begin() as connection:
        seqs = [seq for seq, *_ in bulk.run(connection, bulk.CONCEPT_UPSERT,
                                             [(f"k{i}", "phrase", 1, []) for i in range(80)])]
        pairs = [(a, b) for a in seqs for b in seqs if a < b][:ROWS]
        bulk.run(connection, bulk.EDGE_UPSERT, [(a, b, 2) for a, b in pairs])
        after = bulk.run(connection, bulk.EDGE_UPSERT, [(a, b, 3) for a, b in pairs[:1_200]])
    assert sorted(after) == sorted((a, b, 5) for a, b in pairs[:1_200])
    with service.engine.connect() as connection:
        grouped = connection.execute(text("SELECT count, count(*) FROM concept_edge GROUP BY count"))
        counts = [tuple(row) for row in grouped]
    assert sorted(counts) == [(2, ROWS - 1_200), (5, 1_200)]


def test_a_memory_rows_json_nulls_and_text_arrive_as_the_service_reads_them(service: MemoryService):
    stored = service.store("Retry the webhook with an idempotency key", tags=["ops"], project="alpha")
    columns = bulk.MEMORY_INSERT.columns
    with service.engine.connect() as connection:
        row = dict(connection.execute(text(f"SELECT {', '.join(columns)} FROM memory WHERE id = :id"),
                                      {"id": stored.id}).mappings().one())
    odd = {**row, "id": "mem_bulk_json", "content_hash": "h" * 64, "content": "quotes ' \" and ünïcode, {braces}",
           "tags": ["a \"quoted\" tag", "ünï", "comma, inside", "{brace}"], "entities": [],
           "meta": {"nested": {"list": [1, 2.5, None]}, "text": "x'y"}, "tools_used": ["pytest"],
           "topic_key": None, "session_id": None, "valid_to": None, "created_at": 1_700_000_000_123}
    odd = {name: _decoded(value) for name, value in odd.items()}
    with service.engine.begin() as connection:
        returned = bulk.run(connection, bulk.MEMORY_INSERT, [tuple(odd[name] for name in columns)])
    assert [memory_id for _, memory_id in returned] == ["mem_bulk_json"]
    with service.engine.connect() as connection:
        back = dict(connection.execute(text(f"SELECT {', '.join(columns)} FROM memory WHERE id = 'mem_bulk_json'"))
                    .mappings().one())
    assert {name: _decoded(value) for name, value in back.items()} == odd


def _decoded(value: object) -> object:
    """A JSON column reads back as text through ``text()`` on SQLite and as Python objects on PostgreSQL."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def test_existing_memories_match_project_and_hash_together_across_pages(service: MemoryService):
    alpha = service.store("Pin the resolver version in the lock file", project="alpha")
    plain = service.store("Pin the resolver version in the lock file")  # same text, no project: another memory
    with service.engine.connect() as connection:
        stored = {memory_id: (key, digest) for memory_id, key, digest in connection.execute(
            text("SELECT id, project_key, content_hash FROM memory"))}
    absent = [("alpha", f"{i:064x}") for i in range(1_500)]  # more than one 1,000-row VALUES page
    keys = [*absent[:1_200], stored[alpha.id], *absent[1_200:], stored[plain.id], ("beta", stored[alpha.id][1])]
    with service.engine.connect() as connection:
        found = bulk.existing_memories(connection, keys)
    assert sorted(found) == sorted([(*stored[alpha.id], alpha.id), (*stored[plain.id], plain.id)])


def test_the_duplicate_lookup_searches_the_unique_index_not_the_table(service: MemoryService):
    with service.engine.connect() as connection:
        if connection.dialect.name != "sqlite":
            return  # PostgreSQL's plan depends on its statistics; the SQLite scan is what grew with the store
        plan = " ".join(str(row[-1]) for row in connection.exec_driver_sql(
            "EXPLAIN QUERY PLAN " + bulk._existing_sqlite(2), ("", "a", "p", "b")))
    assert "SEARCH m USING INDEX" in plan and "SCAN m" not in plan


def test_numbers_reach_the_tables_exactly_nulls_and_extremes_included(service: MemoryService):
    # PostgreSQL gets a numeric column as one array in its text form: every double must read back as itself.
    weights = [0.1, 1 / 3, 2.5e-300, 5e-324, 1.7976931348623157e308, 123456789.0, 7, 0.0]
    stored = service.store("Retry the webhook with an idempotency key", project="alpha")
    with service.engine.begin() as connection:
        seq = connection.execute(text("SELECT seq FROM memory WHERE id = :id"), {"id": stored.id}).scalar_one()
        concepts = [row[0] for row in bulk.run(connection, bulk.CONCEPT_UPSERT,
                                               [(f"number {i}", "phrase", 1, []) for i in range(len(weights))])]
        bulk.run(connection, bulk.MENTION_INSERT,
                 [(seq, concept, weight, 2**31 - 1) for concept, weight in zip(concepts, weights, strict=True)])
        row = {**dict(connection.execute(text(f"SELECT {', '.join(bulk.MEMORY_INSERT.columns)} FROM memory "
                                               "WHERE id = :id"), {"id": stored.id}).mappings().one()),
               "id": "mem_numbers", "content_hash": "n" * 64, "valid_to": None, "review_after": 2**53 + 1}
        bulk.run(connection, bulk.MEMORY_INSERT, [tuple(_decoded(row[name]) for name in bulk.MEMORY_INSERT.columns)])
    with service.engine.connect() as connection:
        back = dict(connection.execute(text("SELECT concept_seq, weight FROM mention WHERE memory_seq = :seq "
                                            "AND count = 2147483647"), {"seq": seq}).all())
        review, valid_to = connection.execute(text("SELECT review_after, valid_to FROM memory WHERE id = 'mem_numbers'")
                                              ).one()
    assert [back[concept] for concept in concepts] == [float(weight) for weight in weights]
    assert (review, valid_to) == (2**53 + 1, None)

"""``MemoryService`` use cases: the projection follows writes, recall reads no edge table, and the
read tools page, filter and resolve ids as documented."""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import event, text

from graphmem import MemoryService, Settings
from graphmem.errors import InvalidInput, NotFound
from graphmem.store.projection import CONCEPT, GraphProjection
from tests.conftest import ORDERS, WEBHOOK

CORPUS = Path(__file__).resolve().parents[2] / "data" / "observations.jsonl"
QUERIES = ("retry webhooks", "terraform drift on the load balancer", "session cookie expiry",
           "airflow task timeout", "kafka consumer lag")


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, object]]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return rows[:60]


def fill(service: MemoryService, corpus: list[dict[str, object]]) -> None:
    """Write the way clients do: bulk batches of several sizes, single stores and duplicates."""
    service.store_many(corpus[:20], batch_size=7)
    for record in corpus[20:30]:
        service.store(**{k: v for k, v in record.items() if k != "created_at"})
    service.store_many([*corpus[30:], *corpus[5:12]], batch_size=64)
    service.store(WEBHOOK, kind="pattern", project="payments-api")
    service.store(ORDERS, kind="solution", project="payments-api")


def adjacency_by_name(projection: GraphProjection) -> dict[tuple[str, str], float]:
    kinds = projection.col("node_type")
    label = [("c:" if kinds[n] == CONCEPT else "m:") + name for n, name in enumerate(projection.names)]
    matrix = projection.graph.adjacency().tocoo()
    edges: dict[tuple[str, str], float] = {}
    for row, column, weight in zip(matrix.row, matrix.col, matrix.data, strict=True):
        key = (label[row], label[column])
        edges[key] = edges.get(key, 0.0) + float(weight)
    return {key: weight for key, weight in edges.items() if weight != 0.0}


def column_by_name(projection: GraphProjection, name: str) -> dict[str, float]:
    values = projection.col(name)
    return {node_name: float(value) for node_name, value in zip(projection.names, values, strict=True)}


# -- the projection follows writes -----------------------------------------------------------------
def test_the_incremental_projection_equals_one_loaded_fresh_from_the_database(service, corpus):
    fill(service, corpus)
    fresh = GraphProjection(service.settings.activation, service.settings.semantic, service.projection.embedder)
    fresh.load(service.engine)
    live = service.projection
    assert sorted(fresh.names) == sorted(live.names)
    assert fresh.memory_count == live.memory_count == service.status()["memories"]
    live_edges, fresh_edges = adjacency_by_name(live), adjacency_by_name(fresh)
    assert live_edges.keys() == fresh_edges.keys()
    assert np.allclose([live_edges[k] for k in live_edges], [fresh_edges[k] for k in live_edges])
    for column in ("df", "length", "created", "valid_from", "valid_to", "strength", "hidden"):
        assert column_by_name(live, column) == column_by_name(fresh, column), column
    query = live.semantic.embed(["webhook retries and idempotent orders"])[0]
    similarity = []
    for projection in (live, fresh):  # the semantic vectors follow writes exactly as a reload builds them
        nodes = np.array(sorted(projection.memory_nodes.values()), dtype=np.int64)
        values = projection.semantic.memory_similarity(query, nodes)
        similarity.append({projection.names[n]: round(float(v), 5) for n, v in zip(nodes, values, strict=True)})
    assert similarity[0] == similarity[1] and any(similarity[0].values())


def strong(result: object) -> dict[str, float]:
    """Scores well above the PPR pruning threshold: the two projections number their nodes differently,
    so float sums differ in the last bits and a memory right at the threshold may fall either side."""
    return {m.id: m.activation_score for m in result.memories if m.activation_score >= 1e-4}


def test_a_reopened_service_recalls_exactly_what_the_live_one_does(service, settings, extractor, corpus):
    fill(service, corpus)
    reopened = MemoryService(settings, extractor=extractor)
    for query in QUERIES:
        for project in (None, "payments-api"):
            live = service.associate(query, project=project, max_results=100)
            again = reopened.associate(query, project=project, max_results=100)
            assert strong(live) == pytest.approx(strong(again), abs=2e-6), (query, project)
            # node indices differ between a grown and a loaded projection; names and weights may not
            assert [(s.name, s.match, s.weight) for s in live.seed_nodes] == [
                (s.name, s.match, s.weight) for s in again.seed_nodes]
        assert {h.id for h in service.search(query, limit=100).hits} == {
            h.id for h in reopened.search(query, limit=100).hits}
    reopened.close()


def test_recall_and_search_never_read_the_edge_tables(service, corpus):
    fill(service, corpus)
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:
        # Transaction control and the one-row freshness check are not data reads.
        if not statement.startswith("BEGIN") and "store_generation" not in statement:
            statements.append(statement)

    event.listen(service.engine, "before_cursor_execute", record)
    try:
        for query in QUERIES:
            service.associate(query)
            service.associate(query, mode="composition")
            service.search(query, kind="error")
    finally:
        event.remove(service.engine, "before_cursor_execute", record)
    assert statements, "the listener saw no SQL at all, so it proves nothing"
    # Composition may look up the relations of its few sources by id; nothing reads the
    # concept, mention or co-occurrence tables, which the projection already holds.
    edge_tables = re.compile(r"\b(mention|concept_edge|concept)\b", re.IGNORECASE)
    assert [s for s in statements if edge_tables.search(s)] == []
    calls = 3 * len(QUERIES)
    assert len(statements) <= 3 * calls  # a few bounded lookups per call (hits, BM25, relations by id)


# -- open ------------------------------------------------------------------------------------------
def test_open_lists_unknown_ids_in_not_found_and_returns_the_rest(service):
    stored = service.store(WEBHOOK, topic_key="payments/webhooks")
    opened = service.open(["mem_doesnotexist", stored.id, "payments/webhooks", "no/such/topic"])
    assert [m.id for m in opened.memories] == [stored.id, stored.id]
    assert opened.not_found == ("mem_doesnotexist", "no/such/topic")
    assert "idempotency key" in opened.concepts[stored.id]
    with pytest.raises(InvalidInput):
        service.open([])
    with pytest.raises(NotFound, match="mem_nope"):
        service.resolve(["mem_nope"])


# -- graph pagination ------------------------------------------------------------------------------
SEVEN = [f"{topic} needs a runbook entry for the on-call rotation" for topic in
         ("Redis failover", "Kafka lag", "Terraform drift", "Stripe webhooks", "Airflow backfills",
          "Helm rollbacks", "Trino timeouts")]


def test_graph_pages_through_every_visible_memory_once(service):
    service.store_many({"content": content} for content in SEVEN)
    seen: list[str] = []
    offset, pages = 0, []
    while True:
        page = service.graph(offset=offset, limit=3)
        pages.append(page)
        seen += [node["id"] for node in page.nodes if node["type"] == "memory"]
        if not page.has_more:
            break
        offset += page.limit
    assert [p.has_more for p in pages] == [True, True, False]
    assert {p.total_nodes for p in pages} == {7}
    assert len(seen) == len(set(seen)) == 7
    assert all(edge["type"] == "mention" for p in pages for edge in p.edges)


def test_a_graph_page_never_shows_a_memory_its_filter_hides(service, settings, extractor):
    mine = service.store("Redis failover needs a runbook entry", project="mine")
    theirs = service.store("Kafka lag needs a runbook entry", project="theirs")
    add_relation(service, mine.id, theirs.id, "related")
    reopened = MemoryService(settings, extractor=extractor)  # loads the relation into the projection
    shown = {node["id"] for node in reopened.graph(project="mine").nodes}
    assert mine.id in shown and theirs.id not in shown
    assert theirs.id in {node["id"] for node in reopened.graph().nodes}
    reopened.close()


def test_graph_around_a_node_is_paginated_and_an_unknown_node_is_not_found(service):
    stored = service.store(WEBHOOK)
    service.store(ORDERS)
    first = service.graph(node=stored.id, depth=2, limit=4)
    assert first.nodes[0]["id"] == stored.id and first.has_more and first.total_nodes > 4
    rest = service.graph(node=stored.id, depth=2, offset=4, limit=500)
    assert not rest.has_more
    ids = [n["id"] for n in first.nodes[:4]] + [n["id"] for n in rest.nodes]
    assert len(set(ids)) == first.total_nodes
    assert "concept:idempotency key" in ids
    with pytest.raises(NotFound):
        service.graph(node="concept:never-mentioned")
    with pytest.raises(InvalidInput):
        service.graph(limit=0)


# -- search pagination and filters -----------------------------------------------------------------
def test_search_page_two_continues_page_one_without_overlap(service, corpus):
    service.store_many(corpus)
    whole = service.search("webhook retries and idempotency", limit=8)
    first = service.search("webhook retries and idempotency", limit=4)
    second = service.search("webhook retries and idempotency", limit=4, offset=4)
    assert len(whole.hits) == 8
    assert [h.id for h in first.hits] + [h.id for h in second.hits] == [h.id for h in whole.hits]
    assert (second.offset, second.limit) == (4, 4)
    assert first.total_candidates == second.total_candidates


@pytest.mark.parametrize("as_of", ["2025-06-01T00:00:00Z", "2025-06-01", 1_748_736_000_000,
                                   str(1_748_736_000_000), datetime(2025, 6, 1, tzinfo=UTC)])
def test_as_of_accepts_iso_dates_and_epoch_milliseconds(service, as_of):
    service.store_many([
        {"content": "Sessions live in Redis with a one hour TTL", "created_at": "2024-01-10T09:00:00Z"},
        {"content": "Sessions moved from Redis to signed JWT cookies", "created_at": "2025-09-01T09:00:00Z"},
    ])
    then = service.search("sessions redis", as_of=as_of)
    assert [h.content for h in then.hits] == ["Sessions live in Redis with a one hour TTL"]
    assert len(service.search("sessions redis").hits) == 2
    assert [m.content for m in service.associate("sessions redis", as_of=as_of).memories] == [
        "Sessions live in Redis with a one hour TTL"]


def test_a_malformed_as_of_is_refused(service):
    with pytest.raises(InvalidInput, match="as_of"):
        service.search("anything", as_of="last tuesday")


def test_the_kind_filter_applies_before_the_cut(service):
    notes = [{"content": f"Redis session storage note number {n} about session storage in Redis"}
             for n in range(12)]
    service.store_many(notes)
    decision = service.store("We decided on session storage once", kind="decision")
    assert all(h.kind == "note" for h in service.search("redis session storage", limit=3).hits)
    decisions = service.search("redis session storage", kind="decision", limit=1)
    assert [h.id for h in decisions.hits] == [decision.id]
    top = service.associate("redis session storage", kind="decision", max_results=1)
    assert [m.id for m in top.memories] == [decision.id]


def test_the_project_filter_applies_before_the_cut(service):
    service.store_many([{"content": f"Webhook retry budget {n} for the webhook retry queue", "project": "big"}
                        for n in range(12)])
    small = service.store("A webhook retry once", project="small")
    assert [m.id for m in service.associate("webhook retry", project="small", max_results=1).memories] == [
        small.id]
    assert [h.id for h in service.search("webhook retry", project="small", limit=1).hits] == [small.id]


# -- export and import -----------------------------------------------------------------------------
def add_relation(service: MemoryService, source_id: str, target_id: str, relation_type: str) -> None:
    """A judged relation row, as the relation tools will write it (none exists in the core tool set)."""
    with service.engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO relation (id, source_id, target_id, type, confidence, meta, status, created_at) "
            "VALUES (:id, :source, :target, :type, 0.9, '{}', 'judged', 1700000000000)"),
            {"id": f"rel_{source_id[-6:]}", "source": source_id, "target": target_id, "type": relation_type})


def test_relations_survive_export_and_import_with_their_type(service, extractor, new_store):
    old = service.store("Sessions live in Redis with a one hour TTL")
    new = service.store("Sessions moved from Redis to signed JWT cookies")
    add_relation(service, new.id, old.id, "supersedes")
    exported = io.StringIO()
    service.export_jsonl(exported)
    copy = MemoryService(Settings.load(db=new_store("copy.db"), environ={}), extractor=extractor)
    report = copy.import_jsonl(exported.getvalue().splitlines())
    assert report.added["relations"] == 1
    [relation] = copy.open([new.id]).relations
    assert (relation.type, relation.source_id, relation.target_id) == ("supersedes", new.id, old.id)
    # the imported supersedes hides the old memory, as a relation written in place would
    assert [m.id for m in copy.associate("redis sessions").memories] == [new.id]
    again = io.StringIO()
    copy.export_jsonl(again)
    assert again.getvalue() == exported.getvalue()
    copy.close()


BAD_RECORDS = {
    "unknown status": ({"status": "weird"}, "status"),
    "text timestamp": ({"created_at": "yesterday"}, "created_at"),
    "malformed mention": ({"mentions": [["redis"]]}, "mentions"),
    "unknown kind": ({"kind": "gossip"}, "kind"),
}


@pytest.mark.parametrize("change, field", BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
def test_an_export_record_with_a_bad_field_is_refused_before_any_write(service, settings, extractor, change,
                                                                      field):
    service.store(WEBHOOK)
    exported = io.StringIO()
    service.export_jsonl(exported)
    lines = exported.getvalue().splitlines()
    memory_line = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "memory")
    record = {**json.loads(lines[memory_line]), "id": "mem_other", "content_hash": "other", **change}
    lines.append(json.dumps(record))
    with pytest.raises(InvalidInput, match=rf"line {len(lines)}: memory field {field}"):
        service.import_jsonl(lines)
    assert service.status()["memories"] == 1
    MemoryService(settings, extractor=extractor).close()  # the store still opens


def test_a_relation_to_an_unknown_memory_fails_the_whole_import(service):
    service.store(WEBHOOK)
    orders = json.dumps({"type": "memory", "id": "mem_orders", "content": ORDERS, "kind": "note",
                         "created_at": 1, "last_used_at": 1, "valid_from": 1, "content_hash": "h",
                         "status": "active", "mentions": [["order", 1.0, 1]]})
    dangling = json.dumps({"type": "relation", "id": "rel_x", "source_id": "mem_orders",
                           "target_id": "mem_gone", "relation_type": "supports", "status": "judged",
                           "created_at": 1})
    with pytest.raises(InvalidInput, match="nothing was written"):
        service.import_jsonl([orders, dangling])
    assert service.status()["memories"] == 1
    assert service.open(["mem_orders"]).not_found == ("mem_orders",)

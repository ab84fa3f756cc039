"""``load_projects``: a projection of some projects is the whole store's projection narrowed to them, on SQLite and
PostgreSQL (the loader a per-project projection pool builds on, docs/scaling.md)."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.store.project_scope import load_projects
from graphmem.store.projection import GraphProjection

BILLING = ["Stripe retries webhook deliveries for three days, so every webhook handler needs an idempotency key",
           "Refunds above 500 euros need a second approver in the billing console",
           "The billing worker retries a failed charge three times before it gives up"]
SEARCH = ["The search service rebuilds its Elasticsearch index every night at two",
          "Webhook deliveries from the indexer reach the search service through the queue"]


@pytest.fixture
def store(settings, extractor):
    service = MemoryService(settings, extractor=extractor)
    billing = [service.store(text, project="billing").id for text in BILLING]
    search = [service.store(text, project="search").id for text in SEARCH]
    service.store("A note that belongs to no project mentions the webhook too")
    service.relations.relate(billing[0], billing[2], "related")
    service.relations.relate(billing[1], search[0], "related")  # across projects
    yield service, billing, search
    service.close()


def _projection(service: MemoryService) -> GraphProjection:
    return GraphProjection(service.settings.activation, service.settings.semantic, service.projection.embedder)


def _edges(projection: GraphProjection, node: int) -> dict[str, float]:
    targets, weights = projection.graph.neighbors(node)
    return {projection.names[int(t)]: round(float(w), 6) for t, w in zip(targets, weights, strict=True)}


def test_a_scoped_projection_holds_the_projects_memories_and_the_concepts_they_mention(store):
    service, billing, _search = store
    full = service.uow.fresh()
    scoped = _projection(service)
    assert load_projects(scoped, service.engine, ["billing"]) == service.uow.generation
    assert set(scoped.memory_nodes) == set(billing)
    assert scoped.memory_count == len(billing)
    mentioned = {full.names[int(t)] for memory in billing for t in full.graph.neighbors(full.memory_nodes[memory])[0]
                 if full.names[int(t)] in full.concept_nodes}
    assert set(scoped.concept_nodes) == mentioned
    for key in mentioned:  # the store-wide document frequency, so IDF and the hub cap weigh as in the whole store
        assert scoped.col("df")[scoped.concept_nodes[key]] == full.col("df")[full.concept_nodes[key]]
    for memory in billing:  # the same mention edges, the same weights, the same length
        a, b = full.memory_nodes[memory], scoped.memory_nodes[memory]
        assert {k: w for k, w in _edges(full, a).items() if k in mentioned} == {
            k: w for k, w in _edges(scoped, b).items() if k in mentioned}
        assert scoped.col("length")[b] == full.col("length")[a]
    # The relation inside the project is there; the one across projects has no far end in this projection.
    assert {(e.source_id, e.target_id) for e in scoped.relations.values()} == {(billing[0], billing[2])}


def test_several_projects_and_the_memories_with_no_project(store):
    service, billing, search = store
    scoped = _projection(service)
    load_projects(scoped, service.engine, ["billing", "search", ""])
    full = service.uow.fresh()
    assert set(scoped.memory_nodes) == set(full.memory_nodes)
    assert set(scoped.concept_nodes) == set(full.concept_nodes)
    assert {(e.source_id, e.target_id) for e in scoped.relations.values()} == {
        (billing[0], billing[2]), (billing[1], search[0])}
    # Every project in scope: the same graph as the whole store's, node by node, edge by edge.
    for name, node in {**full.concept_nodes, **full.memory_nodes}.items():
        other = scoped.memory_nodes.get(name, scoped.concept_nodes.get(name))
        assert other is not None and _edges(scoped, other) == _edges(full, node), name
    ordered = sorted(full.memory_nodes)
    assert np.array_equal(full.col("length")[[full.memory_nodes[m] for m in ordered]],
                          scoped.col("length")[[scoped.memory_nodes[m] for m in ordered]])


def test_a_project_that_holds_nothing_loads_an_empty_projection(store):
    service, _billing, _search = store
    scoped = _projection(service)
    assert load_projects(scoped, service.engine, ["nobody"]) == service.uow.generation
    assert scoped.memory_count == 0 and not scoped.concept_nodes and not scoped.relations


def test_the_loader_reads_one_snapshot_whatever_else_writes(settings, extractor):
    service = MemoryService(Settings.load(db=settings.db, environ={}), extractor=extractor)
    try:
        service.store("Nightly backups land in the cold storage bucket", project="ops")
        scoped = _projection(service)
        generation = load_projects(scoped, service.engine, ["ops"])
        service.store("Backups are encrypted with the ops key", project="ops")
        assert generation == service.uow.generation - 1 and scoped.memory_count == 1
    finally:
        service.close()


def test_a_concept_splits_its_activation_as_in_the_whole_store(store):
    service, _billing, _search = store
    full = service.uow.fresh()
    exact, estimated = _projection(service), _projection(service)
    load_projects(exact, service.engine, ["billing"], exact=True)
    load_projects(estimated, service.engine, ["billing"])
    shared = [key for key in exact.concept_nodes  # concepts the other projects mention too
              if full.graph.out_strength[full.concept_nodes[key]] > exact.graph.neighbors(
                  exact.concept_nodes[key])[1].sum() + 1e-9]
    assert {"webhook", "delivery"} <= set(shared)
    for key in exact.concept_nodes:
        node, whole = exact.concept_nodes[key], full.concept_nodes[key]
        assert exact.graph.out_strength[node] == pytest.approx(full.graph.out_strength[whole]), key
        # Estimated from inside the scope: the right number of outside mentions, each of the concept's mean weight.
        assert estimated.graph.out_degree[estimated.concept_nodes[key]] == full.graph.out_degree[whole], key
    for key in shared:
        assert estimated.graph.out_strength[estimated.concept_nodes[key]] > sum(
            estimated.graph.neighbors(estimated.concept_nodes[key])[1]), key


def test_a_scoped_projection_round_trips_through_a_snapshot_of_its_own(store, tmp_path):
    from graphmem.store.projection_snapshot import load_snapshot, save_snapshot

    service, billing, _search = store
    scoped = _projection(service)
    generation = load_projects(scoped, service.engine, ["billing"])
    path = tmp_path / "billing.projection.npz"
    save_snapshot(scoped, path, service.engine, generation)
    restored = _projection(service)
    assert load_snapshot(restored, path, service.engine, service.uow.generation) == generation
    assert set(restored.memory_nodes) == set(billing) and set(restored.concept_nodes) == set(scoped.concept_nodes)
    # The outside mentions live in the out-strength and out-degree the snapshot keeps.
    assert restored.graph.out_strength.tolist() == scoped.graph.out_strength.tolist()
    assert restored.graph.out_degree.tolist() == scoped.graph.out_degree.tolist()


def test_a_querys_guest_concepts_grow_the_projection_by_a_few_nodes_not_a_quarter(store):
    from graphmem.store.project_scope import ProjectScope

    service, _billing, _search = store
    scoped = _projection(service)
    scope = ProjectScope(["billing"])
    scope.load(scoped, service.engine)
    n = scoped.graph.n_nodes
    assert len(scoped._cols["node_type"]) == n  # a load leaves no room
    elsewhere = sorted(set(service.uow.fresh().concept_nodes.keys()) - set(scoped.concept_nodes.keys()))[:2]
    scope.admit(scoped, service.engine, elsewhere)
    assert scoped.graph.n_nodes == n + 2 and all(key in scoped.concept_nodes for key in elsewhere)
    assert len(scoped._cols["node_type"]) == len(scoped.graph._out_strength) == n + 2 + 64
    assert scoped.col("df")[scoped.concept_nodes[elsewhere[0]]] > 0


def test_scopes_that_share_the_store_totals_count_the_memory_table_once_per_generation(store):
    from sqlalchemy import event

    from graphmem.store.project_scope import ProjectScope, StoreTotals

    service, billing, search = store
    counts: list[str] = []

    def spy(conn, cursor, statement, *args):
        if "count(*)" in statement and "FROM memory" in statement:
            counts.append(statement)

    event.listen(service.engine, "before_cursor_execute", spy)
    try:
        totals = StoreTotals()
        first, second = _projection(service), _projection(service)
        ProjectScope(["billing"], totals=totals).load(first, service.engine)
        ProjectScope(["search"], totals=totals).load(second, service.engine)
        assert len(counts) == 1  # one full count for both: the same generation
        assert first.store_memory_count == second.store_memory_count == len(billing) + len(search) + 1
        service.store("The search service caches its facets for an hour", project="search")
        third = _projection(service)
        ProjectScope(["search"], totals=totals).load(third, service.engine)
        assert len(counts) == 2 and third.store_memory_count == len(billing) + len(search) + 2
    finally:
        event.remove(service.engine, "before_cursor_execute", spy)

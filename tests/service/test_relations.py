"""Relations change what recall returns: hiding, spreading, supersede ↔ as_of, topic-key upserts,
the judgment workflow and the conflict scan, through ``MemoryService``."""

from __future__ import annotations

import pytest

from graphmem import MemoryService
from graphmem.core.relations import valid_relation_types
from graphmem.errors import ConflictError, InvalidInput, NotFound

KAFKA = "Kafka consumers commit offsets after processing each batch"
TERRAFORM = "Terraform state lives in an S3 bucket with DynamoDB locking"

# What each type does, written out independently of the semantics table: which end default recall
# hides once judged, and whether activation crosses the edge.
EFFECTS = {
    "supersedes": ("target", True), "contradicts": (None, True), "conflicts_with": (None, True),
    "consolidated_from": ("target", True), "duplicate_of": ("source", True), "causes": (None, True),
    "supports": (None, True), "has_decision": (None, True), "related": (None, True),
    "compatible": (None, True), "scoped": (None, True), "not_conflict": (None, False),
}


def pair(service: MemoryService) -> tuple[str, str]:
    return service.store(KAFKA).id, service.store(TERRAFORM).id


def search_ids(service: MemoryService, query: str = "kafka terraform", **options) -> set[str]:
    return {hit.id for hit in service.search(query, **options).hits}


def test_the_expectations_cover_every_relation_type():
    assert set(EFFECTS) == set(valid_relation_types())


@pytest.mark.parametrize("rel_type", sorted(EFFECTS))
def test_each_judged_relation_type_hides_the_side_its_semantics_name(service, rel_type):
    source, target = pair(service)
    assert search_ids(service) == {source, target}
    service.relations.relate(source, target, rel_type)
    hidden = {"source": source, "target": target, None: None}[EFFECTS[rel_type][0]]
    assert search_ids(service) == {source, target} - {hidden}
    # A consolidation archives its originals (the semantics table): include_superseded does not bring
    # archived memories back; as_of before the consolidation does.
    archived = {target} if rel_type == "consolidated_from" else set()
    assert search_ids(service, include_superseded=True) == {source, target} - archived
    assert {m.id for m in service.associate("kafka terraform").memories} == {source, target} - {hidden}


@pytest.mark.parametrize("rel_type", sorted(EFFECTS))
def test_activation_crosses_a_relation_edge_only_where_the_type_spreads(service, rel_type):
    source, target = pair(service)
    assert target not in {m.id for m in service.associate("kafka offsets").memories}
    service.relations.relate(source, target, rel_type)
    reached = {m.id for m in service.associate("kafka offsets", include_superseded=True).memories}
    if rel_type == "consolidated_from":  # the original is archived: recall never returns it, whatever spreads
        assert target not in reached and service.repository.memories_by_id([target])[target].status == "archived"
        return
    assert (target in reached) is EFFECTS[rel_type][1]


def test_a_pending_supersedes_spreads_but_hides_nothing_until_judged(service):
    source, target = pair(service)
    proposed = service.relations.compare(source, target, "supersedes", confidence=0.5)
    assert proposed.relation.status == "pending" and proposed.superseded == ()
    assert search_ids(service) == {source, target}
    judged = service.relations.judge(proposed.relation.id)
    assert judged.superseded == (target,) and judged.relation.confidence == 0.5
    old = service.open([target]).memories[0]
    assert old.superseded_by == source and old.valid_to is not None
    assert search_ids(service) == {source}


def test_ignoring_or_revising_a_judged_supersedes_reopens_the_older_memory(service):
    source, target = pair(service)
    judged = service.relations.relate(source, target, "supersedes")
    revised = service.relations.judge(judged.relation.id, type="related")
    assert revised.restored == (target,) and search_ids(service) == {source, target}
    assert service.open([target]).memories[0].valid_to is None
    again = service.relations.judge(judged.relation.id, type="supersedes")
    assert again.superseded == (target,) and search_ids(service) == {source}
    ignored = service.relations.ignore(judged.relation.id, reason="wrong pair")
    assert ignored.restored == (target,) and ignored.relation.status == "ignored"
    assert search_ids(service) == {source, target}
    edges = service.projection.graph.neighbors(service.projection.memory_nodes[source])
    assert service.projection.memory_nodes[target] not in edges[0].tolist()  # the edge was taken back


def test_supersede_then_as_of_round_trip_on_search_associate_open_and_graph(service):
    old = service.store_many([{"content": "Sessions are stored in signed JWT cookies", "kind": "decision",
                               "topic_key": "decision/sessions", "created_at": "2024-01-01T00:00:00Z"}])[0]
    new = service.store_many([{"content": "Sessions are stored in Redis so they can be revoked",
                               "kind": "decision",
                               "topic_key": "decision/sessions", "created_at": "2024-02-01T00:00:00Z"}])[0]
    assert new.superseded == (old.id,)
    query = "where are sessions stored"
    before, after = "2024-01-15T00:00:00Z", "2024-02-15T00:00:00Z"
    assert [h.id for h in service.search(query).hits] == [new.id]
    assert [h.id for h in service.search(query, as_of=before).hits] == [old.id]
    assert [h.id for h in service.search(query, as_of=after).hits] == [new.id]
    assert [m.id for m in service.associate(query, as_of=before).memories] == [old.id]
    assert {h.id for h in service.search(query, include_superseded=True).hits} == {old.id, new.id}
    then = service.open(["decision/sessions"], as_of=before)
    assert [m.id for m in then.memories] == [old.id]
    assert then.memories[0].valid_to is None and then.memories[0].superseded_by is None
    assert then.relations == ()
    assert service.open(["decision/sessions"]).memories[0].id == new.id
    assert service.open([new.id], as_of=before).not_found == (new.id,)
    now = service.open([old.id]).memories[0]
    assert now.superseded_by == new.id and now.valid_to.isoformat().startswith("2024-02-01")
    graph_then = {n["id"] for n in service.graph(as_of=before).nodes if n["type"] == "memory"}
    assert graph_then == {old.id}


def test_topic_key_upsert_is_per_project_and_later_validity_wins(service):
    first = service.store("Deploys run from the release branch", topic_key="ops/deploys", project="web")
    other = service.store("Deploys run from main", topic_key="ops/deploys", project="api")
    assert other.superseded == ()
    backdated = service.store_many([{"content": "Deploys ran from tags", "topic_key": "ops/deploys",
                                     "project": "web", "created_at": "2020-01-01T00:00:00Z"}])[0]
    assert backdated.superseded == ()  # older than the current holder: it is the one replaced
    assert service.open([backdated.id]).memories[0].superseded_by == first.id
    assert service.resolve(["ops/deploys"])["ops/deploys"] != backdated.id  # the key names a current holder
    history = service.history.of("ops/deploys", project="web")
    assert history.current_ids == (first.id,)
    assert [(e.old_id, e.new_id) for e in history.events] == [(backdated.id, first.id)]


def test_relation_types_and_self_relations_are_validated_before_anything_is_written(service):
    source, target = pair(service)
    with pytest.raises(InvalidInput, match="valid types: supersedes, contradicts"):
        service.relations.relate(source, target, "replaces")
    with pytest.raises(InvalidInput, match="itself"):
        service.relations.relate(source, source, "related")
    with pytest.raises(NotFound, match="nope"):
        service.relations.compare(source, "nope", "related")
    with pytest.raises(InvalidInput, match="confidence"):
        service.relations.relate(source, target, "related", confidence=1.5)
    assert service.repository.counts()["relations"] == 0


def test_a_repeated_compare_never_resets_a_judged_relation_and_a_repeated_relate_updates(service):
    source, target = pair(service)
    judged = service.relations.relate(source, target, "contradicts", confidence=0.9, reason="checked")
    again = service.relations.compare(target, source, "contradicts", confidence=0.2)  # symmetric: same pair
    assert again.action == "unchanged" and again.relation.status == "judged"
    assert again.relation.confidence == 0.9
    assert "judge" in again.message
    updated = service.relations.relate(source, target, "contradicts", confidence=0.7)
    assert updated.action == "updated" and updated.relation.id == judged.relation.id
    assert updated.relation.reason == "checked" and updated.relation.confidence == 0.7
    assert service.repository.counts()["relations"] == 1


def test_pending_lists_every_id_and_judge_refuses_a_type_collision(service):
    source, target = pair(service)
    service.relations.relate(source, target, "related")
    proposed = service.relations.compare(source, target, "supersedes", reason="newer")
    page = service.relations.pending()
    assert page.total == 1 and page.items[0].relation.id == proposed.relation.id
    assert (page.items[0].source.id, page.items[0].target.id) == (source, target)
    assert service.relations.pending(memory=target).total == 1
    with pytest.raises(ConflictError, match="already have a related relation"):
        service.relations.judge(proposed.relation.id, type="related")
    with pytest.raises(NotFound):
        service.relations.judge("rel_missing")
    with pytest.raises(InvalidInput, match="stronger must be"):
        service.relations.judge(proposed.relation.id, stronger=service.store("unrelated third memory").id)


def test_composition_lists_conflicts_with_the_newer_and_the_judged_stronger_side(service):
    old = service.store("Always run database migrations inside one transaction with a rollback plan").id
    new = service.store("Never wrap database migrations in a transaction, they lock the deploy").id
    query = "database migrations transaction deploy rollback plan"
    detected = service.associate(query, mode="composition", min_coverage=1.0).composition.conflicts
    assert [(c.relation_id, c.newer_id) for c in detected] == [(None,
                                                                new)] and "polarity" in detected[0].reason
    judged = service.relations.relate(old, new, "conflicts_with")
    service.relations.judge(judged.relation.id, stronger=new)
    conflicts = service.associate(query, mode="composition", min_coverage=1.0).composition.conflicts
    assert [(c.relation_id, c.newer_id, c.stronger_id) for c in conflicts] == [(judged.relation.id, new, new)]


def test_the_scan_finds_a_contradiction_that_shares_few_words_and_never_reproposes_a_judged_pair(service):
    always = service.store("Always run database migrations inside a transaction", kind="decision").id
    never = service.store("Never wrap Alembic migration scripts in transactions; they lock the deploy").id
    service.store("Database backups run nightly at two")
    service.store("The Alembic env file reads the database URL from the environment")
    words = [set(service.open([i]).memories[0].content.casefold().split()) for i in (always, never)]
    assert len(words[0] & words[1]) <= 1  # KiroGraph's first-8-words FTS query could not pair these
    scan = service.conflicts.scan()
    assert [(c.kind, {c.a.id, c.b.id}) for c in scan.candidates] == [("polarity", {always, never})]
    assert "migration" in scan.candidates[0].shared_concepts and scan.candidates[0].newer_id == never
    proposed = service.relations.compare(always, never, scan.candidates[0].suggested_relation)
    service.relations.judge(proposed.relation.id, stronger=never)
    assert service.conflicts.scan().candidates == ()
    assert service.conflicts.scan().settled_pairs_skipped == 1


def test_comparing_a_settled_pair_under_another_conflict_type_changes_nothing(service):
    source, target = pair(service)
    proposed = service.relations.compare(source, target, "conflicts_with")
    service.relations.judge(proposed.relation.id)
    again = service.relations.compare(target, source, "contradicts", reason="looks contradictory")
    assert again.action == "unchanged" and again.relation.id == proposed.relation.id
    assert again.relation.type == "conflicts_with" and again.relation.status == "judged"
    assert "judge" in again.message
    assert service.relations.pending().total == 0
    assert service.repository.counts()["relations"] == 1


def test_a_pair_proposed_as_one_conflict_type_is_not_proposed_again_as_another(service):
    source, target = pair(service)
    first = service.relations.compare(source, target, "contradicts")
    second = service.relations.compare(source, target, "conflicts_with")
    assert second.action == "unchanged" and second.relation.id == first.relation.id
    assert service.relations.pending().total == 1


def test_the_scan_says_how_many_candidates_it_found_and_the_cap_it_applied(service):
    for n in range(4):
        service.store(f"Always run the nightly migration {n} inside a transaction", project="db")
        service.store(f"Never run the nightly migration {n} inside a transaction", project="db")
    capped = service.conflicts.scan(limit=341, max_candidates=2)
    assert len(capped.candidates) == 2 and capped.max_candidates == 2
    assert capped.found > 2 and capped.truncated
    everything = service.conflicts.scan(limit=341, max_candidates=500)
    assert len(everything.candidates) == everything.found == capped.found and not everything.truncated


def test_the_scan_compares_memories_of_different_projects_only_when_asked(service):
    service.store("PgBouncer on port 6432 serves the DATABASE_URL of the api service", project="payments")
    service.store("The DATABASE_URL of migration jobs uses the direct PgBouncer port 5432", project="infra")
    assert service.conflicts.scan().candidates == ()
    across = service.conflicts.scan(across_projects=True).candidates
    assert [c.kind for c in across] == ["value"]


def test_graph_and_export_as_of_show_no_relation_created_after_that_instant(service):
    from graphmem.service.export.scope import ExportScope

    old, new = (service.store_many([{"content": text, "created_at": at}])[0].id for text, at in (
        (KAFKA, "2024-01-01T00:00:00Z"), (TERRAFORM, "2024-01-02T00:00:00Z")))
    service.relations.relate(old, new, "related")  # created now, long after both memories

    def memory_edges(view_edges) -> set[tuple[str, str]]:
        return {(e["source"], e["target"]) for e in view_edges
                if not e["source"].startswith("concept:") and not e["target"].startswith("concept:")}

    assert memory_edges(service.graph(node=old, depth=1).edges)
    assert memory_edges(service.graph(node=old, depth=1, as_of="2024-06-01T00:00:00Z").edges) == set()
    assert memory_edges(service.graph(as_of="2024-06-01T00:00:00Z").edges) == set()
    then = service.exports.graph(ExportScope(as_of="2024-06-01T00:00:00Z")).graph
    assert [d for _, _, d in then.edges(data=True) if d.get("family") == "relation"] == []
    now = service.exports.graph(ExportScope()).graph
    assert [d["edge_type"] for _, _, d in now.edges(data=True) if d.get("family") == "relation"] == ["related"]

"""Projection snapshots: opening from a snapshot plus the change log equals a load from the rows."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.service import unit_of_work
from graphmem.settings import SemanticSettings
from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.node_columns import MEMORY_COLUMNS, NODE_COLUMNS
from graphmem.store.projection import GraphProjection, VisibilityFilter
from graphmem.store.projection_snapshot import load_snapshot, save_snapshot, snapshot_path
from graphmem.store.semantic_index import SemanticIndex
from tests.conftest import ORDERS, WEBHOOK

TEXTS = [WEBHOOK, ORDERS, "Redis holds the session storage for the web app",
         "Zebra-striped canary deploys use the flamingo feature flag service",
         "Never retry a non-idempotent POST to a downstream service"]


@pytest.fixture(autouse=True)
def small_snapshots(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # where a PostgreSQL store's snapshot goes
    monkeypatch.setattr(unit_of_work, "SNAPSHOT_MIN_MEMORIES", 1)
    monkeypatch.setattr(unit_of_work, "SNAPSHOT_EVERY", 1)


def _open(db: Path | str, extractor) -> MemoryService:
    return MemoryService(Settings.load(db=str(db), environ={}), extractor=extractor)


def _same(a: MemoryService, b: MemoryService) -> None:
    """Equal as graphs: node numbering may differ (a followed write appends its concepts after the
    memories loaded before it), so everything is compared by memory id and concept key."""
    pa, pb = a.projection, b.projection
    assert pa.memory_nodes.keys() == pb.memory_nodes.keys() and pa.concept_nodes.keys() == pb.concept_nodes.keys()
    assert pa.relations == pb.relations and pa.memory_count == pb.memory_count
    for memory_id, node in pa.memory_nodes.items():
        other = pb.memory_nodes[memory_id]
        assert pa.tags.get(node) == pb.tags.get(other)
        for name in ("status", "valid_to", "hidden", "length", "strength"):
            assert pa.col(name)[node] == pb.col(name)[other], (memory_id, name)
    for key, node in pa.concept_nodes.items():
        assert pa.col("df")[node] == pb.col("df")[pb.concept_nodes[key]], key
    assert _edges(pa) == pytest.approx(_edges(pb), rel=1e-6)  # float32 weights: rounded once per merge
    for query in ("retry webhooks", "flamingo canary", "session storage"):
        assert [h.id for h in a.search(query).hits] == [h.id for h in b.search(query).hits]
        keyword = [[(p.names[node], round(score, 9)) for node, score in p.keywords.rank(query.split(), 10)]
                   for p in (pa, pb)]
        assert keyword[0] == keyword[1] and keyword[0], query  # the keyword index, followed and restored


def _edges(projection) -> dict[tuple[str, str], float]:
    adjacency = projection.graph.adjacency().tocoo()
    return {(projection.names[i], projection.names[j]): round(float(w), 9)
            for i, j, w in zip(adjacency.row.tolist(), adjacency.col.tolist(), adjacency.data.tolist(), strict=True)
            if w > 1e-12}


def test_a_store_opened_from_its_snapshot_and_the_log_answers_like_a_fresh_load(new_store, extractor):
    db = new_store("memory.db")
    first = _open(db, extractor)
    ids = [first.store(text, project="p", tags=["t"]).id for text in TEXTS[:3]]
    first.relations.relate(ids[1], ids[0], "supports")
    first.facts.add("alice", "works at", "acme")
    first.close()
    assert snapshot_path(first.engine).exists()

    writer = _open(db, extractor)  # another process writes after the snapshot was taken
    late = [writer.store(text, project="p").id for text in TEXTS[3:]]
    writer.relations.relate(late[1], ids[0], "supersedes")
    writer.edits.forget(ids[2])

    from_snapshot = _open(db, extractor)
    assert 0 < from_snapshot.uow._snapshot_generation < writer.uow.generation  # opened from the snapshot
    assert from_snapshot.uow.generation == writer.uow.generation  # and followed the log since
    snapshot_path(first.engine).unlink()
    from_rows = _open(db, extractor)
    _same(from_snapshot, from_rows)
    for service in (writer, from_snapshot, from_rows):
        service.close()


@pytest.mark.sqlite_only("deletes the store's files and creates another store at the same path")
def test_a_snapshot_of_another_store_at_the_same_path_is_not_used(tmp_path, extractor):
    db = tmp_path / "memory.db"
    old = _open(db, extractor)
    old.store(WEBHOOK)
    old.store(ORDERS)
    old.close()
    saved = snapshot_path(old.engine).read_bytes()
    for leftover in tmp_path.glob("memory.db*"):
        leftover.unlink()
    new = _open(db, extractor)
    new.store("Redis holds the session storage for the web app")
    new.store("Zebra-striped canary deploys use the flamingo feature flag service")
    new.uow.router.close()
    new.engine.dispose()  # no close(): keep the old snapshot in place
    snapshot_path(new.engine).write_bytes(saved)
    reopened = _open(db, extractor)
    assert set(reopened.projection.memory_nodes) == {m.id for m in reopened.repository.memories_by_seq([1, 2]).values()}
    assert [h.content for h in reopened.search("webhook deliveries").hits if "Stripe" in h.content] == []
    reopened.close()


class _HashEmbedder:
    """Unit vectors from a text's hash: enough to tell restored rows from fresh ones."""

    dimensions = 8

    def embed(self, texts: list[str]):
        vectors = np.array([np.random.default_rng(sum(map(ord, text))).normal(size=8) for text in texts])
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)

    def ready(self) -> bool:
        return True


def test_restored_vector_tables_hold_exactly_their_rows_and_grow_on_the_next_write():
    settings = SemanticSettings(enabled=True, related_k=0)
    saved = SemanticIndex(_HashEmbedder(), settings)
    saved.add_memories([10, 11, 12], TEXTS[:3])
    restored = SemanticIndex(_HashEmbedder(), settings)
    restored.restore(saved.state(), {}, {})
    assert len(restored.memories.vectors) == restored.memories.count == 3  # no headroom until it grows
    query = _HashEmbedder().embed(["retry webhooks"])[0]
    nodes = np.array([12, 10, 11, 99])
    assert restored.memory_similarity(query, nodes).tolist() == saved.memory_similarity(query, nodes).tolist()
    for index in (saved, restored):
        index.add_memories([13], TEXTS[3:4])
    assert restored.memory_similarity(query, np.array([13, 10])).tolist() == saved.memory_similarity(
        query, np.array([13, 10])).tolist()


def _saved(service, tmp_path, name="projection.npz"):
    with snapshot(service.engine) as connection:
        generation = current_generation(connection)
    path = tmp_path / name
    save_snapshot(service.projection, path, service.engine, generation)
    return path, generation


def _restored(service, path, generation):
    restored = GraphProjection(service.projection.settings, service.settings.semantic, service.projection.embedder)
    assert load_snapshot(restored, path, service.engine, generation) == generation
    return restored


def test_a_restored_projection_grows_in_memory_and_leaves_its_snapshot_file_as_it_was(service, tmp_path):
    first = service.store("Deploy the API with helm upgrade --atomic").id
    path, generation = _saved(service, tmp_path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    restored = _restored(service, path, generation)
    assert restored.names == service.projection.names
    assert restored.concept_nodes == service.projection.concept_nodes
    assert restored.memory_nodes == service.projection.memory_nodes
    assert restored.semantic.compact == service.projection.semantic.compact

    # Columns and vectors were mapped copy-on-write: writing to them changes the projection, not the file.
    node = restored.memory_nodes[first]
    restored.columns.memory("strength")[restored.columns.rows_of(node)] = 0.125
    restored.semantic.memories.vectors[0, 0] = 7
    assert restored.col("strength")[node] == 0.125
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert _restored(service, path, generation).col("strength")[node] != 0.125


def test_a_name_with_a_nul_in_it_still_round_trips(service, tmp_path):
    service.store("Rotate the signing keys every quarter")
    service.projection.names[-1] += "\x00"  # no write path makes one; the snapshot must not lose it
    path, generation = _saved(service, tmp_path)
    assert _restored(service, path, generation).names == service.projection.names


def test_a_store_opened_from_its_snapshot_takes_new_memories_and_finds_old_and_new(tmp_path, extractor, monkeypatch):
    from graphmem import MemoryService, Settings
    from graphmem.service import unit_of_work

    monkeypatch.setattr(unit_of_work, "SNAPSHOT_MIN_MEMORIES", 1)  # a snapshot even for this small store
    settings = Settings.load(environ={}, db=str(tmp_path / "store.db"))
    writer = MemoryService(settings, extractor=extractor)
    old = writer.store_many([{"content": f"Invoice {n} is computed from the line items"} for n in range(40)])
    writer.store("Roll back a bad release with the deploy script")
    writer.uow._save_snapshot(writer.uow.projection)
    writer.close()
    reopened = MemoryService(settings, extractor=extractor)
    try:
        assert reopened.uow._snapshot_generation > 0  # opened from the snapshot, not from the rows
        assert reopened.projection.memory_count == 41
        # The compact forms, built on their first read: a query word no concept spells seeds its form.
        assert ("roll", "form") in [(seed.name, seed.match) for seed in reopened.associate("rollback").seed_nodes]
        new = reopened.store("The invoice line items are rounded per currency before the total").id
        ids = [hit.id for hit in reopened.search("invoice line items rounded currency", limit=5).hits]
        assert ids[0] == new and {r.id for r in old} & set(ids)
    finally:
        reopened.close()


def test_a_setting_that_acts_on_queries_keeps_the_snapshot_and_one_that_shapes_the_projection_does_not(
        service, tmp_path):
    service.store("Deploy the API with helm upgrade --atomic")
    path, generation = _saved(service, tmp_path)

    def loads(activation: dict[str, object] | None = None, **semantic: object) -> bool:
        fresh = GraphProjection(service.projection.settings.model_copy(update=activation or {}),
                                service.settings.semantic.model_copy(update=semantic), service.projection.embedder)
        return load_snapshot(fresh, path, service.engine, generation) == generation

    assert loads(gate_open=0.2, name_weight=0.5, turn_affinity_weight=0.0)  # the query's arithmetic only
    assert loads({"nested_phrase_weight": 1.0, "hops": 2, "hub_share": 0.2, "length_norm": 0.5})  # the walk's
    assert not loads(join_weight=0.5)  # the edges between forms of one concept
    assert not loads(related_k=3)  # relatedness edges
    assert not loads({"topic_exponent": 2.0})  # the mention edges' weights
    assert not loads({"cooccurrence": True})  # co-occurrence edges


def test_a_damaged_snapshot_is_not_used(service, tmp_path):
    service.store("Deploy the API with helm upgrade --atomic")
    path, generation = _saved(service, tmp_path)
    whole = path.read_bytes()
    fresh = GraphProjection(service.projection.settings, service.settings.semantic, service.projection.embedder)
    for damaged in (b"", whole[: len(whole) // 2], whole[:100] + bytes(len(whole) - 100)):
        path.write_bytes(damaged)  # empty, cut short, or its members zeroed: the caller loads from the rows
        assert load_snapshot(fresh, path, service.engine, generation) is None


def test_names_added_after_a_snapshot_load_are_saved_with_it_and_found_after_the_next_open(new_store, extractor):
    db = new_store("memory.db")
    first = _open(db, extractor)
    for text in TEXTS[:3]:
        first.store(text)
    first.close()
    second = _open(db, extractor)  # from the snapshot: its names are packed
    assert second.uow._snapshot_generation > 0
    added = second.store(f"{TEXTS[3]}: déjà vu").id
    assert added in second.projection.memory_nodes and "flamingo" in second.projection.concept_nodes
    assert "flamingo" in second.projection.concept_nodes.added  # a dict entry, not a packed one
    second.close()  # a snapshot of the packed names and the added ones
    third = _open(db, extractor)
    assert third.uow._snapshot_generation == second.uow.generation  # the snapshot second.close() wrote
    projection = third.projection
    assert not projection.concept_nodes.added and not projection.memory_nodes.added  # all packed now
    assert projection.names[projection.memory_nodes[added]] == added
    assert projection.names[projection.concept_nodes["flamingo"]] == "flamingo"
    snapshot_path(third.engine).unlink()
    from_rows = _open(db, extractor)
    _same(third, from_rows)
    for service in (third, from_rows):
        service.close()


def test_a_format_6_snapshot_still_loads_with_its_names_split_and_its_maps_built(service, tmp_path):
    first = service.store("Deploy the API with helm upgrade --atomic").id
    service.store("Rollback of the Ünïcödé 数据库 migration")
    path, generation = _saved(service, tmp_path)
    with np.load(path) as saved:  # as format 6 wrote it: no start offsets, no keys
        arrays = {name: saved[name] for name in saved.files
                  if name not in {"names_starts", "concept_keys", "concept_slots", "memory_keys", "memory_slots",
                                  "compact_starts", "compact_keys", "compact_slots"}}
    header = json.loads(arrays["header"].tobytes())
    arrays = _columns_by_node(arrays)
    arrays["header"] = np.frombuffer(json.dumps({**header, "format": 6}).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    restored = _restored(service, path, generation)
    assert restored.names == service.projection.names
    assert restored.memory_nodes[first] == service.projection.memory_nodes[first]
    assert dict(restored.concept_nodes) == dict(service.projection.concept_nodes)
    assert dict(restored.semantic.compact) == dict(service.projection.semantic.compact)
    arrays["header"] = np.frombuffer(json.dumps({**header, "format": 9}).encode(), dtype=np.uint8)
    np.savez(path, **arrays)  # a format this reader does not know: the caller loads from the rows
    fresh = GraphProjection(service.projection.settings, service.settings.semantic, service.projection.embedder)
    assert load_snapshot(fresh, path, service.engine, generation) is None


def _columns_by_node(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A snapshot's columns as format 7 and before held them: every field for every node, no memory rows."""
    arrays = dict(arrays)
    nodes = arrays.pop("col_node")[:-1]
    arrays.pop("col_memory_row")
    for name, (dtype, fill) in MEMORY_COLUMNS.items():
        if name != "node":
            by_node = np.full(arrays["col_node_type"].size, fill, dtype)
            by_node[nodes] = arrays[f"col_{name}"][:-1]
            arrays[f"col_{name}"] = by_node
    return arrays


def test_a_format_7_snapshot_holding_every_field_by_node_still_loads_the_same(service, tmp_path):
    memories = [service.store(text, project=project, kind=kind).id for text, project, kind in (
        ("Deploy the API with helm upgrade --atomic", "web", "decision"),
        ("Rollback of the billing migration", "billing", "error"),
        ("The helm chart pins the API image", "web", "note"))]
    service.edits.forget(memories[1])
    path, generation = _saved(service, tmp_path)
    with np.load(path) as saved:
        arrays = _columns_by_node({name: saved[name] for name in saved.files})
    header = json.loads(arrays["header"].tobytes())
    arrays["header"] = np.frombuffer(json.dumps({**header, "format": 7}).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    restored = _restored(service, path, generation)
    assert restored.memory_nodes == service.projection.memory_nodes
    for name in (*NODE_COLUMNS, *MEMORY_COLUMNS):
        if name != "node":
            assert restored.col(name).tolist() == service.projection.col(name).tolist(), name
    view = VisibilityFilter(project="web")
    assert np.array_equal(restored.visible(view, 0), service.projection.visible(view, 0))
    restored.set_hidden(memories[0], True)  # a restored projection is written by memory row
    assert restored.col("hidden")[restored.memory_nodes[memories[0]]]



def resident_pages(address: int, size: int) -> list[bool]:
    """Whether each page wholly inside ``size`` bytes at ``address`` is mapped into this process (Linux's
    ``/proc/self/pagemap``: bit 63 of each page's entry)."""
    page = 4096
    first, stop = -(-address // page), (address + size) // page
    with open("/proc/self/pagemap", "rb") as pagemap:
        pagemap.seek(first * 8)
        entries = pagemap.read((stop - first) * 8)
    return [bool(int.from_bytes(entries[i:i + 8], "little") >> 63) for i in range(0, len(entries), 8)]


@pytest.mark.skipif(not Path("/proc/self/pagemap").exists(), reason="reads Linux's page map")
def test_the_members_a_load_did_not_keep_give_their_pages_back_and_the_kept_ones_keep_their_changes(tmp_path):
    from graphmem.store.projection_snapshot import _mapped, _release_unkept

    path = tmp_path / "members.npz"
    values = np.arange(4096 * 4, dtype=np.int64)  # 32 pages a member
    np.savez(path, copied=values, kept=values * 2, viewed=values * 3)
    arrays = _mapped(path)
    copy = np.array(arrays["copied"])  # read once, as a load copies a member into a table of its own
    where = (arrays["copied"].__array_interface__["data"][0], arrays["copied"].nbytes)
    kept = arrays["kept"]  # held as it is
    kept[5] = -1  # changed in place (copy-on-write), as a follow changes a mapped column
    view = arrays["viewed"][1:]  # a view holds its member
    assert np.array_equal(view, values[1:] * 3)
    assert all(resident_pages(*where))
    _release_unkept(arrays)
    assert not arrays
    assert not any(resident_pages(*where))  # nothing referred to it: its pages are given back
    assert np.array_equal(copy, values)
    assert kept[5] == -1 and np.array_equal(kept[6:], values[6:] * 2)
    assert all(resident_pages(view.__array_interface__["data"][0], view.nbytes))
    assert np.array_equal(view, values[1:] * 3)


@pytest.mark.skipif(not Path("/proc/self/pagemap").exists(), reason="reads Linux's page map")
@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_mapping_a_snapshot_reads_only_its_members_headers(tmp_path, version):
    """A load maps the members and reads each one's header: a page or two of each, not 128 KiB (32 pages of a
    member the queries may never read, resident once read)."""
    import zipfile

    from graphmem.store.projection_snapshot import _mapped

    path = tmp_path / "members.npz"
    values = np.arange(4096 * 64, dtype=np.int64)  # 2 MiB a member, 512 pages
    with zipfile.ZipFile(path, "w") as archive:
        for name in ("first", "second"):
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, values if name == "first" else values * 2, version=version)
    arrays = _mapped(path)
    assert np.array_equal(arrays["first"][:10], values[:10]) and arrays["second"][-1] == values[-1] * 2
    for name in ("first", "second"):
        pages = resident_pages(arrays[name].__array_interface__["data"][0], arrays[name].nbytes)
        # The header's page, and whatever neighbours the kernel maps with a fault (fault-around: 16 pages), and
        # the pages the asserts above read.
        assert sum(pages) <= 2 * 16 + 2
        assert sum(pages[16:-16]) == 0


def test_a_snapshot_written_under_schema_4_still_loads_and_an_older_one_does_not(service, tmp_path, monkeypatch):
    """Schema 5 dropped only PostgreSQL's full-text column, which no projection reads: an upgraded store keeps
    its snapshots (a 1M-memory store's rebuild from the rows is minutes). Any other schema is refused."""
    from graphmem.store import projection_snapshot

    service.store("Deploy the API with helm upgrade --atomic")
    for schema, usable in ((4, True), (3, False), (projection_snapshot.SCHEMA_VERSION + 1, False)):
        with monkeypatch.context() as patched:
            patched.setattr(projection_snapshot, "SCHEMA_VERSION", schema)  # what save_snapshot writes
            path, generation = _saved(service, tmp_path)
        fresh = GraphProjection(service.projection.settings, service.settings.semantic, service.projection.embedder)
        loaded = load_snapshot(fresh, path, service.engine, generation)
        assert (loaded == generation) is usable, schema
        if usable:
            assert fresh.memory_nodes.keys() == service.projection.memory_nodes.keys()

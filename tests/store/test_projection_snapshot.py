"""The projection snapshot: mapped, not read, so a projection restored from it is an ordinary one."""

from __future__ import annotations

import hashlib

from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.projection import GraphProjection
from graphmem.store.projection_snapshot import load_snapshot, save_snapshot


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
    restored._cols["strength"][node] = 0.125
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
    writer.uow._save_snapshot()
    writer.close()
    reopened = MemoryService(settings, extractor=extractor)
    try:
        assert reopened.uow._snapshot_generation > 0  # opened from the snapshot, not from the rows
        assert reopened.projection.memory_count == 40
        new = reopened.store("The invoice line items are rounded per currency before the total").id
        ids = [hit.id for hit in reopened.search("invoice line items rounded currency", limit=5).hits]
        assert ids[0] == new and {r.id for r in old} & set(ids)
    finally:
        reopened.close()

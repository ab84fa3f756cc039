"""``graphmem snapshot`` (``MemoryService.write_snapshots``): the projection snapshots a server opens from are
written ahead of its first read, per project on a partitioned server and whole otherwise, on SQLite and
PostgreSQL; a server opened afterwards loads them instead of the rows and answers the same."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.cli import main
from graphmem.errors import InvalidInput
from graphmem.service import unit_of_work
from graphmem.store.projection_snapshot import is_current_format

WORDS = ["webhook", "retry", "stripe", "billing", "invoice", "refund", "search", "index", "queue", "worker",
         "deploy", "kubernetes", "cache", "redis", "postgres", "migration", "schema", "token", "auth", "login"]
QUERIES = ("webhook retry", "redis cache timeout", "login session token", "stripe refund invoice")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # where a PostgreSQL store's snapshots go


@pytest.fixture
def written(settings: Settings, extractor) -> Settings:
    """A store with 40 memories in ``api``, 3 in ``web`` and 2 in no project."""
    service = MemoryService(settings, extractor=extractor)
    rng = random.Random(3)
    service.store_many([{"content": " ".join(rng.sample(WORDS, 6)) + f" note {number}", "project": "api"}
                        for number in range(40)])
    for number in range(3):
        service.store(" ".join(rng.sample(WORDS, 5)) + f" page {number}", project="web")
    service.store("webhook retry without a project")
    service.store("redis cache without a project")
    service.close()
    return settings


def _partitioned(settings: Settings) -> Settings:
    return settings.model_copy(update={"projection": settings.projection.model_copy(update={"partition": "project"})})


def _answers(service: MemoryService, project: str | None) -> list[list[str]]:
    return [[hit.id for hit in service.search(query, project=project).hits] for query in QUERIES] + [
        [memory.id for memory in service.associate(query, project=project).memories] for query in QUERIES]


def test_each_project_snapshot_is_written_and_a_new_server_loads_it(written, extractor, monkeypatch):
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 10)
    settings = _partitioned(written)
    from_rows = MemoryService(settings, extractor=extractor)
    expected = _answers(from_rows, "api")
    assert from_rows.uow.pool is not None
    left = from_rows.uow.pool.snapshot_of("api")
    from_rows.close()  # it held "api": its close wrote the snapshot; start from none
    assert left is not None
    left.unlink()

    service = MemoryService(settings, extractor=extractor)
    try:
        report = {item.project: item for item in service.write_snapshots()}
        assert sorted(report) == ["api", "web"]  # every project; the memories in none are in no project's file
        api, web = report["api"], report["web"]
        assert api.written and api.loaded_from == "rows" and api.memories == 40
        assert api.path is not None and Path(api.path).stat().st_size == api.file_bytes > 0
        assert not web.written and "fewer than 10 memories" in web.reason
        assert service.uow.pool is not None and not service.uow.pool.held()  # loaded to write, not kept
        again = service.write_snapshots(["api"])
        assert [(item.written, item.reason) for item in again] == [(False, "its snapshot is current")]
    finally:
        service.close()

    fresh = MemoryService(settings, extractor=extractor)
    try:
        assert _answers(fresh, "api") == expected
        pool = fresh.uow.pool
        assert pool is not None and pool.loads == 1 and pool.held()["api"].saved > 0  # from the file, not the rows
    finally:
        fresh.close()


def test_a_project_that_moved_on_is_written_again(written, extractor, monkeypatch):
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 10)
    service = MemoryService(_partitioned(written), extractor=extractor)
    try:
        [first] = service.write_snapshots(["api"])
        service.store("stripe webhook retry after the snapshot", project="api")
        [second] = service.write_snapshots(["api"])
        assert first.written and second.written and second.loaded_from == "snapshot"
        assert second.memories == first.memories + 1
    finally:
        service.close()


def test_an_unknown_project_or_a_whole_store_project_is_refused_before_anything_is_written(written, extractor,
                                                                                          monkeypatch):
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 1)
    service = MemoryService(_partitioned(written), extractor=extractor)
    try:
        with pytest.raises(InvalidInput, match="no memory belongs to project 'nope'"):
            service.write_snapshots(["api", "nope"])
        assert service.uow.pool is not None
        assert not any(service.uow.pool.snapshot_of(name).exists() for name in ("api", "web"))  # type: ignore[union-attr]
    finally:
        service.close()
    whole = MemoryService(written, extractor=extractor)
    try:
        with pytest.raises(InvalidInput, match="served whole"):
            whole.write_snapshots(["api"])
    finally:
        whole.close()


def test_the_whole_store_snapshot_is_written_and_opened(written, extractor, monkeypatch):
    monkeypatch.setattr(unit_of_work, "SNAPSHOT_MIN_MEMORIES", 10)
    service = MemoryService(written, extractor=extractor)  # opened from the rows, it wrote its snapshot
    try:
        service.store("stripe refund after the open")  # past that snapshot
        expected = _answers(service, None)
        [whole] = service.write_snapshots()
        assert whole.project is None and whole.written and whole.memories == 46
        [again] = service.write_snapshots()
        assert not again.written and again.reason == "its snapshot is current"
    finally:
        service.close()
    reopened = MemoryService(written, extractor=extractor)
    try:
        assert reopened.uow._snapshot_generation > 0  # opened from the file
        assert _answers(reopened, None) == expected
    finally:
        reopened.close()


def _cells_from(settings: Settings, rows: int) -> Settings:
    return settings.model_copy(update={"semantic": settings.semantic.model_copy(update={"cells_min_rows": rows})})


@pytest.mark.parametrize("partitioned", [False, True], ids=["whole", "per-project"])
def test_a_large_scope_s_snapshot_carries_its_coarse_cells(written, extractor, monkeypatch, partitioned):
    """Where a scan of every memory reads coarse cells (``cells_min_rows`` memories or more), the snapshot written
    ahead carries them, trained by the command: a server opened from it reads cells from its first query instead
    of scanning exactly while a thread trains them (150 ms a query at 1M). A current snapshot without them (the one
    the open wrote) is written again; below the threshold nothing is trained."""
    monkeypatch.setattr(unit_of_work, "SNAPSHOT_MIN_MEMORIES", 10)
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 10)
    if not written.semantic.enabled:
        pytest.skip("the semantic index is off in these settings")
    settings = _partitioned(written) if partitioned else written
    projects = ["api"] if partitioned else None

    def cells_at_open(rows: int) -> bool:
        reopened = MemoryService(_cells_from(settings, rows), extractor=extractor)
        try:
            projection = reopened.uow.fresh("api" if partitioned else None)
            return projection.semantic.cells.ready
        finally:
            reopened.close()

    service = MemoryService(_cells_from(settings, 1_000), extractor=extractor)
    try:
        [first] = service.write_snapshots(projects)
        assert first.written or first.reason == "its snapshot is current"
    finally:
        service.close()
    assert not cells_at_open(1_000_000)  # a small scope: no cells trained, none in the file

    service = MemoryService(_cells_from(settings, 20), extractor=extractor)
    try:
        [written_again] = service.write_snapshots(projects)
        assert written_again.written  # the file was current, but without the cells
        [current] = service.write_snapshots(projects)
        assert not current.written and current.reason == "its snapshot is current"
    finally:
        service.close()
    assert cells_at_open(20)  # restored from the file at the open: no query has asked for them


def test_a_small_store_is_not_snapshotted(written, extractor):
    service = MemoryService(written, extractor=extractor)
    try:
        [whole] = service.write_snapshots()
        assert not whole.written and whole.reason == "fewer than 5,000 memories: it loads from its rows as fast"
    finally:
        service.close()


def test_the_cli_command_reports_each_project(written, monkeypatch, capsys, backend):
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 10)
    monkeypatch.setenv("GRAPHMEM_PROJECTION__PARTITION", "project")
    assert main(["--db", written.db, "snapshot", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(item["project"], item["written"]) for item in report] == [("api", True), ("web", False)]
    assert main(["--db", written.db, "snapshot", "--project", "api"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["api: 40 memories, not written: its snapshot is current",
                                "0 of 1 snapshots written"]
    assert main(["--db", written.db, "snapshot", "--project", "nope"]) == 2
    assert "no memory belongs to project 'nope'" in capsys.readouterr().err


def test_a_current_snapshot_in_an_older_format_is_written_again(written, extractor, monkeypatch):
    """A format-7 file still loads, but it holds every memory field by node: the command rewrites it."""
    from tests.store.test_projection_snapshot import _columns_by_node

    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 10)
    service = MemoryService(_partitioned(written), extractor=extractor)
    try:
        [first] = service.write_snapshots(["api"])
        assert first.path is not None
        path = Path(first.path)
        with np.load(path) as saved:
            arrays = _columns_by_node({name: saved[name] for name in saved.files})
        header = json.loads(arrays["header"].tobytes())
        arrays["header"] = np.frombuffer(json.dumps({**header, "format": 7}).encode(), dtype=np.uint8)
        np.savez(path, **arrays)
        assert not is_current_format(path)
        [again] = service.write_snapshots(["api"])
        assert (again.loaded_from, again.written, again.memories) == ("snapshot", True, 40)  # it loaded, then
        assert is_current_format(path)
        [third] = service.write_snapshots(["api"])
        assert (third.written, third.reason) == (False, "its snapshot is current")
    finally:
        service.close()


def test_the_command_on_a_store_served_whole_reports_the_snapshot_its_open_wrote(written, monkeypatch, capsys):
    """A one-shot command opens the projection on first use; from the rows, a store this large writes its
    snapshot at once, and the command says so (not "current")."""
    monkeypatch.setattr(unit_of_work, "SNAPSHOT_MIN_MEMORIES", 10)
    assert main(["--db", written.db, "snapshot", "--json"]) == 0
    [first] = json.loads(capsys.readouterr().out)
    assert (first["loaded_from"], first["written"], first["memories"]) == ("rows", True, 45)
    assert first["file_bytes"] > 0
    assert main(["--db", written.db, "snapshot", "--json"]) == 0
    [second] = json.loads(capsys.readouterr().out)
    assert (second["loaded_from"], second["written"], second["reason"]) == ("snapshot", False,
                                                                           "its snapshot is current")

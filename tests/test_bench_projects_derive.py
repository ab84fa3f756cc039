"""``bench_projects --derive-from``: a scale-bench store given the per-project bench's projects is the store the
bench writes, as far as the projects go (every memory in the project ``build`` gives its corpus record, the
full-text scope with it, one session per project, a duplicate in its new project gone), and graphmem serves it."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_projects  # noqa: E402
from bench_scale import _corpus  # noqa: E402

from graphmem import MemoryService, Settings  # noqa: E402
from graphmem.store.fulltext import scope_token  # noqa: E402

RECORDS, PROJECTS = 240, 6


def test_a_derived_store_holds_each_memory_in_the_project_the_bench_would_have_written_it_to(tmp_path, extractor,
                                                                                           monkeypatch):
    source = tmp_path / "scale.db"
    corpus = _corpus()
    records = [next(corpus) for _ in range(RECORDS)]
    records[50] = dict(records[4])  # the scale store dedupes it in its own project: not in the derived store
    again = next(at for at in range(60, RECORDS) if bench_projects._project(at, PROJECTS) == bench_projects._project(
        3, PROJECTS) and records[at]["project"] != records[3]["project"])
    records[again] = dict(records[3]) | {"project": records[again]["project"]}  # its new project holds it already
    monkeypatch.setattr(bench_projects, "_corpus", lambda: iter(records))  # the scale store's corpus, in its order
    writer = MemoryService(Settings.load(environ={}, db=str(source)), extractor=extractor)
    writer.store_many(records)
    writer.close()
    before = source.read_bytes()
    derived = tmp_path / "projects.db"
    counts = bench_projects.derive(derived, source, len(records), PROJECTS)
    assert source.read_bytes() == before  # the source is only read
    connection = sqlite3.connect(derived)
    rows = connection.execute("SELECT content, project, project_key, session_id FROM memory ORDER BY seq").fetchall()
    stored_as, expected = set(), set()
    for index, record in enumerate(records):
        if (record["project"], record["content"]) not in stored_as:
            stored_as.add((record["project"], record["content"]))
            expected.add((bench_projects._project(index, PROJECTS), record["content"]))
    assert counts == {"memories": len(rows), "dropped": 1} and len(rows) == RECORDS - 2
    assert {(project, content) for content, project, _, _ in rows} == expected
    assert all(project == key for _, project, key, _ in rows)
    for project in {project for _, project, _, _ in rows}:
        held = connection.execute("SELECT count(*) FROM memory WHERE project_key = ?", (project,)).fetchone()[0]
        scoped = connection.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?",
                                    (f'scope : "{scope_token(project)}"',)).fetchone()[0]
        sessions = {row[3] for row in rows if row[1] == project}
        assert scoped == held and len(sessions) == 1
    assert connection.execute("SELECT count(*) FROM session").fetchone()[0] == len({row[1] for row in rows})
    connection.close()
    queries = Path(f"{derived}.queries.json")
    assert queries.exists()
    service = MemoryService(Settings.load(environ={}, db=str(derived), projection={"partition": "project"}),
                            extractor=extractor)
    try:
        hits = service.search(rows[0][0], project=rows[0][1]).hits
        assert hits and all(service.open([hit.id]).memories[0].project == rows[0][1] for hit in hits)
    finally:
        service.close()


def test_the_scoped_mode_serves_only_the_served_projects_each_load_timed(tmp_path, monkeypatch):
    """``bench_projects`` without ``--pool`` measures a server projecting only the five served projects; its unit
    of work once recursed without end on opening (its load read the very property that opens the projection)."""
    from graphmem.service import memory_service

    db = tmp_path / "projects.db"
    bench_projects.build(db, RECORDS, PROJECTS)
    monkeypatch.setattr(memory_service, "UnitOfWork", memory_service.UnitOfWork)  # the mode patches it: undone after
    timings: dict[str, float] = {}
    service = bench_projects._scoped_service(str(db), bench_projects.SERVED, timings)
    try:
        served = sum(1 for index in range(RECORDS) if bench_projects._project(index, PROJECTS) in bench_projects.SERVED)
        assert service.projection.memory_count == served
        assert set(timings) == {*bench_projects.SERVED, "all_served"}
        project = bench_projects.SERVED[0]
        query = json.loads(Path(f"{db}.queries.json").read_text(encoding="utf-8"))[project][0]
        assert service.search(query, project=project).hits
        assert not service.search(query, project=bench_projects.COLD).hits  # not projected here
    finally:
        service.close()

"""The full-text index is scoped by project: a project-filtered match reads only that project's rows, ranks
them exactly as the unscoped match filtered to the same rows does, and follows a memory that is deleted,
edited or moved to another project. A store of schema version 1 gets the scoped index when it is upgraded."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from graphmem import MemoryService, Settings
from graphmem.store import fulltext
from graphmem.store.engine import database_url
from tests.store.test_migrations import write_v1_store

TEXTS = ("Melanie: we went camping at the beach last weekend", "Caroline: camping sounds lovely, which beach?",
         "Melanie: the beach near the lake, the kids loved the campfire", "Caroline: I painted a lake at sunset")


def _seqs(service: MemoryService, project: str) -> list[int]:
    with service.engine.connect() as connection:
        return list(connection.execute(text("SELECT seq FROM memory WHERE project_key = :p ORDER BY seq"),
                                       {"p": project}).scalars())


@pytest.fixture
def two_projects(service: MemoryService) -> MemoryService:
    with service.engine.begin() as connection:  # PostgreSQL: the benches' reference index (a store keeps none)
        fulltext.ensure_reference_index(connection)
    for project in ("conv-a", "conv-b"):  # the same words in both projects, plus one project's own turns
        service.store_many([{"content": t, "project": project} for t in TEXTS])
    service.store_many([{"content": "Jon: my dance studio opens at the beach", "project": "conv-b"}])
    return service


def test_a_scoped_match_returns_only_the_projects_rows_ranked_as_the_filtered_match(two_projects):
    repository = two_projects.repository
    for project in ("conv-a", "conv-b"):
        own = _seqs(two_projects, project)
        scoped = repository.bm25("camping at the beach, lake", 10, project=project)
        filtered = repository.bm25("camping at the beach, lake", 10, allowed_seqs=own)
        assert scoped and {seq for seq, _ in scoped} <= set(own)
        assert [seq for seq, _ in scoped] == [seq for seq, _ in filtered]
        assert [score for _, score in scoped] == pytest.approx([score for _, score in filtered])
    assert not repository.bm25("dance studio", 10, project="conv-a")
    assert not repository.bm25("camping", 10, project="no-such-project")


def test_the_scope_follows_deletes_edits_and_moves(two_projects):
    repository = two_projects.repository
    first = _seqs(two_projects, "conv-a")[0]
    with two_projects.engine.begin() as connection:
        connection.execute(text("UPDATE memory SET content = 'Melanie: pottery class today' WHERE seq = :s"),
                           {"s": first})
    assert first not in {seq for seq, _ in repository.bm25("camping", 10, project="conv-a")}
    assert [seq for seq, _ in repository.bm25("pottery", 10, project="conv-a")] == [first]
    with two_projects.engine.begin() as connection:
        connection.execute(text("UPDATE memory SET project = 'conv-c', project_key = 'conv-c' WHERE seq = :s"),
                           {"s": first})
    assert not repository.bm25("pottery", 10, project="conv-a")
    assert [seq for seq, _ in repository.bm25("pottery", 10, project="conv-c")] == [first]
    with two_projects.engine.begin() as connection:
        connection.execute(text("DELETE FROM mention WHERE memory_seq = :s"), {"s": first})
        connection.execute(text("DELETE FROM memory WHERE seq = :s"), {"s": first})
    assert not repository.bm25("pottery", 10, project="conv-c")
    with two_projects.engine.connect() as connection:  # FTS5's index is consistent with its content
        if connection.dialect.name == "sqlite":  # (the reference tsvector is a column of the row itself)
            connection.execute(text("INSERT INTO memory_fts(memory_fts, rank) VALUES ('integrity-check', 1)"))


@pytest.mark.sqlite_only("the scope column of FTS5's index and its docsize rows")
def test_memories_without_a_project_are_not_scoped_and_rank_as_without_the_scope(service):
    service.store_many([{"content": t} for t in TEXTS])
    service.store("Sessions are stored in Redis near the beach", project="web")
    with service.engine.connect() as connection:
        scopes = connection.execute(text("SELECT scope FROM memory_fts_source ORDER BY seq")).scalars().all()
        assert scopes == ["", "", "", "", fulltext.scope_token("web")]
        # No scope token in a row without a project: its BM25 length is its content's, as before scopes.
        sizes = connection.execute(text("SELECT sz FROM memory_fts_docsize ORDER BY id")).scalars().all()
        assert [size[-1] for size in sizes] == [0, 0, 0, 0, 1]
    unfiltered = service.search("camping at the beach", limit=10).hits
    assert len(unfiltered) >= 3 and {hit.project for hit in unfiltered} >= {None}


def test_search_filtered_by_project_finds_only_that_project(two_projects):
    hits = two_projects.search("camping at the beach", project="conv-a", limit=10).hits
    assert hits and {hit.project for hit in hits} == {"conv-a"}


def test_an_upgraded_store_has_the_scoped_index(tmp_path, extractor):
    url = database_url(str(tmp_path / "v1.db"))
    write_v1_store(url)
    service = MemoryService(Settings.load(db=url, environ={}), extractor=extractor)
    try:
        with service.engine.connect() as connection:
            payments = list(connection.execute(text("SELECT seq FROM memory WHERE project_key = 'payments'"))
                            .scalars())
            columns = [row[1] for row in connection.execute(text("PRAGMA table_info(memory_fts)"))]
        assert columns == ["content", "scope"]
        scoped = service.repository.bm25("idempotency key", 10, project="payments")
        assert scoped and {seq for seq, _ in scoped} <= set(payments)
        assert not service.repository.bm25("idempotency key", 10, project="web")  # no such project
        assert service.search("idempotency key", project="payments").hits
    finally:
        service.close()


def test_scope_tokens_are_one_token_per_project():
    assert fulltext.scope_token("web") != fulltext.scope_token("web app")
    assert fulltext.scope_token("Web") != fulltext.scope_token("web")  # project keys are case-sensitive

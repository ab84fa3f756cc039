"""The repository's promises: dedupe by normalized content per project, one transaction per write,
and nothing from a ``<private>`` block ever reaching a table or the full-text index."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from graphmem import MemoryService, Settings
from graphmem.errors import InvalidInput, StorageError
from graphmem.store import repository
from tests.conftest import ORDERS, WEBHOOK, indexed_documents
from tests.strategies import content_spellings


def snapshot(service: MemoryService) -> dict[str, object]:
    """Everything a failed write must leave as it was: rows, the FTS index and the projection."""
    with service.engine.connect() as connection:
        tables = {name: connection.execute(text(f"SELECT count(*) FROM {name}")).scalar()
                  for name in ("memory", "concept", "mention", "concept_edge", "relation")}
        tables["indexed"] = indexed_documents(connection)
        df_total = connection.execute(text("SELECT coalesce(sum(df), 0) FROM concept")).scalar()
        next_seq = connection.execute(text("SELECT coalesce(max(seq), 0) FROM memory")).scalar()
    projection = service.projection
    return {**tables, "df_total": df_total, "next_seq": next_seq, "nodes": projection.graph.n_nodes,
            "edges": int(projection.graph.adjacency().nnz), "memory_count": projection.memory_count}


# -- dedupe --------------------------------------------------------------------------------------
def test_the_same_normalized_content_in_a_project_returns_the_existing_id(service):
    first = service.store("Use Redis for session storage", project="web")
    for spelling in ("use redis for SESSION storage", "  Use\tRedis  for\nsession storage ",
                     "Ｕｓｅ Ｒｅｄｉｓ for session storage"):  # full-width letters are NFKC-equal
        again = service.store(spelling, project="web")
        assert (again.id, again.duplicate) == (first.id, True), spelling
    assert service.status()["memories"] == 1


def test_the_same_content_in_another_project_or_no_project_is_a_new_memory(service):
    web = service.store(WEBHOOK, project="web")
    api = service.store(WEBHOOK, project="api")
    loose = service.store(WEBHOOK)
    loose_again = service.store(WEBHOOK.lower())
    assert len({web.id, api.id, loose.id}) == 3
    assert not (web.duplicate or api.duplicate or loose.duplicate)
    # no project is a project of its own: NULL must not defeat the unique constraint
    assert (loose_again.id, loose_again.duplicate) == (loose.id, True)


def test_duplicates_inside_one_batch_collapse_to_the_first(service):
    results = service.store_many([{"content": ORDERS}, {"content": WEBHOOK}, {"content": ORDERS.upper()}])
    assert [r.duplicate for r in results] == [False, False, True]
    assert results[2].id == results[0].id
    assert service.status()["memories"] == 2


def test_a_different_kind_does_not_make_the_same_content_new(service):
    first = service.store(ORDERS, kind="solution")
    assert service.store(ORDERS, kind="decision").id == first.id


@pytest.fixture(scope="module")
def shared_service(module_store, extractor) -> Iterator[MemoryService]:
    """One store per backend for every hypothesis example; each example writes to a project of its own."""
    memory = MemoryService(Settings.load(db=module_store("shared.db"), environ={}), extractor=extractor)
    yield memory
    memory.close()


@settings(max_examples=20, deadline=None)
@given(spellings=content_spellings())
def test_dedupe_is_stable_for_any_order_and_multiset_of_spellings(shared_service, spellings):
    contents, groups = spellings
    project = f"p-{uuid.uuid4().hex}"
    half = len(contents) // 2
    results = shared_service.store_many({"content": c, "project": project} for c in contents[:half])
    results += [shared_service.store(content, project=project) for content in contents[half:]]
    id_of_group: dict[int, str] = {}
    for group, result in zip(groups, results, strict=True):
        assert result.duplicate == (group in id_of_group)
        assert id_of_group.setdefault(group, result.id) == result.id
    with shared_service.engine.connect() as connection:
        stored = connection.execute(text("SELECT count(*) FROM memory WHERE project = :project"),
                                    {"project": project}).scalar()
    assert len(set(id_of_group.values())) == len(set(groups)) == stored


# -- co-occurrence -------------------------------------------------------------------------------
CO_TEXTS = [ORDERS, WEBHOOK, "Redis holds the session storage of the orders service",
            "The webhook handler retries the orders service when Redis is down",
            "Session storage moved from Redis to Postgres for the webhook handler"]


@pytest.mark.parametrize("projected", [False, True], ids=["default", "activation.cooccurrence"])
def test_co_occurrence_rows_are_written_whether_or_not_the_projection_reads_their_counts(
        new_store, extractor, projected):
    """With co-occurrence off (the default) the write skips reading the pairs' counts back, not the rows: the
    table holds the same counts either way, and the projection a write followed is the one the rows load."""
    counts: dict[bool, list[tuple[str, str, int]]] = {}
    for on in (not projected, projected):
        memory = MemoryService(Settings.load(db=new_store(f"co-{on}.db"), environ={},
                                             activation={"cooccurrence": on}), extractor=extractor)
        memory.store_many({"content": content} for content in CO_TEXTS[:3])
        for content in CO_TEXTS[3:]:
            memory.store(content)
        with memory.engine.connect() as connection:
            counts[on] = sorted((str(a), str(b), int(n)) for a, b, n in connection.execute(text(
                "SELECT ca.key, cb.key, e.count FROM concept_edge e JOIN concept ca ON ca.seq = e.a_seq "
                "JOIN concept cb ON cb.seq = e.b_seq")))
        followed = _named_edges(memory)
        memory.uow.reload()
        assert _named_edges(memory) == followed
        memory.close()
    assert counts[True] == counts[False]
    assert any(n > 1 for *_, n in counts[True])  # pairs repeated across memories were incremented



def _named_edges(memory: MemoryService) -> dict[tuple[str, str], float]:
    """The projection's edges by node name (node numbers depend on the order the projection met them)."""
    names, adjacency = memory.projection.names, memory.projection.graph.adjacency().tocoo()
    return {(names[a], names[b]): round(float(w), 6) for a, b, w in zip(adjacency.row, adjacency.col, adjacency.data,
                                                                        strict=True)}


# -- transactions --------------------------------------------------------------------------------
def test_one_bad_record_in_a_batch_writes_nothing(service):
    service.store(WEBHOOK)
    before = snapshot(service)
    with pytest.raises(InvalidInput, match="record 3"):
        service.store_many([{"content": ORDERS}, {"content": "Redis holds sessions"}, {"content": "  "}])
    assert snapshot(service) == before
    assert service.search("orders").hits == ()


def test_a_database_failure_midway_rolls_back_the_whole_insert(service, monkeypatch):
    service.store(WEBHOOK)
    before = snapshot(service)

    def fail(*_args: object) -> None:  # runs after the memory, concept and mention rows are written
        raise OperationalError("INSERT INTO concept_edge", {}, Exception("disk I/O error"))

    monkeypatch.setattr(repository, "_add_cooccurrences", fail)
    with pytest.raises(StorageError, match="nothing was written"):
        service.store_many([{"content": ORDERS}, {"content": "Redis holds the session storage"}])
    assert snapshot(service) == before
    if service.engine.dialect.name == "sqlite":  # the store's FTS5 index (a PostgreSQL store keeps none)
        assert service.repository.bm25("orders", 10) == []
    monkeypatch.undo()
    stored = service.store(ORDERS)  # the store is usable afterwards and the memory is findable
    assert [hit.id for hit in service.search("creating orders").hits][:1] == [stored.id]


# -- private blocks ------------------------------------------------------------------------------
PRIVATE_CASES = {
    "block": "Deploy with key <private>sk_live_SECRET</private> from the vault",
    "case and newlines": "Deploy with key <PRIVATE>\nsk_live_SECRET\n</Private> from the vault",
    "nested": "Deploy <private>outer <private>inner</private> sk_live_SECRET</private> from the vault",
    "unclosed": "Deploy from the vault <private>sk_live_SECRET and everything after",
}


@pytest.mark.parametrize("content", PRIVATE_CASES.values(), ids=PRIVATE_CASES.keys())
def test_private_blocks_are_never_stored(service, content):
    result = service.store(content, context="rotated <private>sk_live_SECRET</private> today")
    with service.engine.connect() as connection:
        rows = connection.execute(text("SELECT content, coalesce(context, '') FROM memory")).all()
        concepts = connection.execute(text("SELECT key FROM concept")).scalars().all()
    assert all("secret" not in column.lower() for row in rows for column in row)
    assert not any("secret" in key for key in concepts)
    assert "secret" not in " ".join(result.concepts)
    if service.engine.dialect.name == "sqlite":  # the store's FTS5 index (a PostgreSQL store keeps none)
        assert service.repository.bm25("sk_live_SECRET", 10) == []
    assert "vault" in rows[0][0]


def test_content_that_is_only_private_is_refused_and_nothing_is_stored(service):
    before = snapshot(service)
    with pytest.raises(InvalidInput, match="private"):
        service.store("<private>the whole thing</private>")
    assert snapshot(service) == before


def test_a_nul_character_is_refused_at_the_boundary(service):
    # PostgreSQL cannot store NUL in text; refusing it everywhere keeps the backends alike.
    with pytest.raises(InvalidInput, match="NUL"):
        service.store("before\x00after")


def test_a_page_of_hits_reads_each_memory_s_shown_fields_once_and_skips_missing_seqs(service):
    stored = service.store("Use Redis for session storage", project="web", tags=["cache", "infra"],
                           topic_key="sessions")
    with service.engine.connect() as connection:
        seq, created = connection.execute(text("SELECT seq, created_at FROM memory WHERE id = :id"),
                                          {"id": stored.id}).one()
    rows = service.repository.hit_rows([seq, seq, seq + 1000])
    assert rows == {seq: repository.HitRow(stored.id, "note", "Use Redis for session storage", "web", created,
                                           "sessions", ("cache", "infra"))}
    assert service.repository.content_heads([seq + 1000, seq], 9) == {seq: "Use Redis"}
    assert service.repository.hit_rows([]) == {} and service.repository.content_heads([], 9) == {}

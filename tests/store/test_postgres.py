"""The same service on PostgreSQL 15: a private server on a free loopback port, one database per test.

``GRAPHMEM_DB=postgresql+psycopg://…`` must switch the backend with no other change, so these tests
drive ``MemoryService`` exactly as the SQLite tests do: store, dedupe, search, associate,
export and import.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from sqlalchemy import text

from graphmem import MemoryService, Settings
from graphmem.errors import InvalidInput, StorageError
from graphmem.store import fulltext
from graphmem.store.engine import open_engine
from graphmem.store.tables import SCHEMA_VERSION
from tests.conftest import ORDERS, WEBHOOK
from tests.postgres import new_database

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_service(pg_url: str, extractor) -> Iterator[MemoryService]:
    memory = MemoryService(Settings.load(db=pg_url, environ={}), extractor=extractor)
    yield memory
    memory.close()


def test_store_dedupe_search_associate_open_and_graph_on_postgresql(pg_service):
    webhook = pg_service.store(WEBHOOK, kind="pattern", project="payments", tags=["stripe"],
                               meta={"source": {"pr": 42}})
    orders = pg_service.store(ORDERS, kind="solution", project="payments")
    again = pg_service.store("  stripe RETRIES webhook deliveries for three days, so every webhook handler "
                             "needs an idempotency KEY", kind="pattern", project="payments")
    assert (again.id, again.duplicate) == (webhook.id, True)
    assert not pg_service.store(WEBHOOK, project="other").duplicate

    hits = pg_service.search("idempotency key header", project="payments").hits
    assert hits[0].id == orders.id and hits[0].bm25_rank == 1
    assert [h.id for h in pg_service.search("idempotency", kind="solution").hits] == [orders.id]
    recall = pg_service.associate("retry webhooks", project="payments")
    found = {m.id: m for m in recall.memories}
    assert orders.id in found and not found[orders.id].direct  # the two-hop association

    opened = pg_service.open([webhook.id, "mem_missing"])
    assert opened.memories[0].tags == ("stripe",) and opened.memories[0].meta == {"source": {"pr": 42}}
    assert opened.not_found == ("mem_missing",)
    assert pg_service.graph(limit=2).has_more


def _fulltext_objects(connection) -> list[str]:
    column = connection.execute(text("SELECT attname FROM pg_attribute WHERE attrelid = 'memory'::regclass "
                                     "AND attname = 'fts' AND NOT attisdropped")).scalars().all()
    index = connection.execute(text("SELECT indexname FROM pg_indexes WHERE indexname = 'ix_memory_fts'")).scalars()
    return [*column, *index.all()]


def test_a_store_keeps_no_fulltext_index_and_the_reference_bm25_is_built_on_demand(pg_service):
    """Schema 5: no generated tsvector or GIN index on a store's ``memory`` (no search reads them); the benches'
    reference BM25 says so clearly, and ranks once ``ensure_reference_index`` built them over the rows there."""
    pg_service.store(WEBHOOK)
    with pg_service.engine.connect() as connection:
        assert _fulltext_objects(connection) == []
        with pytest.raises(fulltext.ReferenceIndexMissing, match="ensure_reference_index"):
            fulltext.rank(connection, "orders", 5)
    assert [hit.content for hit in pg_service.search("stripe webhook").hits] == [WEBHOOK]  # the projection's leg
    with pg_service.engine.begin() as connection:
        fulltext.ensure_reference_index(connection)
        assert _fulltext_objects(connection) == ["fts", "ix_memory_fts"]
    pg_service.store(ORDERS)
    with pg_service.engine.connect() as connection:
        assert len(fulltext.rank(connection, "orders", 5)) == 1  # a row stored after: the generated column
        assert len(fulltext.rank(connection, "stripe", 5)) == 1  # a row stored before: computed at the build
        # Text that is not a word must never reach to_tsquery as syntax.
        for query in ("a:b | !c & (d)", "__init__", "über straße", "'quoted' \\ back", "the and of", "1.2.3"):
            assert isinstance(fulltext.rank(connection, query, 5), list), query


def test_a_failed_batch_writes_nothing_on_postgresql(pg_service):
    pg_service.store(WEBHOOK)
    with pytest.raises(InvalidInput, match="record 2"):
        pg_service.store_many([{"content": ORDERS}, {"content": "bad\x00byte"}])
    assert pg_service.status()["memories"] == 1
    assert pg_service.search("orders").hits == ()


def test_export_then_import_into_an_empty_postgresql_database_is_lossless(pg_service, postgres_server,
                                                                         extractor):
    pg_service.store_many([{"content": WEBHOOK, "kind": "pattern", "project": "payments", "tags": ["stripe"]},
                           {"content": ORDERS, "kind": "solution", "project": "payments"},
                           {"content": "Redis holds the session storage for the web app", "project": "web"}])
    original = io.StringIO()
    pg_service.export_jsonl(original)
    target_url = f"{postgres_server}/{new_database(postgres_server)}"
    target = MemoryService(Settings.load(db=target_url, environ={}), extractor=extractor)
    report = target.import_jsonl(original.getvalue().splitlines())
    assert report.added["memories"] == 3
    assert target.import_jsonl(original.getvalue().splitlines()).added["memories"] == 0  # idempotent
    copy = io.StringIO()
    target.export_jsonl(copy)
    assert copy.getvalue() == original.getvalue()
    assert [m.id for m in target.associate("retry webhooks").memories] == [
        m.id for m in pg_service.associate("retry webhooks").memories]
    target.close()


def test_a_newer_schema_is_refused_on_postgresql(pg_url):
    engine = open_engine(pg_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE graphmem_meta SET value = :v WHERE key = 'schema_version'"),
                           {"v": str(SCHEMA_VERSION + 1)})
    engine.dispose()
    with pytest.raises(StorageError, match="newer"):
        open_engine(pg_url)

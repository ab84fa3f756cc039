"""A partitioned server (``projection.partition = "project"``) answers as one that projects the whole store
(associate exactly, search by 90 % of its top ten), on SQLite and PostgreSQL: per project and with no project,
after another process's writes, after eviction under a tiny budget and a reload from the project's own snapshot,
and through a real MCP client session."""

from __future__ import annotations

import gc
import os
import random

import numpy as np
import pytest

from graphmem import MemoryService, Settings
from graphmem.service import unit_of_work
from graphmem.store.projection_pool import WHOLE_STORE

PROJECTS = ("alpha", "beta", "gamma")
WORDS = ["webhook", "retry", "stripe", "billing", "invoice", "refund", "search", "index", "queue", "worker",
         "deploy", "kubernetes", "cache", "redis", "postgres", "migration", "schema", "token", "auth", "login",
         "session", "timeout", "latency", "alert", "page", "oncall", "rollback", "release", "branch", "merge",
         "review", "test", "flaky", "build", "docker", "image", "registry"]
QUERIES = ("webhook retry", "redis cache timeout", "docker image registry build", "login session token",
           "rollback release", "flaky webhook retry docker")


@pytest.fixture
def stores(settings: Settings, extractor):
    """A store of 90 memories in three projects and a few in none, served whole (``base``, also the other
    process that writes) and partitioned (``pooled``, opened after the writes)."""
    base = MemoryService(settings, extractor=extractor)
    rng = random.Random(7)
    for number in range(90):
        project = PROJECTS[number % 3] if number % 10 else None
        base.store(" ".join(rng.sample(WORDS, 6)) + f" note {number}", project=project)
    pooled = MemoryService(_partitioned(settings), extractor=extractor)
    yield base, pooled
    pooled.close()
    base.close()


def _partitioned(settings: Settings, budget_mib: int = 1024) -> Settings:
    return settings.model_copy(update={"projection": settings.projection.model_copy(
        update={"partition": "project", "budget_mib": budget_mib})})


def _answers(service: MemoryService, project: str | None) -> list[list[str]]:
    return [[hit.id for hit in service.search(query, project=project).hits] for query in QUERIES] + [
        [memory.id for memory in service.associate(query, project=project).memories] for query in QUERIES]


def _agree(pooled: list[list[str]], whole: list[list[str]]) -> bool:
    """The pooled answers match the whole store's: associate exactly, search by most of its memories. A
    project's keyword index counts only its own memories in BM25's statistics (the whole store's index counts
    every project's: docs/scaling.md), so search's keyword leg ranks near-ties apart."""
    half = len(QUERIES)
    shared = [len(set(mine) & set(theirs)) / max(len(theirs), 1)
              for mine, theirs in zip(pooled[:half], whole[:half], strict=True)]
    return sum(shared) / half >= 0.9 and pooled[half:] == whole[half:]


def test_each_project_is_answered_as_the_whole_store_answers_it_from_its_own_projection(stores):
    base, pooled = stores
    for project in PROJECTS:
        assert _agree(_answers(pooled, project), _answers(base, project)), project
    held = pooled.uow.pool.held()
    assert list(held) == list(PROJECTS)  # one projection per project, no whole-store one
    for project, entry in held.items():
        projection = entry.projection
        assert {projection.names[node] for node in projection.memory_nodes.values()} == {
            memory_id for memory_id in base.projection.memory_nodes
            if base.repository.memories_by_id([memory_id])[memory_id].project == project}
        assert projection.store_memory_count == base.projection.memory_count


def test_a_query_with_no_project_is_answered_from_the_whole_store(stores):
    base, pooled = stores
    assert _answers(pooled, None) == _answers(base, None)
    assert list(pooled.uow.pool.held()) == [WHOLE_STORE]


def test_another_process_writes_are_seen_on_the_next_query(stores):
    base, pooled = stores
    assert _agree(_answers(pooled, "alpha"), _answers(base, "alpha"))
    mine = base.store("flaky webhook retry in the docker build", project="alpha").id
    base.store("flaky webhook retry docker, in beta", project="beta")  # counts in alpha's df, not its memories
    base.store("flaky docker registry", project="delta")  # a project never queried: concepts alpha holds
    assert mine in [hit.id for hit in pooled.search("flaky webhook retry docker", project="alpha").hits]
    assert _agree(_answers(pooled, "alpha"), _answers(base, "alpha"))
    entry = pooled.uow.pool.held()["alpha"]
    assert entry.projection.store_memory_count == base.projection.memory_count
    assert pooled.uow.pool.loads == 1  # followed, not reloaded
    # Its own writes too: the pool follows them from the log on the next read.
    own = pooled.store("a redis cache timeout paged the oncall", project="alpha").id
    assert own in [hit.id for hit in pooled.search("redis cache timeout oncall", project="alpha").hits]
    assert _agree(_answers(pooled, "alpha"), _answers(base, "alpha"))


def test_a_relation_from_another_project_hides_what_it_replaces(stores):
    base, pooled = stores
    old = base.store("the webhook retry budget is three days", project="alpha").id
    newer = base.store("the webhook retry budget is five days", project="beta").id
    assert old in [hit.id for hit in pooled.search("webhook retry budget", project="alpha").hits]
    base.relations.relate(newer, old, "supersedes")  # judged by default: hides the old one
    followed = [hit.id for hit in pooled.search("webhook retry budget", project="alpha").hits]
    assert old not in followed
    assert followed == [hit.id for hit in base.search("webhook retry budget", project="alpha").hits]
    pooled.uow.reload()  # and loaded from the rows: the flag comes from the crossing relation
    assert old not in [hit.id for hit in pooled.search("webhook retry budget", project="alpha").hits]


def test_a_relation_into_a_project_not_loaded_adds_no_edge_and_stays_a_relation(stores):
    _base, pooled = stores
    here = pooled.store("the redis cache timeout is ten seconds", project="alpha").id
    there = pooled.store("the redis cache timeout moved to thirty seconds", project="gamma").id
    pooled.relations.relate(here, there, "related")
    found = [hit.id for hit in pooled.search("redis cache timeout seconds", project="alpha").hits]
    assert here in found and there not in found
    alpha = pooled.uow.pool.held()["alpha"].projection
    assert there not in alpha.memory_nodes and not any(here in (edge.source_id, edge.target_id)
                                                       for edge in alpha.relations.values())
    opened = pooled.open([here])  # the relation itself is read from the rows
    assert [(r.source_id, r.target_id) for r in opened.relations] == [(here, there)]
    assert opened.concepts[here]  # from the mention rows: a store or an open loads no whole-store projection
    assert set(pooled.uow.pool.held()) == {"alpha"}


def test_eviction_under_a_tiny_budget_reloads_from_the_project_snapshot(settings, extractor, stores, monkeypatch):
    base, _ = stores
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 1)
    tiny = MemoryService(_partitioned(settings, budget_mib=1), extractor=extractor)
    try:
        pool = tiny.uow.pool
        assert pool is not None
        pool.budget = 1  # bytes: only the projection in use is kept
        for project in PROJECTS:
            assert _agree(_answers(tiny, project), _answers(base, project)), project
            assert list(pool.held())[-1] == project
        assert list(pool.held()) == [PROJECTS[-1]]
        evicted = PROJECTS[0]
        path = pool.snapshot_of(evicted)
        assert path is not None and path.exists()  # written when it was dropped
        base.store("flaky webhook retry after the eviction", project=evicted)  # past the snapshot
        loads = pool.loads
        assert _agree(_answers(tiny, evicted), _answers(base, evicted))
        assert pool.loads == loads + 1 and list(pool.held())[-1] == evicted
        assert pool.held()[evicted].saved > 0  # from its snapshot, then the log since
    finally:
        tiny.close()


@pytest.mark.anyio
async def test_a_search_through_an_mcp_session_on_a_partitioned_server(stores):
    from mcp import Client

    from graphmem.server import build_server

    base, pooled = stores
    async with Client(build_server(pooled.settings, tools="full", service=pooled)) as client:
        result = await client.call_tool("memory_search", {"query": "redis cache timeout", "project": "beta"})
        assert not result.is_error, result.content
        found = [hit["id"] for hit in result.structured_content["hits"]]
    assert found == [hit.id for hit in base.search("redis cache timeout", project="beta").hits]
    assert list(pooled.uow.pool.held()) == ["beta"]


@pytest.mark.anyio
async def test_open_and_status_on_a_partitioned_server_load_no_whole_store_projection(stores):
    from mcp import Client

    from graphmem.server import build_server

    base, pooled = stores
    hit = base.search("redis cache timeout", project="beta").hits[0].id
    async with Client(build_server(pooled.settings, tools="full", service=pooled)) as client:
        await client.call_tool("memory_search", {"query": "redis cache timeout", "project": "beta"})
        opened = await client.call_tool("memory_open", {"ids": [hit]})
        assert not opened.is_error, opened.content
        # the concepts come from the rows, as the whole store's projection names them
        assert opened.structured_content["concepts"][hit] == list(base.open([hit]).concepts[hit])
        status = await client.call_tool("memory_status", {})
        assert not status.is_error, status.content
        shown = status.structured_content
        assert shown["memories"] == base.status(graph=False)["memories"]
        assert shown["projections"]["projects"] == ["beta"] and 0 < shown["projections"]["memories"] < 90
        assert list(pooled.uow.pool.held()) == ["beta"]  # neither call loaded the whole store
        with_graph = await client.call_tool("memory_status", {"graph": True})
        assert with_graph.structured_content["graph"]["memories"] == shown["memories"]
        assert None in pooled.uow.pool.held()  # the graph's statistics are the whole store's, loaded on demand


class _HashEmbedder:
    """Unit vectors from a text's hash, 256 wide like the model's (so the vector tables weigh what they do)."""

    dimensions = 256

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.array([np.random.default_rng(sum(map(ord, text))).normal(size=256) for text in texts])
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)

    def ready(self) -> bool:
        return True


def _project_rows(memories: int, concepts: int, seed: int) -> tuple[list, list, np.ndarray, list[str]]:
    """Rows as ProjectScope.load reads them: one project's memories, seqs spread over a 100-times larger store."""
    rng = random.Random(seed)
    words = [f"{rng.choice(WORDS)}{number}" for number in range(concepts)]
    concept_rows = [(7 * seq + 1, key if seq % 3 else f"{key} {rng.choice(WORDS)}", "term" if seq % 3 else "phrase",
                     rng.randint(1, 50)) for seq, key in enumerate(words)]
    memory_rows, contents, mentions = [], [], []
    for number in range(memories):
        seq = 100 * number + 5
        mentioned = rng.sample(range(concepts), 12)
        contents.append(" ".join(concept_rows[c][1] for c in mentioned) + f" note {number}")
        memory_rows.append((seq, f"m{number:06d}", "p01", "note", "active", 1_000, 1_000, None, "[]", 12, 1.0, 0, 0,
                            None, None, "[]"))
        mentions += [(seq, concept_rows[c][0], rng.random()) for c in mentioned]
    return concept_rows, memory_rows, np.array(mentions, dtype=np.float64), contents


def test_the_pools_estimate_of_a_project_is_within_a_quarter_of_what_its_load_allocates():
    import tracemalloc

    from graphmem.settings import ActivationSettings, SemanticSettings
    from graphmem.store.keyword_index import index_terms
    from graphmem.store.projection import MEMORY, GraphProjection
    from graphmem.store.projection_pool import estimated_bytes

    for text in _project_rows(3_000, 12_000, seed=1)[3]:
        index_terms(text)  # the process-wide stem cache holds these tokens before the measure
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        projection = GraphProjection(ActivationSettings(), SemanticSettings(enabled=True, related_k=0),
                                     _HashEmbedder())
        concepts, memories, mentions, contents = _project_rows(3_000, 12_000, seed=1)
        projection.build(concepts, memories, mentions, [], [], [], contents)
        projection.graph.column_counts(np.flatnonzero(projection.col("node_type") == MEMORY))  # builds the transpose
        del concepts, memories, mentions, contents
        gc.collect()
        allocated = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert projection.memory_count == 3_000
    assert 0.75 * allocated <= estimated_bytes(projection) <= 1.25 * allocated, (estimated_bytes(projection), allocated)


def test_a_project_loaded_from_its_rows_holds_its_names_packed_and_shares_one_word_table(stores):
    base, pooled = stores
    for project in PROJECTS:
        assert _agree(_answers(pooled, project), _answers(base, project)), project
    held = [entry.projection for entry in pooled.uow.pool.held().values()]
    tables = {id(projection.word_table) for projection in held}
    assert len(tables) == 1 and held[0].word_table is not None
    for projection in held:
        # packed at the load; a query's concepts the project lacks are added after (ProjectScope.admit)
        assert 0 < len(projection.names) - projection.names.packed_count <= 5 or (
            projection.names.packed_count == len(projection.names))
        assert not projection.memory_nodes.added and not projection.keywords.vocabulary.added
        words = projection.semantic.words
        assert words.count > 0 and np.array_equal(
            words.vectors[words.rows(words.nodes[: words.count])],
            projection.semantic.embed([projection.names[node] for node in words.nodes[: words.count]]).astype(
                np.float16))
    # every project's rows are in the one table, a word the projects share held once
    distinct = {projection.names[node] for projection in held for node in projection.semantic.words.nodes[
        : projection.semantic.words.count]}
    assert held[0].word_table.rows_held == len(distinct) < sum(p.semantic.words.count for p in held)


def test_an_evicted_projection_releases_its_word_rows_and_the_one_kept_still_answers(settings, extractor, stores):
    from graphmem.store.projection_pool import engine_generation

    base, _ = stores
    tiny = MemoryService(_partitioned(settings, budget_mib=1), extractor=extractor)
    try:
        pool, engine = tiny.uow.pool, tiny.uow.engine
        assert pool is not None
        pool.budget = 1  # bytes: only the projection in use is kept
        for project in PROJECTS:  # each load evicts the one before; nothing else holds it (no query ran on it)
            pool.get(project, engine, engine_generation(engine))
        (kept,) = pool.held().values()
        words = kept.projection.semantic.words
        table = kept.projection.word_table
        assert table is not None and table.rows_held == len(set(words.rows(words.nodes[: words.count]).tolist()))
        assert table.rows_allocated > table.rows_held  # the evicted projects' own words were released
        assert _agree(_answers(tiny, PROJECTS[-1]), _answers(base, PROJECTS[-1]))
    finally:
        tiny.close()


def test_reads_give_the_freed_heap_back_after_a_load_and_then_at_most_once_a_second(stores, monkeypatch):
    from types import SimpleNamespace

    from graphmem.store import projection_pool

    _, pooled = stores
    trims: list[float] = []
    clock = [1_000.0]
    monkeypatch.setattr(projection_pool, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(projection_pool, "release_free_heap", lambda: trims.append(clock[0]))
    pooled.uow.pool._trimmed = clock[0]
    pooled.search("webhook retry", project="alpha")  # a load: trimmed after it
    assert len(trims) == 1
    for _ in range(3):
        pooled.search("redis cache timeout", project="alpha")
    assert len(trims) == 1
    clock[0] += 1.5
    pooled.search("redis cache timeout", project="alpha")
    assert trims == [1_000.0, 1_001.5]


def test_an_evicted_projection_is_not_kept_alive_by_the_recall_caches(settings, extractor, stores):
    import gc
    import weakref

    tiny = MemoryService(_partitioned(settings, budget_mib=1), extractor=extractor)
    try:
        pool = tiny.uow.pool
        assert pool is not None
        pool.budget = 1  # bytes: only the projection in use is kept
        tiny.search("webhook retry", project=PROJECTS[0])  # recall caches its filter's scope (the graph and more)
        first = weakref.ref(pool.held()[PROJECTS[0]].projection)
        tiny.search("webhook retry", project=PROJECTS[1])  # evicts the first project's projection
        assert list(pool.held()) == [PROJECTS[1]]
        gc.collect()
        assert first() is None  # its memory is given back, not held by a cached scope until eight filters pass
    finally:
        tiny.close()


def _member_pages(path, name: str) -> list[bool]:
    """Whether the pages of snapshot member ``name`` are mapped into this process (Linux's page map)."""
    import struct
    import zipfile

    from tests.store.test_projection_snapshot import resident_pages

    origin = None
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) > 5 and fields[5] == str(path) and int(fields[2], 16) == 0:
                origin = int(fields[0].split("-")[0], 16)
    assert origin is not None, f"{path} is not mapped"
    with open(path, "rb") as stream, zipfile.ZipFile(stream) as archive:
        info = archive.getinfo(f"{name}.npy")
        stream.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", stream.read(4))
    return resident_pages(origin + info.header_offset + 30 + name_length + extra_length, info.file_size)


@pytest.mark.skipif(not os.path.exists("/proc/self/pagemap"), reason="reads Linux's page map")
def test_a_project_loaded_from_its_snapshot_gives_back_what_it_copied_and_has_room_for_its_guests(
        settings, extractor, stores, monkeypatch):
    from graphmem.store.projection_pool import engine_generation

    base, _ = stores
    project = PROJECTS[0]
    for number in range(30):  # word vectors over a few pages
        base.store(f"{WORDS[number]} {WORDS[-1 - number]} zx{number}a yq{number}b wv{number}c", project=project)
    base.store("zeppelin hangar inspection checklist", project=PROJECTS[1])  # words only another project holds
    monkeypatch.setattr(unit_of_work, "PROJECT_SNAPSHOT_MIN_MEMORIES", 1)
    writer = MemoryService(_partitioned(settings), extractor=extractor)
    (written,) = writer.uow.write_snapshots([project])
    writer.close()
    assert written.written
    reader = MemoryService(_partitioned(settings), extractor=extractor)
    try:
        pool, engine = reader.uow.pool, reader.uow.engine
        assert pool is not None
        projection = pool.get(project, engine, engine_generation(engine))
        assert pool.held()[project].saved > 0  # from its snapshot
        # Its word vectors were copied into the pool's shared table: the file's pages of them went back.
        pages = _member_pages(pool.snapshot_of(project), "semantic_word_vectors")
        assert len(pages) >= 2 and not any(pages)
        # Room for guests made at the load: the first query's guests join without growing a per-node array.
        nodes, node_type, strength = (projection.graph.n_nodes, projection.columns.arrays["node_type"],
                                      projection.graph._out_strength)
        assert len(strength) > nodes and len(node_type) > nodes
        whole = _answers(base, project)
        assert _agree(_answers(reader, project), whole)
        reader.search("zeppelin hangar inspection", project=project)
        assert projection.graph.n_nodes > nodes  # the guests
        assert projection.columns.arrays["node_type"] is node_type and projection.graph._out_strength is strength
        assert _agree(_answers(reader, project), whole)
    finally:
        reader.close()

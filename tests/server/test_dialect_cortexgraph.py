"""cortexgraph's promises through the cortexgraph dialect and a real MCP client: a saved strength is a
strength, tags alone find memories, promotion writes the vault note, consolidation's strength comes from
cohesion, read_graph's relations reach across pages, and gc keeps a merged memory's lineage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from graphmem import MemoryService
from graphmem.server import build_server
from tests.server.test_tools import call

pytestmark = pytest.mark.anyio

CHARGES = ["The billing service retries failed card charges three times before giving up",
           "The billing service retries a failed card charge three times, then gives up",
           "Failed card charges are retried three times by the billing service before it gives up"]


@pytest.fixture
async def cortex(service, settings):
    async with Client(build_server(settings, tools="cortexgraph", service=service)) as connected:
        yield connected


async def test_a_saved_strength_is_stored_as_strength_not_as_uses(cortex):
    saved = await call(cortex, "save_memory", content="Card numbers are never logged", strength=1.5)
    opened = (await call(cortex, "open_memories", memory_ids=saved["memory_id"]))["memories"][0]
    assert opened["strength"] == 1.5 and opened["use_count"] == 0
    assert opened["score"] == pytest.approx(1.5, abs=0.01)  # (0 + 1)^β · D(0) · 1.5


async def test_tags_alone_find_memories_whose_text_does_not_name_the_tag(cortex):
    tagged = await call(cortex, "save_memory", content="Refunds over 500 euros need a second approver",
                        tags=["billing", "policy"])
    await call(cortex, "save_memory", content="The billing dashboard loads in two seconds", tags=["perf"])
    found = await call(cortex, "search_memory", tags=["billing"])
    assert [r["id"] for r in found["results"]] == [tagged["memory_id"]]
    both = await call(cortex, "search_memory", tags=["billing", "policy"])
    assert [r["id"] for r in both["results"]] == [tagged["memory_id"]]
    assert (await call(cortex, "search_memory", tags=["billing", "perf"]))["results"] == []
    unified = await call(cortex, "search_unified", tags=["policy"])
    assert [r["memory_id"] for r in unified["results"]] == [tagged["memory_id"]]


async def test_promotion_to_obsidian_writes_the_vault_note(settings, extractor, tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    configured = settings.model_copy(update={"lifecycle": settings.lifecycle.model_copy(
        update={"vault_path": str(vault)})})
    service = MemoryService(configured, extractor=extractor)
    try:
        async with Client(build_server(configured, tools="cortexgraph", service=service)) as cortex:
            saved = await call(cortex, "save_memory", content="Invoices are numbered per fiscal year")
            promoted = await call(cortex, "promote_memory", memory_id=saved["memory_id"], force=True,
                                  target="obsidian")
    finally:
        service.close()
    assert promoted["promoted_ids"] == [saved["memory_id"]] and len(promoted["vault_notes"]) == 1
    note = next(vault.rglob("*.md"))
    assert "Invoices are numbered per fiscal year" in note.read_text()


async def test_promotion_without_a_vault_says_so(cortex):
    saved = await call(cortex, "save_memory", content="Taxes are computed at checkout")
    promoted = await call(cortex, "promote_memory", memory_id=saved["memory_id"], force=True)
    assert promoted["promoted_ids"] == [saved["memory_id"]] and promoted["vault_notes"] == []
    assert "GRAPHMEM_LIFECYCLE__VAULT_PATH" in promoted["message"]


def _old(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


async def test_consolidation_strength_comes_from_cohesion_and_gc_keeps_the_lineage(cortex, service):
    originals = [r.id for r in service.store_many([{"content": c, "created_at": _old(200)} for c in CHARGES])]
    clusters = (await call(cortex, "cluster_memories"))["clusters"]
    cluster = next(c for c in clusters if set(c["memory_ids"]) == set(originals))
    preview = (await call(cortex, "consolidate_memories", cluster_id=cluster["id"]))["previews"][0]
    expected = round(min(2.0, 1.0 + min(0.5, 0.1 * cluster["cohesion"] * 3)), 6)
    assert preview["strength"] == expected
    applied = await call(cortex, "consolidate_memories", cluster_id=cluster["id"], mode="apply")
    merged = applied["new_memory_id"]
    opened = (await call(cortex, "open_memories", memory_ids=merged))["memories"][0]
    assert opened["strength"] == expected
    swept = await call(cortex, "gc")  # the archived originals are 200 days old: far below the threshold
    assert not set(originals) & set(swept["memory_ids"])
    lineage = {r["to"] for r in opened["relations"] if r["type"] == "consolidated_from"}
    kept = service.repository.memories_by_id(originals)
    assert lineage == set(originals) and {m.status for m in kept.values()} == {"archived"}


async def test_read_graph_returns_relations_across_pages(cortex):
    first = (await call(cortex, "save_memory", content="The ledger service owns invoices"))["memory_id"]
    second = (await call(cortex, "save_memory", content="Invoices are exported nightly to the ledger"))["memory_id"]
    await call(cortex, "create_relation", from_memory_id=first, to_memory_id=second, relation_type="related")
    for page in (1, 2):
        graph = await call(cortex, "read_graph", page=page, page_size=1)
        assert len(graph["memories"]) == 1
        assert [(r["from"], r["to"]) for r in graph["relations"]] == [(first, second)]


async def test_search_filters_apply_before_the_top_k_cut(cortex, service):
    service.store_many([{"content": f"Invoice {n}: the invoice export writes one invoice row per invoice line",
                         "created_at": _old(120)} for n in range(5)])
    fresh = (await call(cortex, "save_memory", content="The invoice export runs nightly"))["memory_id"]
    found = await call(cortex, "search_memory", query="invoice export", top_k=1, min_score=0.5)
    assert [r["id"] for r in found["results"]] == [fresh]
    recent = await call(cortex, "search_memory", query="invoice export", top_k=1, window_days=30)
    assert [r["id"] for r in recent["results"]] == [fresh]

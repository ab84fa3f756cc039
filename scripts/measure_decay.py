"""Measure the decay ranking weight (``decay.ranking_weight``) on the bundled sample corpus.

    python scripts/measure_decay.py            # the table in docs/lifecycle.md

The corpus spans 2026-01-05 … 2026-04-29; the clock is set to the morning after, as for an agent
that keeps working in the same store. For each weight it reports:

* demo: of the 23 demo queries (``memory_associate``, 8 results), how many reach the memory that
  shares no keyword with the query, and its mean reciprocal rank;
* search: the same target through ``memory_search`` (10 hits);
* newer-first: of the 5 superseded decision pairs (both visible), how often a search for the
  topic ranks the newer decision above the older one;
* self-recall@5: the share of the 341 memories a search for their own first eight words returns
  in its top 5 (what decay costs old memories).
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from graphmem import MemoryService, Settings
from graphmem.service import memory_service

DATA = Path(__file__).resolve().parent.parent / "data"
NOW_MS = int(datetime(2026, 4, 30, 9, 0, tzinfo=UTC).timestamp() * 1000)
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0)


def reciprocal_rank(ids: list[str], wanted: str | None) -> float:
    return 1.0 / (ids.index(wanted) + 1) if wanted in ids else 0.0


def measure(db: str, weight: float) -> dict[str, float]:
    settings = Settings.load(db=db, environ={}, decay={"ranking_weight": weight, "review_blend": 0.0})
    service = MemoryService(settings)
    content_id = {m["content"]: m["id"] for m in _all_memories(service)}
    queries = json.loads((DATA / "demo_queries.json").read_text(encoding="utf-8"))
    assoc, search = [], []
    for entry in queries:
        target = content_id.get(entry["expect_no_keyword_hit"])
        result = service.associate(entry["query"], mode=entry.get("mode", "recall"),
                                   project=entry.get("project"), max_results=8)
        hits = result.composition.sources if result.composition else result.memories
        assoc.append(reciprocal_rank([h.id for h in hits], target))
        found = service.search(entry["query"], project=entry.get("project"), limit=10).hits
        search.append(reciprocal_rank([h.id for h in found], target))
    newer_first = _newer_first(service, content_id)
    self_recall = _self_recall(service, content_id)
    service.close()
    return {"demo_hits": sum(r > 0 for r in assoc), "demo_mrr": sum(assoc) / len(assoc),
            "search_hits": sum(r > 0 for r in search), "search_mrr": sum(search) / len(search),
            "newer_first": newer_first, "self_recall": self_recall}


def _self_recall(service: MemoryService, content_id: dict[str, str]) -> float:
    """Share of memories found in the top 5 by a search for their own first eight words."""
    found = 0
    for content, memory_id in content_id.items():
        hits = service.search(" ".join(content.split()[:8]), limit=5).hits
        found += memory_id in {hit.id for hit in hits}
    return found / len(content_id)


def _newer_first(service: MemoryService, content_id: dict[str, str]) -> float:
    pairs = json.loads((DATA / "lifecycle_pairs.json").read_text(encoding="utf-8"))["superseded"]
    wins = 0
    for pair in pairs:
        query = pair["topic_key"].split("/", 1)[1].replace("-", " ")
        ids = [h.id for h in service.search(query, limit=50, include_superseded=True).hits]
        old, new = content_id.get(pair["old"]), content_id.get(pair["new"])
        wins += new in ids and (old not in ids or ids.index(new) < ids.index(old))
    return wins / len(pairs)


def _all_memories(service: MemoryService) -> list[dict[str, str]]:
    found = service.repository.memories_by_id(list(service.projection.memory_nodes))
    return [{"id": m.id, "content": m.content} for m in found.values()]


def main() -> None:
    memory_service._now_ms = lambda: NOW_MS  # the morning after the corpus ends
    with tempfile.TemporaryDirectory() as scratch:
        db = str(Path(scratch) / "decay.db")
        loader = MemoryService(Settings.load(db=db, environ={}, lifecycle={"auto_sessions": False}))
        loader.import_jsonl((DATA / "observations.jsonl").read_text(encoding="utf-8").splitlines())
        loader.close()
        print("| ranking_weight | demo found (of 23) | demo MRR | search found | search MRR | newer first "
              "| self-recall@5 |")
        print("|---|---|---|---|---|---|---|")
        for weight in WEIGHTS:
            row = measure(db, weight)
            print(f"| {weight:g} | {row['demo_hits']} | {row['demo_mrr']:.3f} | {row['search_hits']} | "
                  f"{row['search_mrr']:.3f} | {row['newer_first']:.0%} | {row['self_recall']:.3f} |")


if __name__ == "__main__":
    main()

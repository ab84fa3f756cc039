"""graphmem's retrievers for the harness: search (fused), associate (recall) and compose (composition).

Each stores every passage as one memory (title on its own first line, then the text; the title kept
in ``meta``) through the public ``MemoryService`` API, on a fresh in-memory store per dataset.
``overrides`` are ``Settings`` fields, so ablations are one dict away, e.g.
``{"activation": {"method": "hops"}}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .data import Passage
from .protocol import dedupe

__all__ = ["GraphmemAssociate", "GraphmemCompose", "GraphmemSearch"]


class _GraphmemRetriever:
    name = "graphmem"

    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        from graphmem import MemoryService, Settings

        self.service = MemoryService(Settings.load(environ={}, db=":memory:", **(overrides or {})))
        self.title_of: dict[str, str] = {}

    def index(self, passages: Sequence[Passage]) -> None:
        records = [{"content": f"{p.title}\n{p.text}", "meta": {"title": p.title}} for p in passages]
        results = self.service.store_many(records)
        for passage, result in zip(passages, results, strict=True):
            self.title_of.setdefault(result.id, passage.title)

    def titles(self, ids: Sequence[str]) -> list[str]:
        return dedupe(self.title_of[i] for i in ids)

    def close(self) -> None:
        self.service.close()


class GraphmemSearch(_GraphmemRetriever):
    name = "graphmem-search"

    def retrieve(self, question: str, k: int) -> list[str]:
        hits = self.service.search(question, limit=min(100, 3 * k)).hits
        return self.titles([h.id for h in hits])[:k]


class GraphmemAssociate(_GraphmemRetriever):
    name = "graphmem-associate"

    def retrieve(self, question: str, k: int) -> list[str]:
        memories = self.service.associate(question, max_results=min(100, 3 * k)).memories
        return self.titles([m.id for m in memories])[:k]


class GraphmemCompose(GraphmemAssociate):
    name = "graphmem-compose"

    def retrieve_set(self, question: str) -> list[str]:
        composition = self.service.associate(question, mode="composition").composition
        assert composition is not None
        return self.titles([m.id for m in composition.sources])

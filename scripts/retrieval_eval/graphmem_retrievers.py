"""graphmem's retrievers for the harness: search (fused), associate (recall) and compose (composition).

Each stores every passage as one memory (title on its own first line, then the text; the title kept
in ``meta``) through the public ``MemoryService`` API, on a fresh store per dataset: SQLite in memory, or
what :func:`use_store` sets (``eval_retrieval.py --postgres``: a new PostgreSQL database each).
``overrides`` are ``Settings`` fields, so ablations are one dict away, e.g.
``{"activation": {"method": "hops"}}``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .data import Passage
from .protocol import dedupe

__all__ = ["GraphmemAssociate", "GraphmemCompose", "GraphmemConversationAssociate", "GraphmemConversationSearch",
           "GraphmemSearch", "use_store"]



def _in_memory() -> str:
    return ":memory:"


_STORE: dict[str, Callable[[], str]] = {"new": _in_memory}


def use_store(new_store: Callable[[], str]) -> None:
    """Make every retriever opened from now on store into ``new_store()`` (a ``GRAPHMEM_DB`` value)."""
    _STORE["new"] = new_store


class _GraphmemRetriever:
    name = "graphmem"

    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        from graphmem import MemoryService, Settings

        self.service = MemoryService(Settings.load(environ={}, db=_STORE["new"](), **(overrides or {})))
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


class _GraphmemConversation:
    """All conversations in one store, one project each; a hit maps back to the turns it stores."""

    name = "graphmem-conversation"

    def __init__(self, overrides: dict[str, Any] | None = None, db: str | None = None,
                 dia_ids: dict[str, list[str]] | None = None) -> None:
        from graphmem import MemoryService, Settings

        self.service = MemoryService(Settings.load(environ={}, db=db or _STORE["new"](), **(overrides or {})))
        # The same text said twice in one conversation is one memory (dedupe): it stands for both turns.
        self.dia_ids: dict[str, list[str]] = dia_ids if dia_ids is not None else {}

    def index(self, turns: Sequence[Any]) -> None:
        records = [{"content": t.text, "project": t.project, "meta": {"dia_id": t.dia_id}} for t in turns]
        for turn, result in zip(turns, self.service.store_many(records), strict=True):
            self.dia_ids.setdefault(result.id, []).append(turn.dia_id)

    def turns(self, ids: Sequence[str]) -> list[str]:
        return [dia_id for memory_id in ids for dia_id in self.dia_ids[memory_id]]

    def close(self) -> None:
        self.service.close()


class GraphmemConversationSearch(_GraphmemConversation):
    name = "graphmem-search"

    def retrieve(self, question: str, project: str, k: int) -> list[str]:
        return self.turns([h.id for h in self.service.search(question, project=project, limit=k).hits])


class GraphmemConversationAssociate(_GraphmemConversation):
    name = "graphmem-associate"

    def retrieve(self, question: str, project: str, k: int) -> list[str]:
        memories = self.service.associate(question, project=project, max_results=k).memories
        return self.turns([m.id for m in memories])

"""``ExportService``: graph exports, the HTML view, pages for MCP, statistics and the reference-server
import, reached as ``MemoryService.exports``."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from graphmem.errors import InvalidInput
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_choice, check_count
from graphmem.store.changes import RELATIONS

if TYPE_CHECKING:
    from graphmem.service.export.graph_build import ExportGraph
    from graphmem.service.export.graph_page import GraphPage
    from graphmem.service.export.memory_file import NumberedRecord
    from graphmem.service.export.scope import ExportScope
    from graphmem.service.export.stats import GraphStats
    from graphmem.service.export.transfer import ImportReport
    from graphmem.service.recall.engine import RecallEngine

__all__ = ["GRAPH_FORMATS", "ExportService"]

# jsonl (the lossless backup) is MemoryService.export_jsonl; these are views of the graph.
GRAPH_FORMATS = ("node-link", "graphml", "gexf", "cypher", "csv", "dot", "html")
# Each use case imports what it uses: the graph (recall's engine and numpy), the writers and the statistics
# (networkx), the reference-server import (the parser's drafts). ``graphmem stats`` loads the statistics only.
_TEXT_WRITERS = {"node-link": "write_node_link", "graphml": "write_graphml", "gexf": "write_gexf",
                 "cypher": "write_cypher", "dot": "write_dot"}


class ExportService:
    """Exports of the store's graph."""

    def __init__(self, uow: UnitOfWork, recall: Callable[[], RecallEngine]) -> None:
        """``recall`` gives the recall engine the graph exports select with (built when one first asks)."""
        self.uow = uow
        self._recall = recall
        self._stats: tuple[tuple[Any, ...], GraphStats] | None = None

    @property
    def recall(self) -> RecallEngine:
        return self._recall()

    def graph(self, scope: ExportScope | None = None) -> ExportGraph:
        """The export graph of ``scope`` (default: the whole graph)."""
        from graphmem.service.export.graph_build import build_export_graph
        from graphmem.service.export.scope import ExportScope

        self.uow.fresh()
        return build_export_graph(self.recall, scope or ExportScope())

    def write(self, fmt: str, stream: TextIO, scope: ExportScope | None = None) -> ExportGraph:
        """Write ``scope`` as ``fmt`` (any of GRAPH_FORMATS but csv) to a text stream."""
        check_choice("format", fmt, tuple(f for f in GRAPH_FORMATS if f != "csv"))
        export = self.graph(scope)
        if fmt == "html":
            from graphmem.service.export.html_view import render_html

            stream.write(render_html(export))
        else:
            from graphmem.service.export import writers

            getattr(writers, _TEXT_WRITERS[fmt])(export.graph, stream)
        return export

    def write_csv(self, directory: Path, scope: ExportScope | None = None) -> tuple[Path, Path]:
        """``nodes.csv`` and ``edges.csv`` (neo4j-admin import headers) in ``directory``."""
        if directory.exists() and not directory.is_dir():
            raise InvalidInput(f"csv export writes nodes.csv and edges.csv into a directory; "
                               f"{directory} is a file")
        from graphmem.service.export import writers

        return writers.write_csv(self.graph(scope).graph, directory)

    def page(self, scope: ExportScope | None = None, offset: int = 0, limit: int = 200,
             max_content_chars: int = 500) -> GraphPage:
        """A page of the export graph for clients with a size budget (content cut to
        ``max_content_chars``)."""
        offset = check_count("offset", offset, 0, 10_000_000)
        limit = check_count("limit", limit, 1, 500)
        max_content_chars = check_count("max_content_chars", max_content_chars, 0, 50_000)
        from graphmem.service.export.graph_page import export_page
        from graphmem.service.export.scope import ExportScope

        self.uow.fresh()
        return export_page(self.recall, scope or ExportScope(), offset, limit, max_content_chars)

    def stats(self) -> GraphStats:
        """Counts, degree distribution, top concepts, components, orphans and communities.

        Cached until the graph changes: memory_status calls this, and Louvain takes about a second on
        a few thousand nodes while the signature (size and total weight of the CSR) takes microseconds.
        """
        projection = self.uow.fresh()
        with projection.lock:
            adjacency = projection.graph.adjacency()
            signature = (id(projection), adjacency.shape[0], adjacency.nnz, float(adjacency.data.sum()))
        if self._stats is None or self._stats[0] != signature:
            from graphmem.service.export.stats import graph_stats

            self._stats = (signature, graph_stats(projection))
        return self._stats[1]

    def import_memory_file(self, records: Sequence[NumberedRecord]) -> ImportReport:
        """Import the MCP reference server's entities and relations in one transaction."""
        from graphmem.service.export.memory_file import SOURCE, plan_memory_file
        from graphmem.service.export.transfer import ImportReport
        from graphmem.service.memories.drafts import build_drafts
        from graphmem.store.linked_writes import add_memories_linked

        plan = plan_memory_file(records, self.uow.settings.limits)
        drafts = build_drafts(self.uow.extractor, plan.observations)
        with self.uow.write() as write:
            now_ms = time.time_ns() // 1_000_000
            batch, relations = add_memories_linked(write.session, drafts, plan.links, now_ms)
            write.inserted(batch)
            write.changed(RELATIONS, [relation.id for relation in relations])
            write.then(lambda projection: projection.apply_relations(relations))
        fresh = sum(1 for _, duplicate in batch.outcomes if not duplicate)
        return ImportReport(format=SOURCE, added={"memories": fresh, "relations": len(relations),
                                                  "entities": plan.entities},
                            duplicates=len(batch.outcomes) - fresh, ids=tuple(i for i, _ in batch.outcomes))

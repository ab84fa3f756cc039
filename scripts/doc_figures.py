"""Measure the figures the docs quote about the bundled corpus, and write them to ``docs/figures.json``.

Usage (from the repo root, inside the venv)::

    python scripts/doc_figures.py          # measure, print, and rewrite docs/figures.json
    python scripts/doc_figures.py --check  # exit 1 if docs/figures.json is stale

The docs (``docs/cli.md``, ``docs/export.md``) quote graph sizes of ``data/observations.jsonl`` loaded
into a fresh store with the default settings. ``tests/test_doc_figures.py`` measures them again and
checks both this file and every quoted figure, so a change that moves a figure fails until the docs
follow: rerun this script, then update the quotes it lists.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures.json"
HTML_QUERY = "retry webhooks"  # the docs' `graphmem export --format html --query ... --hops 2` example
HTML_HOPS = 2

__all__ = ["measure", "quotes"]


def measure(data_dir: Path = ROOT / "data") -> dict[str, Any]:
    """Load the sample corpus into a fresh store (default settings, blank pipeline) and measure it."""
    from graphmem import MemoryService, Settings
    from graphmem.service.export.scope import ExportScope

    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(db=str(Path(scratch) / "figures.db"), environ={}))
        try:
            lines = (data_dir / "observations.jsonl").read_text(encoding="utf-8").splitlines()
            service.import_jsonl(lines)
            status = service.status()
            graph = service.exports.stats()
            records = service.export_jsonl(io.StringIO())
            html = service.exports.graph(ExportScope(query=HTML_QUERY, hops=HTML_HOPS)).graph
            return {
                "memories": status["memories"], "concepts": status["concepts"], "mentions": status["mentions"],
                "concept_edges": status["concept_edges"], "relations": status["relations"],
                "sessions": status["sessions"], "activation_method": status["activation_method"],
                "graph_nodes": graph.nodes, "graph_edges": graph.edges,
                "edge_families": dict(graph.edge_families), "jsonl_records": records,
                "html_nodes": html.number_of_nodes(), "html_edges": html.number_of_edges(),
            }
        finally:
            service.close()


def quotes(figures: dict[str, Any]) -> dict[str, list[str]]:
    """Per doc file, the exact strings it must contain for these figures."""
    families = figures["edge_families"]
    return {
        "docs/cli.md": [
            f"exported html: {figures['html_nodes']} nodes, {figures['html_edges']} edges",
            f"exported {figures['jsonl_records']} records",
            f'"memories": {figures["memories"]},', f'"concepts": {figures["concepts"]},',
            f'"concept_edges": {figures["concept_edges"]},', f'"relations": {figures["relations"]},',
            f'"sessions": {figures["sessions"]},', f'"activation_method": "{figures["activation_method"]}"',
            f"graph: {figures['graph_nodes']} nodes", f"{figures['graph_edges']} edges (mention "
                                                        f"{families['mention']}",
        ],
        "docs/export.md": [
            f"({figures['graph_nodes']:,} nodes, {figures['graph_edges']:,} edges)",
            f"graph: {figures['graph_nodes']} nodes",
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with docs/figures.json")
    args = parser.parse_args(argv)
    figures = measure()
    text = json.dumps(figures, indent=2, sort_keys=True) + "\n"
    if args.check:
        stale = FIGURES.read_text(encoding="utf-8") != text
        print("docs/figures.json is stale: run python scripts/doc_figures.py" if stale else "up to date")
        return 1 if stale else 0
    FIGURES.write_text(text, encoding="utf-8")
    print(text, end="")
    for path, expected in quotes(figures).items():
        content = (ROOT / path).read_text(encoding="utf-8")
        for quote in expected:
            if quote not in content:
                print(f"{path}: quote {quote!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

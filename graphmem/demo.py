"""``graphmem demo``: load the bundled corpus into a fresh store and show associative recall at work."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from graphmem.service import MemoryService
from graphmem.service.recall.results import AssociateResult, MemoryHit
from graphmem.settings import Settings

__all__ = ["run_demo"]


def run_demo(data_dir: Path, *, db: str | None = None, as_json: bool = False) -> list[dict[str, Any]]:
    """Import ``observations.jsonl``, run every query of ``demo_queries.json`` and report each one's
    hit that shares no query concept, with the concepts that carried activation to it."""
    console = Console(quiet=as_json)
    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(db=db or str(Path(scratch) / "demo.db")))
        lines = (data_dir / "observations.jsonl").read_text(encoding="utf-8").splitlines()
        started = time.perf_counter()
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("loading sample corpus", total=len(lines))
            report = service.import_jsonl(lines, on_progress=lambda n: progress.update(task, completed=n))
        elapsed = time.perf_counter() - started
        console.print(f"[bold]Loaded {report.added.get('memories', 0)} observations in {elapsed:.2f}s "
                      f"({len(lines) / elapsed:,.0f}/s)[/bold]")
        queries = json.loads((data_dir / "demo_queries.json").read_text(encoding="utf-8"))
        summary = [_run_query(service, console, entry) for entry in queries]
        service.close()
    if as_json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    return summary


def _run_query(service: MemoryService, console: Console, entry: dict[str, Any]) -> dict[str, Any]:
    result = service.associate(entry["query"], mode=entry.get("mode", "recall"), project=entry.get("project"),
                               max_results=8)
    hits = list(result.memories)
    if result.composition:
        # The cover is made of memories that supply the query's own concepts; the associative hits
        # that share no keyword follow them, as the recall list ranks them.
        chosen = {hit.id for hit in result.composition.sources}
        hits = list(result.composition.sources) + [hit for hit in hits if hit.id not in chosen]
    indirect = [hit for hit in hits if not hit.direct]
    console.rule(f"[bold cyan]{entry.get('mode', 'recall')}[/]: {entry['query']}")
    _print_header(console, result)
    for rank, hit in enumerate(hits, start=1):
        marker = "[green]★ no shared keyword[/]" if not hit.direct else ""
        console.print(f" {rank}. {hit.activation_score:.4f} [dim]{hit.id}[/] \\[{hit.type}] "
                      f"{hit.content[:110]} {marker}")
        if not hit.direct:
            console.print(f"      [green]found via[/] {', '.join(hit.concepts[:4])}: it shares these concepts with "
                          "memories that match the query, so activation reached it in two hops")
    if result.composition:
        comp = result.composition
        console.print(f" coverage {comp.coverage_percent}% (min {comp.min_coverage:.0%}, met: {comp.coverage_met})"
                      f"; gaps: {', '.join(comp.gaps) or 'none'}; conflicts: {len(comp.conflicts)}")
    expected = entry.get("expect_no_keyword_hit")
    found = next((hit for hit in hits if hit.content == expected), None)
    return {"query": entry["query"], "mode": entry.get("mode", "recall"), "hit_count": len(hits),
            "indirect_hits": [_brief(hit) for hit in indirect],
            "expected_found": found is not None, "expected_rank": hits.index(found) + 1 if found else None}


def _print_header(console: Console, result: AssociateResult) -> None:
    console.print(f" concepts: {', '.join(result.query_concepts)}  |  seeds: "
                  f"{', '.join(s.name for s in result.seed_nodes)}  |  unmatched: "
                  f"{', '.join(result.unmatched_concepts) or '-'}  |  activated nodes: {result.activated_count}")


def _brief(hit: MemoryHit) -> dict[str, Any]:
    return {"id": hit.id, "content": hit.content, "via": list(hit.concepts[:4]), "score": hit.activation_score}

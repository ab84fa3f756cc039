"""``graphmem demo``: load the bundled corpus into a fresh store and show associative recall at work.

Each query gets one screen: its seeds, its best hits ranked by the score shown beside them (cut
between words to fit the terminal), and the hits that share no keyword with the query, marked ★
with the concepts that carried activation to them. A closing summary lists what the graph found
that a keyword search could not have.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from graphmem.service import MemoryService
from graphmem.service.recall.results import AssociateResult, MemoryHit
from graphmem.settings import Settings

__all__ = ["SAMPLE_DATA", "run_demo"]

# The corpus ships inside the package (a copy of the checkout's data/), so an installed wheel has it too.
SAMPLE_DATA = Path(__file__).resolve().parent / "sample_data"

_SHOWN = 8  # every hit associate returns (max_results=8): with the header and ★ lines, ≤ 21 lines
_IMPORT_STEP = 20  # observations per import call, so the progress bar moves while the corpus loads
_EXPLANATION = ("★ marks a hit that shares no keyword with the query: activation reached it through the "
                "concepts after 'via' (two hops: query → memory → concept → memory).")


class _DemoConsole(Console):
    """Rich's console exits 1 when its reader goes away; graphmem's commands then exit quietly with SIGPIPE's
    141 (``graphmem demo | head``), so the broken pipe goes up to the CLI like every other command's."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def run_demo(data_dir: Path, *, db: str | None = None, as_json: bool = False,
             console: Console | None = None) -> list[dict[str, Any]]:
    """Import ``observations.jsonl``, run every query of ``demo_queries.json``, print one screen per
    query and a closing summary; returns the per-query summary (printed as JSON with ``as_json``)."""
    console = console or _DemoConsole(quiet=as_json)
    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(db=db or str(Path(scratch) / "demo.db")))
        _load(service, console, data_dir / "observations.jsonl")
        console.print(_EXPLANATION, style="dim")
        queries = json.loads((data_dir / "demo_queries.json").read_text(encoding="utf-8"))
        summary = [_run_query(service, console, entry) for entry in queries]
        service.close()
    _print_closing(console, summary)
    if as_json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    return summary


def _load(service: MemoryService, console: Console, path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    started, added = time.perf_counter(), 0
    with Progress(console=console, disable=not console.is_terminal, transient=True) as progress:
        task = progress.add_task("loading sample corpus", total=len(lines))
        for start in range(0, len(lines), _IMPORT_STEP):
            report = service.import_jsonl(lines[start : start + _IMPORT_STEP])
            added += report.added.get("memories", 0)
            progress.update(task, completed=min(start + _IMPORT_STEP, len(lines)))
    elapsed = time.perf_counter() - started
    console.print(f"[bold]Loaded {added} observations in {elapsed:.2f}s ({len(lines) / elapsed:,.0f}/s)[/bold]")


def _run_query(service: MemoryService, console: Console, entry: dict[str, Any]) -> dict[str, Any]:
    mode = entry.get("mode", "recall")
    result = service.associate(entry["query"], mode=mode, project=entry.get("project"), max_results=8)
    hits = _all_hits(result)
    agreed = [hit for hit in hits if hit.direct or _bridges(hit)]
    shown = sorted(agreed, key=lambda hit: -hit.activation_score)[:_SHOWN]
    console.rule(f"[bold cyan]{mode}[/]: {escape(entry['query'])}", align="left")
    console.print(_fit(console, "seeds: " + ", ".join(s.name for s in result.seed_nodes)
                       + f"  ·  {result.activated_count} nodes activated"
                       + (f"  ·  unmatched: {', '.join(result.unmatched_concepts)}"
                          if result.unmatched_concepts else "")), style="dim")
    for rank, hit in enumerate(shown, start=1):
        _print_hit(console, rank, hit)
    if result.composition:
        comp = result.composition
        console.print(_fit(console, f"coverage {comp.coverage_percent}% (min {comp.min_coverage:.0%}, met: "
                                    f"{comp.coverage_met}) · gaps: {', '.join(comp.gaps) or 'none'} · "
                                    f"conflicts: {len(comp.conflicts)}"), style="dim")
    expected = entry.get("expect_no_keyword_hit")
    found = next((hit for hit in shown if hit.content == expected), None)
    return {"query": entry["query"], "mode": mode, "hit_count": len(hits),
            "indirect_hits": [_brief(hit) for hit in agreed if not hit.direct],
            "expected_found": found is not None, "expected_rank": shown.index(found) + 1 if found else None,
            "expected": None if found is None else _brief(found)}


def _all_hits(result: AssociateResult) -> list[MemoryHit]:
    hits = list(result.memories)
    if result.composition:
        chosen = {hit.id for hit in result.composition.sources}
        hits = list(result.composition.sources) + [hit for hit in hits if hit.id not in chosen]
    return hits


def _bridges(hit: MemoryHit) -> list[str]:
    """The specific concepts (phrases, identifiers) that carried activation to ``hit``.

    A hit reached only through generic words ("api", "set", "create") is noise a reader would not
    accept as an association, so the demo leaves it out rather than star it.
    """
    return [name for name in hit.concepts if any(mark in name for mark in " _./")]


def _print_hit(console: Console, rank: int, hit: MemoryHit) -> None:
    star = " " if hit.direct else "★"
    prefix = f"{star}{rank:>2}. {hit.activation_score:.4f} {hit.type:<12} "
    console.print(escape(prefix + _cut(hit.content, console.width - len(prefix))), highlight=False,
                  style=None if hit.direct else "green")
    if not hit.direct:
        indent = " " * 8
        console.print(indent + _fit(console, "via " + ", ".join(_bridges(hit)[:3]), len(indent)), style="green")


def _cut(text: str, width: int) -> str:
    """``text`` on one line of at most ``width`` characters, cut between words with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    head = flat[: width - 1]
    if " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:.(—-/") + "…"


def _fit(console: Console, text: str, indent: int = 0) -> str:
    return escape(_cut(text, console.width - indent))


def _print_closing(console: Console, summary: list[dict[str, Any]]) -> None:
    found = [entry for entry in summary if entry["expected_found"]]
    console.rule("[bold]What the graph found that keywords did not[/]", align="left")
    console.print(f"{len(found)} of {len(summary)} queries show their planted memory, one a keyword search "
                  "cannot reach (query → via: memory):")
    for entry in found:
        hit = entry["expected"]
        via = ", ".join(hit["via"][:2]) or "-"
        console.print("  " + _fit(console, f"{entry['query']} → {via}: {hit['content']}", 2), highlight=False)


def _brief(hit: MemoryHit) -> dict[str, Any]:
    return {"id": hit.id, "content": hit.content, "via": _bridges(hit)[:4], "score": hit.activation_score}

"""``graphmem demo`` reads well: one screenful per query, whole words, ranks that follow the score shown,
the explanation once, hits a reader agrees with, a moving progress bar and a closing summary."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.progress import Progress

from graphmem.demo import run_demo

DATA = Path(__file__).resolve().parent.parent / "data"
WIDTH = 100
SCREEN = 24


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[list[str], list[dict], list[int]]:
    steps: list[int] = []
    original = Progress.update

    def update(self, task, **fields):  # type: ignore[no-untyped-def]
        if "completed" in fields:
            steps.append(fields["completed"])
        return original(self, task, **fields)

    Progress.update = update  # type: ignore[method-assign]
    try:
        console = Console(file=io.StringIO(), width=WIDTH, record=True)
        summary = run_demo(DATA, db=str(tmp_path_factory.mktemp("demo") / "demo.db"), console=console)
    finally:
        Progress.update = original  # type: ignore[method-assign]
    return console.export_text().splitlines(), summary, steps


def sections(lines: list[str]) -> list[list[str]]:
    starts = [i for i, line in enumerate(lines) if re.match(r"(recall|composition): ", line)]
    ends = [*starts[1:], next(i for i, line in enumerate(lines) if "What the graph found" in line)]
    return [lines[a:b] for a, b in zip(starts, ends, strict=True)]


def test_each_query_fits_one_screen_and_no_line_wraps(demo):
    lines, summary, _ = demo
    parts = sections(lines)
    assert len(parts) == len(summary)
    assert max(len(part) for part in parts) <= SCREEN
    assert max(len(line) for line in lines) <= WIDTH


def test_hits_are_cut_between_words_and_ranked_by_the_score_they_show(demo):
    lines, _, _ = demo
    for part in sections(lines):
        scores = [float(m.group(1)) for line in part if (m := re.match(r"\s*★?\s*\d+\. (\d\.\d{4}) ", line))]
        assert scores == sorted(scores, reverse=True), part
        for line in part:
            if line.endswith("…"):
                assert line[-2] not in " ,;:"
    texts = "\n".join(lines)
    assert re.search(r"\w…\w", texts) is None  # never "webho…oks"


def test_the_explanation_is_given_once_and_noise_hits_are_not_starred(demo):
    lines, summary, _ = demo
    text = "\n".join(lines)
    assert text.count("shares no keyword") <= 1
    assert "statement_timeout" not in text.split("partial refunds rejected by Stripe", 1)[1].split("──")[0]
    for entry in summary:
        for hit in entry["indirect_hits"]:
            assert any(mark in via for via in hit["via"] for mark in " _./"), hit


def test_the_progress_bar_moves_and_a_closing_summary_names_what_keywords_missed(demo):
    lines, summary, steps = demo
    assert len(set(steps)) >= 5
    closing = lines[next(i for i, line in enumerate(lines) if "What the graph found" in line):]
    found = [entry for entry in summary if entry["expected_found"]]
    assert found and any(str(len(found)) in line for line in closing)
    assert len(closing) <= SCREEN + 4


def test_demo_into_a_closed_pipe_stops_quietly_like_every_other_command(tmp_path):
    import os
    import subprocess
    import sys

    graphmem = Path(sys.executable).with_name("graphmem")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    done = subprocess.run(["bash", "-c", f"set -o pipefail; '{graphmem}' demo --db '{tmp_path / 'd.db'}' | head -1"],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 141, done.stderr  # SIGPIPE's status, as `graphmem export | head` gives
    assert done.stderr == "" and len(done.stdout.splitlines()) == 1

"""The figures the docs quote about the bundled corpus are the ones the code produces now
(``scripts/doc_figures.py`` measures them), and the README names the default activation method."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import doc_figures  # noqa: E402

RERUN = "rerun `python scripts/doc_figures.py` and update the quotes it lists"


@pytest.fixture(scope="module")
def figures() -> dict:
    return doc_figures.measure()


def test_docs_figures_json_is_what_the_code_measures_now(figures):
    stored = json.loads((ROOT / "docs" / "figures.json").read_text(encoding="utf-8"))
    assert stored == figures, RERUN


@pytest.mark.parametrize("path", ["docs/cli.md", "docs/export.md"])
def test_every_quoted_figure_matches(figures, path):
    text = (ROOT / path).read_text(encoding="utf-8")
    missing = [quote for quote in doc_figures.quotes(figures)[path] if quote not in text]
    assert missing == [], RERUN


def test_the_readme_names_the_default_activation_method(figures):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    associate = next(line for line in readme.splitlines() if line.startswith("- **`memory_associate`**"))
    assert figures["activation_method"] == "hops" and "hop" in associate and "PageRank" not in associate.split(";")[0]

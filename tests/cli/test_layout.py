"""The CLI's feature modules share ``graphmem.cli.app`` and never import each other (no cycles); every module
but the shared ones is a feature's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "graphmem" / "cli"
FEATURES = ("start", "memories", "recall", "relations", "lifecycle", "sessions", "learning", "export", "maintenance",
            "hooks")


def _imported(module: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("feature", FEATURES)
def test_a_feature_module_imports_only_the_shared_app_of_the_cli(feature):
    inside = {name for name in _imported(CLI / f"{feature}.py") if name.startswith("graphmem.cli")}
    assert inside <= {"graphmem.cli.app"}


def test_the_shared_app_imports_no_feature_module():
    assert not {name for name in _imported(CLI / "app.py") if name.startswith("graphmem.cli")}


def test_every_cli_module_is_a_listed_feature_or_shared():
    modules = {path.stem for path in CLI.glob("*.py")} - {"__init__", "__main__", "app"}
    assert modules == set(FEATURES)

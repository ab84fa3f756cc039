"""ruff is clean over the code, the tests and the scripts, so the test command keeps the house clean
(``[tool.ruff]`` in pyproject.toml: the rule selection, the banned imports, every ignore with its reason)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> str:
    """The venv's own ruff (``[dev]`` installs it beside the interpreter), else the one on PATH."""
    beside = Path(sys.executable).with_name("ruff")
    found = str(beside) if beside.exists() else shutil.which("ruff")
    assert found is not None, "ruff is a dev dependency: pip install -e '.[dev]'"
    return found


def test_ruff_finds_nothing() -> None:
    run = subprocess.run([_ruff(), "check", "--no-cache", "graphmem", "nlp", "tests", "scripts"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, f"ruff check found problems:\n{run.stdout}{run.stderr}"

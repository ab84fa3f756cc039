"""graphmem/ and nlp/ type-check under ``mypy --strict``, so the test command keeps the house clean.

mypy reads its configuration ([tool.mypy] in pyproject.toml: strict, the files, the overrides) from
the repository root, exactly as a developer's bare ``mypy`` does; its incremental cache (.mypy_cache)
makes reruns fast.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy finds pyproject.toml, and so its files and options, in the working directory
    report, errors, status = api.run([])
    assert status == 0, f"mypy --strict found type errors (run `.venv/bin/mypy` to see them):\n{report}{errors}"

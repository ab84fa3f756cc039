"""docs/configuration.md states every activation and fusion default, and states it correctly."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from graphmem.settings import ActivationSettings, FusionSettings, ProjectionSettings, SemanticSettings

DOC = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| (`[^|]+`) \| (`[^|]+`) \|", re.MULTILINE)


def _documented(section: str) -> dict[str, str]:
    body = DOC.split(section, 1)[1].split("\n## ", 1)[0]
    values: dict[str, str] = {}
    for keys, defaults in ROW.findall(body):
        for key, default in zip(re.findall(r"`(\w+)`", keys), re.findall(r"`([^`]+)`", defaults), strict=True):
            values[key] = default
    return values


@pytest.mark.parametrize(("section", "model"), [("## Activation", ActivationSettings()),
                                                ("## Search fusion", FusionSettings()),
                                                ("## Semantic", SemanticSettings()),
                                                ("### Per-project projections", ProjectionSettings())])
def test_every_default_is_documented_with_its_value(section: str, model: BaseModel) -> None:
    documented = _documented(section)
    for name, value in model.model_dump().items():
        assert name in documented, f"{name} is not documented in docs/configuration.md"
        shown = documented[name]
        if isinstance(value, bool):
            assert shown == str(value).lower(), name
        elif isinstance(value, int | float):
            assert float(shown) == pytest.approx(float(value)), name
        else:
            assert shown == str(value), name


def test_the_environment_variable_table_is_not_broken_by_a_blank_line():
    lines = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text(
        encoding="utf-8").splitlines()
    broken = [line.split("|")[1].strip() for previous, line in itertools.pairwise(lines)
              if line.startswith("| `GRAPHMEM_") and not previous.startswith("|")]
    assert broken == []

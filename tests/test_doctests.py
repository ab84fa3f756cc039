"""Every docstring example in graphmem/ and nlp/ runs, so documentation cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import graphmem
import nlp


def _modules() -> list[str]:
    names = []
    for package in (graphmem, nlp):
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
            # Importing these runs them: the CLI's __main__, and Alembic's migration environment.
            if not info.name.endswith(".__main__") and ".migrations." not in info.name:
                names.append(info.name)
    return sorted(names)


MODULES = _modules()


def test_the_walk_finds_the_modules_whose_examples_were_never_run():
    assert {"graphmem.core.activation", "graphmem.core.composition", "graphmem.core.spreading_graph",
            "graphmem.service.memory_service"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"

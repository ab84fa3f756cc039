"""The examples in the nlp docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nlp

MODULES = sorted(info.name for info in pkgutil.iter_modules(nlp.__path__, prefix="nlp."))


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name: str) -> None:
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.parametrize("module_name", MODULES)
def test_every_module_declares_its_public_names(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert all(hasattr(module, name) for name in module.__all__)

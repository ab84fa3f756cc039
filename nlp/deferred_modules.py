"""Stand-ins for modules a library imports and a graphmem process never uses, until something uses them.

A package's ``__init__`` sometimes imports far more than the part graphmem calls: ``import spacy`` imports spaCy's
whole command line (:mod:`nlp.spacy_cli`), and ``import scipy.sparse`` reads every name numpy offers, which imports
numpy's lazy ``f2py``, ``testing``, ``polynomial`` and ``matlib`` (:mod:`graphmem.numpy_extras`). Each process pays
for them in memory, and a partitioned server's fixed cost is most of its memory (issue 26).

:class:`DeferredModule` stands in ``sys.modules`` for such a module. Its first attribute read (a name, or
``__path__``: a submodule's import needs the real package) imports the real module in its place
(:func:`load_in_place`), and answers from it: code that took the stand-in before keeps working, and code that
imports the module after gets the real one. The import system's other probes (``__file__``, ``__spec__`` ...)
import nothing.

The module lives in ``nlp``, the package every part of graphmem may import, so that spaCy's command line and
numpy's extras share it; it imports nothing but the standard library.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from typing import Any

__all__ = ["DeferredModule", "load_in_place"]

_LOCK = threading.Lock()


class DeferredModule(types.ModuleType):
    """Stands for the module ``name`` in ``sys.modules`` until its first attribute read, which imports it (and
    drops the stand-ins of ``also``, its submodules the real import must find real)."""

    def __init__(self, name: str, doc: str | None = None, *, also: tuple[str, ...] = ()) -> None:
        super().__init__(name, doc)
        self.__deferred_with__ = also

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name != "__path__":
            raise AttributeError(name)  # the import system's own probes (__file__, __spec__ ...): no import
        return getattr(load_in_place(self.__name__, *self.__deferred_with__), name)


def load_in_place(name: str, *also: str) -> types.ModuleType:
    """The real module ``name``, imported in its stand-in's place (once), the stand-ins of ``also`` dropped with it.

    The import sets the real module as its parent package's attribute, where the stand-in was. Only the swap is
    under this module's lock: the import itself is under the import system's lock of ``name``, so a thread asking
    while another imports waits for the module to finish (it never reads a half-run module), and an import the
    real module makes that reads another stand-in cannot deadlock on this lock.
    """
    with _LOCK:
        if isinstance(sys.modules.get(name), DeferredModule):
            for stand_in in (name, *also):
                if isinstance(sys.modules.get(stand_in), DeferredModule):
                    del sys.modules[stand_in]
    return importlib.import_module(name)

"""numpy's extras that scipy's import touches and graphmem never uses, imported only when something uses them.

``import scipy.sparse`` imports scipy's copy of the array API for numpy, which clones numpy's namespace: it reads
every name numpy lists, and numpy imports a lazy submodule on its first read. So every graphmem process imported
``numpy.f2py`` (with ``argparse``, ``charset_normalizer`` ...), ``numpy.testing``, ``numpy.polynomial`` and
``numpy.matlib``: 7 MiB of each server's fixed cost, which is most of a partitioned server's memory (issue 26;
docs/benchmarks.md, "numpy's extras and the project's transpose").

:func:`defer_before_scipy`, called when graphmem is imported (``graphmem/__init__.py``, before any of its modules
can import scipy), puts a finder first on ``sys.meta_path`` that does nothing but, on scipy's first import, run
:func:`defer_numpy_extras`: a stand-in (:class:`nlp.deferred_modules.DeferredModule`) for each extra, in
``sys.modules`` and as numpy's attribute (numpy's own ``__getattr__`` would import the real one, and ``import
numpy.f2py as f2py`` reads that attribute). The first use of an extra (``numpy.testing.assert_equal``, ``from
numpy.polynomial import Polynomial``, ``import numpy.f2py`` then an attribute) imports it in its stand-in's place.
``numpy.ma`` is not deferred: ``np.unique`` reads ``np.ma.is_masked`` on every call.

scipy's import also brings ``numpy.char`` (the clone reads it too) and the standard library's ``pydoc`` (its
docstring parser, ``scipy._lib._docscrape``, imports it for ``pydoc.getdoc``): both are deferred the same way;
with the bulk import's process pool, 2 MiB of the partitioned server (docs/benchmarks.md, "A query's scratch, one
malloc arena").
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

__all__ = ["EXTRAS", "STANDARD", "defer_before_scipy", "defer_numpy_extras"]

EXTRAS = ("f2py", "testing", "polynomial", "matlib", "char")
STANDARD = ("pydoc",)  # standard library modules scipy imports and graphmem never uses
_LOCK = threading.Lock()


class _BeforeScipy(importlib.abc.MetaPathFinder):
    """Finds nothing: on scipy's first import, defers numpy's extras first (it stays on ``sys.meta_path``,
    answering ``None`` at once: taking it out while the import system walks the list would skip a finder)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname == "scipy":
            defer_numpy_extras()
        return None


def defer_before_scipy() -> bool:
    """Defer numpy's extras at scipy's first import; ``False`` if scipy is imported already (or the finder is
    in place)."""
    with _LOCK:
        if "scipy" in sys.modules or any(isinstance(finder, _BeforeScipy) for finder in sys.meta_path):
            return False
        sys.meta_path.insert(0, _BeforeScipy())
        return True


def defer_numpy_extras() -> list[str]:
    """Put a stand-in for each extra numpy has not imported yet, and for each of :data:`STANDARD` not imported
    yet; the names deferred."""
    import numpy  # here, not at graphmem's import: `graphmem --help` imports no numpy

    from nlp.deferred_modules import DeferredModule  # nlp's package: only when scipy comes

    deferred = []
    with _LOCK:
        for extra in EXTRAS:
            name = f"numpy.{extra}"
            if name in sys.modules or extra in vars(numpy):
                continue
            stand_in = DeferredModule(name, f"numpy's {extra}, imported on first use (graphmem/numpy_extras.py)")
            stand_in.__package__ = name
            sys.modules[name] = stand_in
            setattr(numpy, extra, stand_in)
            deferred.append(name)
        for name in STANDARD:
            if name not in sys.modules:
                sys.modules[name] = DeferredModule(name, f"{name}, imported on first use (graphmem/numpy_extras.py)")
                deferred.append(name)
    return deferred

"""numpy's extras that scipy's import touches are imported only when something uses them (graphmem/numpy_extras.py):
checked in a fresh interpreter, where graphmem's import comes before scipy's as in every graphmem process."""

from __future__ import annotations

import json
import subprocess
import sys

from graphmem.numpy_extras import EXTRAS

# Imported for real (not a stand-in): the extras, pydoc, charset_normalizer (numpy.f2py imports it), the process pool.
REAL = "[n for n in ('numpy.f2py', 'numpy.testing', 'numpy.polynomial', 'numpy.matlib', 'numpy.char', 'pydoc', " \
       "'charset_normalizer', 'concurrent.futures.process') " \
       "if n in sys.modules and type(sys.modules[n]).__name__ != 'DeferredModule']"


def _run(code: str) -> object:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_serving_imports_none_of_numpys_extras(tmp_path):
    db = str(tmp_path / "memory.db")
    loaded = _run(
        "import json, sys\nfrom graphmem import MemoryService, Settings\n"
        f"service = MemoryService(Settings.load(environ={{}}, db={db!r}))\n"
        "service.store('Retry the Stripe webhook with backoff', project='p')\n"
        "hits = service.search('stripe webhook', project='p').hits\n"
        "service.associate('webhook retries', project='p')\n"
        f"print(json.dumps([len(hits), 'scipy.sparse' in sys.modules, {REAL}]))")
    assert loaded == [1, True, []]


def test_numpys_extras_still_work_once_used():
    answers = _run(
        "import json, sys, graphmem, scipy.sparse, numpy\n"
        "deferred = sorted(n for n, m in sys.modules.items()\n"
        "                  if type(m).__name__ == 'DeferredModule' and n.startswith('numpy'))\n"
        "from numpy.testing import assert_equal\n"  # the first attribute read imports the real package
        "assert_equal(numpy.ones(2), numpy.ones(2))\n"
        "import numpy.testing.overrides as overrides\n"  # a submodule: through the real package
        "import numpy.f2py as f2py\n"
        "value = float(numpy.polynomial.Polynomial([1, 2])(3))\n"
        "import pydoc\n"
        "documented = pydoc.getdoc(numpy.char.upper).startswith('Return an array')\n"
        "print(json.dumps([deferred, numpy.ma.masked is numpy.ma.core.masked, overrides.__name__,"
        " callable(f2py.run_main), numpy.f2py is sys.modules['numpy.f2py'], value, numpy.matlib.ones(2).shape,"
        " documented,"
        f" {REAL}]))")
    assert answers == [sorted(f"numpy.{extra}" for extra in EXTRAS), True, "numpy.testing.overrides", True, True,
                       7.0, [1, 2], True, ["numpy.f2py", "numpy.testing", "numpy.polynomial", "numpy.matlib",
                                           "numpy.char", "pydoc", "charset_normalizer"]]


def test_nothing_is_deferred_once_scipy_is_imported():
    assert _run("import json, sys, scipy.sparse\nfrom graphmem.numpy_extras import defer_before_scipy\n"
                "print(json.dumps([defer_before_scipy(), type(sys.modules['numpy.testing']).__name__]))") == [
        False, "module"]

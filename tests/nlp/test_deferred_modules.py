"""A stand-in module imports the real one in its place on its first use, once, from any thread
(nlp/deferred_modules.py): checked in a fresh interpreter over a package written for the test."""

from __future__ import annotations

import json
import subprocess
import sys


def test_threads_reading_a_stand_in_at_once_import_the_real_module_once(tmp_path):
    package = tmp_path / "lazypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "extra.py").write_text("import builtins\nbuiltins.extra_runs = getattr(builtins, 'extra_runs', 0) + 1\n"
                                      "VALUE = 42\n")
    code = (
        "import builtins, json, sys, threading, lazypkg\n"
        "from nlp.deferred_modules import DeferredModule\n"
        "stand_in = DeferredModule('lazypkg.extra')\n"
        "sys.modules['lazypkg.extra'] = lazypkg.extra = stand_in\n"
        "probes = [getattr(stand_in, '__file__', None), hasattr(stand_in, '__spec__')]\n"  # no import
        "before = getattr(builtins, 'extra_runs', 0)\n"
        "barrier = threading.Barrier(8)\n"
        "values = []\n"
        "def read():\n"
        "    barrier.wait()\n"
        "    values.append(stand_in.VALUE)\n"
        "threads = [threading.Thread(target=read) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "import lazypkg.extra as extra\n"
        "print(json.dumps([before, builtins.extra_runs, values, type(extra).__name__, lazypkg.extra is extra,"
        " probes[0] is None]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                          env={"PYTHONPATH": f"{tmp_path}:{':'.join(sys.path)}"})
    assert not done.stderr, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, 1, [42] * 8, "module", True, True]

"""Every thread of a graphmem process allocates from glibc's main arena (graphmem/malloc_arenas.py): checked in a
fresh interpreter, where graphmem's import comes first, as in every graphmem process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from graphmem.malloc_arenas import keep_one_arena

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc arenas")

# The arenas glibc reports (malloc_info: one <heap> element each) once a thread has allocated and ended.
_ARENAS = """
import ctypes, json, os, re, tempfile, threading
{prelude}
def work():
    kept = [bytearray(2000) for _ in range(5000)]  # small blocks: from the thread's arena, not mmap
    del kept[::2]
thread = threading.Thread(target=work)
thread.start(); thread.join()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.fclose.argtypes = [ctypes.c_void_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
path = tempfile.mktemp()
stream = libc.fopen(path.encode(), b"w"); libc.malloc_info(0, stream); libc.fclose(stream)
print(json.dumps(len(re.findall("<heap nr=", open(path).read()))))
os.unlink(path)
"""


def _arenas(prelude: str) -> int:
    environment = {name: value for name, value in os.environ.items() if name != "MALLOC_ARENA_MAX"}
    done = subprocess.run([sys.executable, "-c", _ARENAS.format(prelude=prelude)], capture_output=True, text=True,
                          check=True, timeout=120, env=environment)
    return int(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_thread_of_a_graphmem_process_allocates_from_the_main_arena():
    assert _arenas("") == 2  # glibc's default: the thread got an arena of its own, kept after it ended
    assert _arenas("import graphmem") == 1


def test_a_limit_the_environment_sets_is_left_as_it_is(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert keep_one_arena() is False

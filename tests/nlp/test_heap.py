"""The heap trim a server runs after a step that frees more than it keeps (a load from the rows, the parser's build)."""

from __future__ import annotations

import sys

import pytest

from nlp import heap


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_on_linux_freed_heap_is_given_back_by_glibcs_malloc_trim():
    assert heap._TRIM is not None
    scratch = [bytearray(1 << 12) for _ in range(20_000)]  # 80 MiB of small blocks, on the heap, then freed
    del scratch
    heap.release_free_heap()  # returns whatever glibc kept; it must not raise


def test_building_the_parser_trims_once_it_is_built(monkeypatch):
    from nlp import pipeline

    trims: list[int] = []
    monkeypatch.setattr(heap, "release_free_heap", lambda: trims.append(1))
    built = pipeline._build_pipeline(pipeline.BLANK_MODEL)
    assert built.nlp is not None and trims == [1]

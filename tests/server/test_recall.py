"""The recall adapter shapes what the search read and reads nothing itself: a result asked without its notes
is refused, never completed by a second read."""

from __future__ import annotations

import pytest

from graphmem.server.recall import associate_out, search_out
from tests.conftest import WEBHOOK


def test_the_adapter_shows_the_notes_the_search_read_and_refuses_a_result_without_them(service):
    original = service.store(WEBHOOK).id
    newer = service.edits.correct(original, WEBHOOK + " (and a retry budget)").created_id
    out = search_out(service.search("webhook idempotency", include_superseded=True, notes=True), "compact")
    assert {hit.id: hit.notes for hit in out.hits}[original] == [f"superseded by {newer}"]
    with pytest.raises(TypeError, match="notes=True"):
        search_out(service.search("webhook idempotency"), "compact")
    with pytest.raises(TypeError, match="notes=True"):
        associate_out(service.associate("webhook idempotency"), "compact")

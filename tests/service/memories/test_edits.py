"""Edits of one memory: a correction carries every field of the original over (kind, project, topic key,
tags, entities, source, context, meta, Kyew's learn fields), links itself as the original's child, and
checks only what it changes."""

from __future__ import annotations

import pytest

from graphmem.errors import ConflictError, InvalidInput


def test_a_correction_keeps_the_originals_fields_and_replaces_it(service):
    original = service.store("Deploys run at 10:00 UTC", kind="decision", project="ops", topic_key="decision/deploys",
                             tags=["release"], entities=["Deploy Window"], source="runbook", context="after the outage",
                             meta={"ticket": "OPS-7"}, outcome="success", task_type="deploy", tools_used=["argo"])
    report = service.edits.correct(original.id, "Deploys run at 16:00 UTC", tags=["release", "moved"])
    old, new = (service.open([memory_id]).memories[0] for memory_id in (original.id, report.created_id))
    assert new.content == "Deploys run at 16:00 UTC" and new.tags == ("release", "moved")
    carried = ("kind", "project", "topic_key", "entities", "source", "context", "meta", "outcome", "task_type",
               "tools_used")
    assert {name: getattr(new, name) for name in carried} == {name: getattr(old, name) for name in carried}
    assert new.parent_id == old.id and old.superseded_by == new.id and old.valid_to is not None
    assert [hit.id for hit in service.search("deploys UTC", project="ops").hits] == [new.id]


def test_a_correction_is_checked_and_scrubbed_and_a_bad_one_changes_nothing(service):
    original = service.store("The staging password rotates monthly", project="ops").id
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    corrected = service.edits.correct(original, f"Staging uses the token {token} now")
    assert token not in service.open([corrected.created_id]).memories[0].content
    before = service.repository.counts()
    with pytest.raises(InvalidInput, match="kind"):
        service.edits.correct(corrected.created_id, "Staging uses a vault", kind="memo")
    with pytest.raises(ConflictError, match="already superseded"):
        service.edits.correct(original, "Staging uses a vault")
    assert service.repository.counts() == before

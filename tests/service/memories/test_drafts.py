"""Validating an observation at the boundary, and drafting it: bad fields are named, secrets and private
blocks never reach a draft, and the draft settles the id, the times and the dedupe hash."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.errors import InvalidInput
from graphmem.service.memories.drafts import build_drafts, validate_observation
from graphmem.settings import LimitSettings

LIMITS = LimitSettings()


@pytest.mark.parametrize(("fields", "named"), [
    ({"content": ""}, "content"),
    ({"content": "ok", "kind": "memo"}, "kind"),
    ({"content": "ok", "outcome": "won"}, "outcome"),
    ({"content": "ok", "task_type": "x" * 101}, "task_type"),
    ({"content": "ok", "tools_used": [f"tool{n}" for n in range(31)]}, "tools_used"),
    ({"content": "ok", "valid_from": "last tuesday"}, "valid_from"),
])
def test_a_bad_field_is_refused_by_name(fields, named):
    with pytest.raises(InvalidInput, match=named):
        validate_observation(LIMITS, **fields)


def test_private_blocks_and_secrets_leave_every_text_field_and_are_counted():
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    observation = validate_observation(LIMITS, content=f"Deploy with {token} <private>my pin 1234</private>",
                                       context=f"token {token}", outcome=" Success ")
    assert token not in observation.content + (observation.context or "") and "1234" not in observation.content
    assert sum(observation.redacted.values()) == 2 and observation.outcome == "success"


def test_a_draft_settles_id_times_and_a_hash_that_ignores_case_and_spacing(extractor):
    created = datetime(2026, 1, 5, 8, tzinfo=UTC)
    given = validate_observation(LIMITS, content="Use  Redis for sessions", created_at=created.isoformat(),
                                 entities=["Session Store"])
    now = validate_observation(LIMITS, content="use redis FOR sessions")
    old, fresh = build_drafts(extractor, [given, now])
    assert (old.created_at, old.valid_from) == (created, created) and old.id.startswith("mem_")
    assert fresh.created_at > created and fresh.valid_from == fresh.created_at
    assert old.content_hash == fresh.content_hash and old.id != fresh.id
    assert ("session store", "entity", 1.0, 1) in old.mentions  # an entity the text does not spell is a concept
    assert all(key_a < key_b for key_a, key_b, _ in old.cooccurrences)

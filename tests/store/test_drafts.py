"""The store's write type: a draft's row has exactly the ``memory`` table's insert columns, and the store fills
in what no writer chooses."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.core.time import to_ms
from graphmem.core.values import Observation
from graphmem.store import bulk
from graphmem.store.drafts import MemoryDraft, memory_row

NOW = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def _draft(**fields: object) -> MemoryDraft:
    observation = Observation(content="Use Redis for sessions", **fields)  # type: ignore[arg-type]
    return MemoryDraft(observation=observation, id="mem_1", created_at=NOW, valid_from=NOW, content_hash="h",
                       mentions=(("redis", "term", 1.0, 1), ("session", "term", 0.5, 2)), cooccurrences=())


def test_the_row_has_every_insert_column_of_the_memory_table_and_no_other():
    assert set(memory_row(_draft())) == set(bulk.MEMORY_INSERT.columns)


def test_the_store_fills_in_the_counters_the_project_key_and_epoch_ms():
    review = datetime(2026, 4, 1, tzinfo=UTC)
    row = memory_row(_draft(project="web", tags=("infra",), tools_used=("redis-cli",), task_type="deploy",
                            review_after=review))
    assert (row["project"], row["project_key"], row["tags"], row["tools_used"], row["task_type"]) == (
        "web", "web", ["infra"], ["redis-cli"], "deploy")
    assert row["created_at"] == row["last_used_at"] == row["valid_from"] == to_ms(NOW)
    assert row["review_after"] == to_ms(review)
    assert (row["use_count"], row["strength"], row["status"], row["valid_to"], row["superseded_by"]) == (
        0, 1.0, "active", None, None)
    assert row["concept_count"] == 2
    assert memory_row(_draft())["project_key"] == "" and memory_row(_draft())["review_after"] is None


def test_attaching_a_session_makes_a_new_draft_and_leaves_the_old_one_as_it_was():
    draft = _draft(project="web")
    attached = draft.in_session("ses_1")
    assert (attached.session_id, memory_row(attached)["session_id"]) == ("ses_1", "ses_1")
    assert draft.session_id is None and attached.observation.project == "web" and attached.id == draft.id

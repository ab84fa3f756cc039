"""An unknown reference of any length is refused with a short error (found by scripts/fuzz_tools.py:
memory_skill_outcome and memory_skill_transition echoed a 5,000- and a 100,000-character skill id whole)."""

from __future__ import annotations

import pytest

from graphmem.errors import NotFound
from tests.server.test_tools import refused

pytestmark = pytest.mark.anyio

LONG = "mem_" + "x" * 5_000
# Every tool that looks up a reference its caller names, with the other arguments it requires.
LOOKUPS = [
    ("memory_skill_outcome", {"skill_id": LONG, "outcome": "success"}),
    ("memory_skill_transition", {"skill_id": LONG, "status": "deprecated"}),
    ("memory_skill_rollback", {"skill_id": LONG, "version": 1}),
    ("memory_skills", {"skill_id": LONG}),
    ("memory_judge_relation", {"relation_id": LONG, "type": "supports"}),
    ("memory_ignore_relation", {"relation_id": LONG}),
    ("memory_fact_invalidate", {"fact_id": LONG}),
    ("memory_consolidate_preview", {"cluster_id": LONG}),
    ("memory_consolidate_apply", {"cluster_id": LONG}),
    ("memory_consolidate_undo", {"merged_id": LONG}),
    ("memory_session_end", {"session_id": LONG}),
    ("memory_timeline", {"session_id": LONG}),
    ("memory_forget", {"id": LONG}),
    ("memory_restore", {"id": LONG}),
    ("memory_correct", {"id": LONG, "content": "a corrected text"}),
    ("memory_mark_reviewed", {"id": LONG}),
    ("memory_history", {"ref": LONG}),
    ("memory_open", {"ids": [LONG]}),
    ("memory_touch", {"ids": [LONG]}),
    ("memory_graph", {"node": LONG}),
]


@pytest.mark.parametrize(("tool", "arguments"), LOOKUPS, ids=[tool for tool, _ in LOOKUPS])
async def test_an_unknown_long_reference_is_quoted_short(client, tool, arguments):
    message = await refused(client, tool, **arguments)
    assert len(message) < 400, f"{tool} echoed {len(message):,} characters"


def test_not_found_quotes_each_reference_short_and_lists_ten_at_most():
    assert str(NotFound("memory id", ["mem_a", "mem_b"])) == "unknown memory id: mem_a, mem_b"
    many = str(NotFound("memory id", [f"{n:03d}" + "y" * 500 for n in range(40)]))
    assert many.endswith("(503 characters) and 30 more") and "009" in many and "010" not in many
    assert len(many) < 1_400


async def test_many_wrong_arguments_get_one_short_message_without_their_values(client):
    # Found by the fuzz run over HTTP: nine wrong fields (ten here) made pydantic's whole report, past 2,000 characters.
    wrong = {"content": "x", "project": {"": {}}, "topic_key": [[1, 2.5, None]], "source": ["y" * 300],
             "context": 7, "tags": "not a list", "entities": {"k": 1}, "meta": [1], "session_id": {"a": 1},
             "review_after": {"b": [None]}}
    message = await refused(client, "memory_store", **wrong)
    assert message.startswith("Error executing tool memory_store: 10 invalid arguments: ")
    assert "project: Input should be a valid string" in message and message.endswith("; and 5 more")
    assert "y" * 50 not in message and "errors.pydantic.dev" not in message and len(message) < 800
    one = await refused(client, "memory_associate", query="x", mode="dream")
    assert one.startswith("Error executing tool memory_associate: 1 invalid argument: mode: Input should be")

"""The visibility filter: defaults hide what recall must not show; as_of shows exactly the past."""

from __future__ import annotations

import numpy as np

from graphmem.core.values import STATUSES
from graphmem.store.visibility import VisibilityFilter, evaluate_visibility

NEVER = np.iinfo(np.int64).max
# node:            concept  active   forgotten@50  superseded(hidden)  other project  created@200
COLUMNS = {
    "node_type": np.array([0, 1, 1, 1, 1, 1]),
    "project": np.array([-1, 0, 0, 0, 1, 0]),
    "kind": np.array([-1, 0, 0, 0, 0, 1]),
    "status": np.array([-1, 0, STATUSES.index("forgotten"), 0, 0, 0]),
    "hidden": np.array([False, False, False, True, False, False]),
    "created": np.array([0, 10, 10, 10, 10, 200]),
    "valid_from": np.array([0, 10, 10, 10, 10, 200]),
    "valid_to": np.array([NEVER, NEVER, 50, 100, NEVER, NEVER]),
}
CODES = {"project": {"payments": 0, "web": 1}, "kind": {"decision": 0, "error": 1}}
TAGS = {1: frozenset({"stripe", "webhooks"}), 5: frozenset({"stripe"})}


def visible(view: VisibilityFilter, now: int = 1_000) -> list[int]:
    return np.flatnonzero(evaluate_visibility(view, now, COLUMNS.__getitem__, CODES, TAGS)).tolist()


def test_default_recall_hides_forgotten_and_superseded_memories_and_concepts():
    assert visible(VisibilityFilter()) == [1, 4, 5]


def test_as_of_shows_the_state_at_that_instant():
    assert visible(VisibilityFilter(as_of_ms=40)) == [1, 2, 3, 4]
    assert visible(VisibilityFilter(as_of_ms=60)) == [1, 3, 4]
    assert visible(VisibilityFilter(as_of_ms=300)) == [1, 4, 5]


def test_project_kind_and_tag_filters_combine():
    assert visible(VisibilityFilter(project="payments")) == [1, 5]
    assert visible(VisibilityFilter(project="nowhere")) == []
    assert visible(VisibilityFilter(kinds=("error",))) == [5]
    assert visible(VisibilityFilter(tags=("stripe", "webhooks"))) == [1]


def test_include_superseded_shows_hidden_memories_but_not_forgotten_ones():
    assert visible(VisibilityFilter(include_superseded=True)) == [1, 3, 4, 5]

"""The semantics table is the one definition of relation types, and docs/relations.md shows it as it is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.core.relations import RELATION_TYPES, semantics_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "relations.md"


def test_the_documented_table_is_the_semantics_table():
    row = re.compile(r"^\| `(\w+)` \| (yes|no) \| ([\d.]+) \| (\w+) \| (.+?) \|$", re.MULTILINE)
    documented = {name: (symmetric == "yes", float(spread), recall, text)
                  for name, symmetric, spread, recall, text in row.findall(DOC.read_text(encoding="utf-8"))}
    assert documented == {row.name: (row.symmetric, row.spread, row.recall, row.description)
                          for row in RELATION_TYPES.values()}


def test_an_unknown_type_names_every_valid_one():
    with pytest.raises(KeyError, match=r"valid: supersedes, contradicts.*not_conflict"):
        semantics_of("replaces")


def test_no_type_both_hides_and_spreads_nothing_and_self_relations_are_never_allowed():
    assert all(not row.allow_self for row in RELATION_TYPES.values())
    assert all(row.spread > 0 for row in RELATION_TYPES.values() if row.recall != "none")

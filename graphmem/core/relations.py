"""The one table of typed-relation semantics.

Every relation type declares, in one row: whether it is symmetric, how much activation flows across
it (0 = none), and what it does to recall. Recall, composition, conflict reporting and validation
all read this table; nothing else hard-codes a relation name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["RELATION_TYPES", "RecallEffect", "RelationSemantics", "hidden_ends", "same_question", "semantics_of",
           "valid_relation_types"]

RecallEffect = Literal["hide_target", "surface_conflict", "hide_source", "none"]


@dataclass(frozen=True, slots=True)
class RelationSemantics:
    """What one relation type means to the graph.

    ``spread`` is the edge weight activation flows with (relative to a mention edge of weight 1);
    ``recall`` says what the relation does to recall; ``allow_self`` whether a memory may relate to
    itself. ``question`` names what the type answers about a pair: every ``"conflict"`` type is one
    verdict on "do these two clash?", so a pair holds at most one of them (see :func:`same_question`).
    """

    name: str
    symmetric: bool
    spread: float
    recall: RecallEffect
    description: str
    allow_self: bool = False
    question: str | None = None


# Spread weights: supports/causes carry association strongly (the two memories are about the same
# thing); contradicts also spreads, because a contradiction must surface whenever one side is in
# play. supersedes spreads from old to new at full weight so a query that hits stale wording still
# reaches the current memory, while the old one is hidden (hide_target on the superseded side).
# The "conflict" question: the verdicts a conflict review (scan → compare → judge) can end in.
_CONFLICT = "conflict"
_TABLE = (
    RelationSemantics("supersedes", False, 1.0, "hide_target",
                      "source replaces target; target is hidden from default recall, visible with as_of",
                      question=_CONFLICT),
    RelationSemantics("contradicts", True, 0.8, "surface_conflict",
                      "the two memories make incompatible claims; both surface together as a conflict",
                      question=_CONFLICT),
    RelationSemantics("conflicts_with", True, 0.8, "surface_conflict",
                      "a judged or pending conflict between two memories (KiroGraph naming)", question=_CONFLICT),
    RelationSemantics("consolidated_from", False, 0.5, "hide_target",
                      "source is a consolidation of target; originals are archived, not deleted"),
    RelationSemantics("duplicate_of", False, 0.5, "hide_source",
                      "source repeats target; the source is hidden from default recall", question=_CONFLICT),
    RelationSemantics("causes", False, 0.8, "none", "source causes target"),
    RelationSemantics("supports", False, 0.8, "none", "source is evidence for target"),
    RelationSemantics("has_decision", False, 0.8, "none", "source led to the decision in target"),
    RelationSemantics("related", True, 0.6, "none", "loosely related"),
    RelationSemantics("compatible", True, 0.4, "none", "judged compatible: not a conflict", question=_CONFLICT),
    RelationSemantics("scoped", True, 0.3, "none", "both hold, in different scopes", question=_CONFLICT),
    RelationSemantics("not_conflict", True, 0.0, "none", "judged not a conflict; never re-proposed",
                      question=_CONFLICT),
)

RELATION_TYPES: dict[str, RelationSemantics] = {row.name: row for row in _TABLE}


def valid_relation_types() -> tuple[str, ...]:
    """All relation type names, in table order."""
    return tuple(RELATION_TYPES)


def same_question(first: str, second: str) -> bool:
    """Whether two relation types are answers to the same question about a pair.

    A pair judged ``conflicts_with`` is settled: proposing ``contradicts`` for it would open a
    second verdict on the same question (and list the pair twice among open conflicts).

    >>> same_question("conflicts_with", "contradicts"), same_question("related", "supersedes")
    (True, False)
    """
    if first == second:
        return True
    question = RELATION_TYPES[first].question
    return question is not None and question == RELATION_TYPES[second].question


def semantics_of(relation_type: str) -> RelationSemantics:
    """The semantics row of ``relation_type``.

    Raises ``KeyError`` naming the valid types; the service turns it into ``InvalidInput``.

    >>> semantics_of("supersedes").recall
    'hide_target'
    """
    try:
        return RELATION_TYPES[relation_type]
    except KeyError:
        raise KeyError(f"unknown relation type {relation_type!r}; valid: {', '.join(RELATION_TYPES)}") from None


class _RelationEnds(Protocol):  # read-only members: a Relation, a RelationEdge (NamedTuple) or a row
    @property
    def type(self) -> str: ...
    @property
    def source_id(self) -> str: ...
    @property
    def target_id(self) -> str: ...


def hidden_ends(relation: _RelationEnds | None) -> set[str]:
    """The memory a judged ``relation`` would hide from default recall (empty for other types).

    >>> from types import SimpleNamespace
    >>> hidden_ends(SimpleNamespace(type="supersedes", source_id="new", target_id="old"))
    {'old'}
    """
    semantics = None if relation is None else RELATION_TYPES.get(relation.type)
    if relation is None or semantics is None:
        return set()
    if semantics.recall == "hide_target":
        return {relation.target_id}
    if semantics.recall == "hide_source":
        return {relation.source_id}
    return set()

"""Relation tools: relate (judged now), propose (pending), pending, judge, ignore, scan for conflicts.
The workflow is scan → propose → pending → judge or ignore."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from graphmem.core.relations import valid_relation_types
from graphmem.server.common import (
    READ_ONLY,
    WRITE,
    ProjectFilter,
    reply,
    service_of,
    tool_errors,
)
from graphmem.server.context import AppContext
from graphmem.server.models.relations import (
    ConflictPairOut,
    PairSideOut,
    PendingOut,
    RelationOutcomeOut,
    ScanOut,
)
from graphmem.service.relations.results import ScanResult

__all__ = ["TOOLS", "RelationType", "scan_out"]

Ctx = Context[AppContext, Any]
# The Literal is built from the semantics table, so the schema's enum and the table never disagree.
if TYPE_CHECKING:  # the checker cannot evaluate a Literal built at run time: it sees the base type
    RelationType = str
else:
    RelationType = Literal[valid_relation_types()]
Source = Annotated[str, Field(description=(
    "Memory id or topic key of the source: the side that supersedes, contradicts, causes, supports…"))]
Target = Annotated[str, Field(description="Memory id or topic key of the target: the side acted on")]
TypeParam = Annotated[RelationType, Field(description=(
    "supersedes hides the target from recall (as_of still shows it); contradicts / conflicts_with "
    "surface in composition and as notes on hits; the others link for recall"))]
Confidence = Annotated[float, Field(ge=0.0, le=1.0, description="How sure you are, 0 to 1")]
Reason = Annotated[str | None, Field(description="Why the relation holds, in a sentence")]
Evidence = Annotated[str | None, Field(description="A quote or pointer that supports it")]
_SIDE_CHARS = 160  # enough to judge the pair; memory_open has the rest
RelationId = Annotated[str, Field(description="The rel_… id from memory_propose_relation or "
                                  "memory_pending_relations")]


def memory_relate(ctx: Ctx, source: Source, target: Target, type: TypeParam, confidence: Confidence = 1.0,
                  reason: Reason = None, evidence: Evidence = None,
                  meta: Annotated[dict[str, Any] | None, Field(description="Extra JSON data")] = None,
                  ) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Assert a typed relation between two memories now (judged). Asserting it again updates it."""
    with tool_errors():
        outcome = service_of(ctx).relations.relate(source, target, type, confidence=confidence, reason=reason,
                                                   evidence=evidence, meta=meta)
    return reply(RelationOutcomeOut.model_validate(outcome))


def memory_propose_relation(ctx: Ctx, source: Source, target: Target, type: TypeParam,
                            confidence: Confidence = 1.0, reason: Reason = None, evidence: Evidence = None,
                            ) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Propose a relation for judgment: it stays pending (and is noted on recall hits) until
    memory_judge_relation or memory_ignore_relation."""
    with tool_errors():
        outcome = service_of(ctx).relations.compare(source, target, type, confidence=confidence, reason=reason,
                                                    evidence=evidence)
    return reply(RelationOutcomeOut.model_validate(outcome))


def memory_pending_relations(
    ctx: Ctx,
    memory: Annotated[str | None, Field(description="Only relations touching this memory (id or topic key)")
                      ] = None,
    limit: Annotated[int, Field(ge=1, le=500, description="Relations per page")] = 20,
    offset: Annotated[int, Field(ge=0, description="Relations to skip, for the next page")] = 0,
) -> Annotated[CallToolResult, PendingOut]:
    """Relations waiting for judgment, with both memories and every id the next call needs."""
    with tool_errors():
        page = service_of(ctx).relations.pending(limit, offset, memory)
    return reply(PendingOut.model_validate(page))


def memory_judge_relation(
    ctx: Ctx, relation_id: RelationId,
    type: Annotated[RelationType | None, Field(description="A revised type; omit to confirm the proposed one")
                    ] = None,
    confidence: Annotated[float | None, Field(ge=0.0, le=1.0, description="A revised confidence")] = None,
    reason: Reason = None, evidence: Evidence = None,
    stronger: Annotated[str | None, Field(description="conflicts_with: the id of the side that wins")] = None,
) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Confirm or revise a pending relation. A judged supersedes hides the older memory from recall."""
    with tool_errors():
        outcome = service_of(ctx).relations.judge(relation_id, type, confidence=confidence, reason=reason,
                                                  evidence=evidence, stronger=stronger)
    return reply(RelationOutcomeOut.model_validate(outcome))


def memory_ignore_relation(ctx: Ctx, relation_id: RelationId, reason: Reason = None,
                           ) -> Annotated[CallToolResult, RelationOutcomeOut]:
    """Dismiss a pending relation as not relevant; scans will not propose the pair again."""
    with tool_errors():
        outcome = service_of(ctx).relations.ignore(relation_id, reason)
    return reply(RelationOutcomeOut.model_validate(outcome))


def _side(memory: Any) -> PairSideOut:
    content = memory.content if len(memory.content) <= _SIDE_CHARS else memory.content[:_SIDE_CHARS - 1] + "…"
    return PairSideOut(id=memory.id, kind=memory.kind, content=content)


def scan_out(result: ScanResult, shown: int) -> ScanOut:
    candidates = [ConflictPairOut(a=_side(pair.a), b=_side(pair.b),
                                  score=pair.score, kind=pair.kind, reason=pair.reason,
                                  shared_concepts=list(pair.shared_concepts), newer_id=pair.newer_id,
                                  suggested_relation=pair.suggested_relation)
                  for pair in result.candidates[:shown]]
    return ScanOut(candidates=candidates, total_candidates=len(result.candidates), scanned=result.scanned,
                   pairs_compared=result.pairs_compared, settled_pairs_skipped=result.settled_pairs_skipped)


def memory_scan_conflicts(
    ctx: Ctx,
    project: ProjectFilter = None,
    limit: Annotated[int, Field(ge=1, le=500, description="Newest memories to scan")] = 50,
    min_score: Annotated[float, Field(ge=0.0, le=1.0, description="Drop weaker candidates")] = 0.0,
    max_candidates: Annotated[int, Field(ge=1, le=100, description="Candidates to return, best first")] = 5,
) -> Annotated[CallToolResult, ScanOut]:
    """Find memories that may contradict each other (opposite polarity, another value or choice for the
    same thing, the same topic key). Propose the suggested relation with memory_propose_relation."""
    with tool_errors():
        result = service_of(ctx).conflicts.scan(limit, project, max_candidates=max_candidates,
                                                min_score=min_score)
    return reply(scan_out(result, max_candidates))


TOOLS = {
    "memory_relate": (memory_relate, WRITE),
    "memory_propose_relation": (memory_propose_relation, WRITE),
    "memory_pending_relations": (memory_pending_relations, READ_ONLY),
    "memory_judge_relation": (memory_judge_relation, WRITE),
    "memory_ignore_relation": (memory_ignore_relation, WRITE),
    "memory_scan_conflicts": (memory_scan_conflicts, READ_ONLY),
}

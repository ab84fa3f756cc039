"""Skills from patterns (Kyew's ``learn`` / skills): no LLM, the steps are the source memories' statements.

``learn`` stores an observation and counts its related memories: same project, visible, sharing
specific concepts (similarity ≥ :data:`RELATED_SIMILARITY`). Below the threshold the result says how
many more are needed; at it, a draft skill is made from the new memory and its related ones.
Lifecycle: draft → active → deprecated (optionally with a successor), draft → rejected. Every change
is a new version with an audit entry (who, when, why); rollback restores any version as a new one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphmem.core import clustering
from graphmem.core.consolidation import split_statements
from graphmem.core.time import from_ms
from graphmem.core.values import OUTCOMES
from graphmem.errors import InvalidInput, NotFound
from graphmem.ids import new_id
from graphmem.service.clock import Clock
from graphmem.service.learning.clusters import neighbours_of
from graphmem.service.learning.results import PatternNotice, Skill, SkillList, SkillVersion
from graphmem.service.memories.drafts import validate_observation
from graphmem.service.memories.writes import MemoryWrites
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_choice, check_count, check_text
from graphmem.store import learning_store
from graphmem.store.learning_store import SkillRecord

__all__ = ["RELATED_SIMILARITY", "SKILL_THRESHOLD", "SkillService"]

SKILL_THRESHOLD = 3  # Kyew: "2 related memories found — 1 more before skill generation"
# Related, not repeated: an error and its fix score 0.5–0.7 on data/, steps of one procedure 0.3–0.6.
RELATED_SIMILARITY = 0.3
Change = tuple[str, dict[str, Any]]  # a skill change: the action's audit name and the fields it sets
_TRANSITIONS = {"activate": ({"draft", "deprecated"}, "active"), "deprecate": ({"active"}, "deprecated"),
                "reject": ({"draft"}, "rejected")}


class SkillService:
    """Skill use cases (reached as ``service.learning.skills``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock, writes: MemoryWrites) -> None:
        self.uow = uow
        self.clock = clock
        self.writes = writes

    def learn(self, observation: str, project: str | None = None, **fields: Any) -> tuple[Any, PatternNotice]:
        """Store an observation (Kyew's ``learn``) and report its pattern: related memories, and a draft
        skill once there are :data:`SKILL_THRESHOLD` of them."""
        stored = self.writes.store(validate_observation(self.uow.settings.limits, content=observation,
                                                        project=project, **fields))
        related = self.related(stored.id, project)
        missing = SKILL_THRESHOLD - len(related)
        if missing > 0:
            return stored, PatternNotice(related, SKILL_THRESHOLD, f"{len(related)} related memories found — "
                                         f"{missing} more before a skill draft")
        skill = self.draft([stored.id, *related], project)
        return stored, PatternNotice(related, SKILL_THRESHOLD, f"{len(related)} related memories found — "
                                     f"skill draft {skill.id} ({skill.name})", skill.id)

    def related(self, memory_id: str, project: str | None) -> tuple[str, ...]:
        """Visible memories of the project sharing specific concepts with ``memory_id``, strongest first."""
        similarity = neighbours_of(self.uow, memory_id, project, self.clock.now_ms(), RELATED_SIMILARITY)
        if similarity is None:
            return ()
        ids, pairs = similarity.matrix.memory_ids, similarity.pairs
        touching = (pairs.left == 0) | (pairs.right == 0)  # row 0 is the memory itself
        others = np.where(pairs.left[touching] == 0, pairs.right[touching], pairs.left[touching])
        return tuple(ids[int(other)] for other in others)

    def draft(self, memory_ids: Sequence[str], project: str | None, actor: str = "graphmem") -> Skill:
        """A draft skill from ``memory_ids``: their statements in time order are the steps."""
        memories = sorted(self.uow.repository.memories_by_id(memory_ids).values(), key=lambda m: m.created_at)
        if len(memories) < 2:
            raise InvalidInput("a skill needs at least two source memories")
        concepts = self._shared_concepts([m.id for m in memories])
        name = " / ".join(concepts) or memories[0].content[:40]
        steps = [_step(m.content, m.kind) for m in memories]
        now = self.clock.now_ms()
        with self.uow.write() as write:
            existing = learning_store.skill_record_by_name(write.session, project or "", name)
            if existing is not None:
                return self._skill(write.session, existing)
            drafted = SkillRecord(
                id=new_id("skill"), name=name, project=project,
                trigger=f"When working on {', '.join(concepts) or name} in {project or 'any project'}",
                steps=tuple(steps), source_ids=tuple(m.id for m in memories), status="draft", version=1,
                successes=0, failures=0)
            record = learning_store.insert_skill(write.session, drafted, now,
                                                 _audit("drafted", actor, "pattern detected", now))
            write.changed("skills", [record.id])
            return self._skill(write.session, record)

    def transition(self, skill_id: str, action: str, actor: str = "agent", reason: str | None = None,
                   successor_id: str | None = None) -> Skill:
        """activate, deprecate (optionally naming the successor) or reject; a new version each time."""
        check_choice("action", action, tuple(_TRANSITIONS))
        allowed, status = _TRANSITIONS[action]
        return self._change(skill_id, actor, reason,
                            lambda skill, _session: _move(skill, action, allowed, status, successor_id))

    def move(self, skill_id: str, status: str, actor: str = "agent", reason: str | None = None,
             successor_id: str | None = None) -> Skill:
        """:meth:`transition` named by the status to reach (active, deprecated, rejected)."""
        actions = {target: action for action, (_, target) in _TRANSITIONS.items()}
        check_choice("status", status, tuple(actions))
        return self.transition(skill_id, actions[status], actor, reason, successor_id)

    def rollback(self, skill_id: str, version: int, actor: str = "agent", reason: str | None = None) -> Skill:
        """Restore the fields of ``version`` as a new version."""
        check_count("version", version, 1, 1_000_000)

        def restore(skill: SkillRecord, session: Any) -> Change:
            found = [v for v in learning_store.skill_history(session, skill.id) if v.version == version]
            if not found:
                raise NotFound(f"version of {skill.id}", str(version))
            return f"rolled_back_to_{version}", found[0].snapshot
        return self._change(skill_id, actor, reason, restore)

    def record_outcome(self, skill_id: str, outcome: str, actor: str = "agent", note: str | None = None) -> Skill:
        """Record that an agent used the skill, with ``success`` or ``failure`` (partial/unknown counted as neither)."""
        check_choice("outcome", outcome, OUTCOMES)

        def count(skill: SkillRecord, _session: Any) -> Change:
            return f"outcome_{outcome}", {"successes": skill.successes + (outcome == "success"),
                                          "failures": skill.failures + (outcome == "failure")}
        return self._change(skill_id, actor, note, count)

    def list(self, project: str | None = None, status: str | None = None, limit: int = 50) -> SkillList:
        statuses = (status,) if status else ()
        with self.uow.read() as session:
            records = learning_store.skill_records(session, project=project, statuses=statuses, limit=limit)
            return SkillList(tuple(self._skill(session, record, history=False) for record in records))

    def get(self, skill_id: str) -> Skill:
        with self.uow.read() as session:
            return self._skill(session, self._record(session, skill_id))

    # -- helpers --------------------------------------------------------------------------------
    def _shared_concepts(self, memory_ids: Sequence[str], limit: int = 3) -> tuple[str, ...]:
        """The specific concepts most of ``memory_ids`` share (read from their rows only)."""
        projection = self.uow.fresh()
        with projection.lock:
            nodes = [projection.memory_nodes[m] for m in memory_ids if m in projection.memory_nodes]
            matrix = learning_store.rows_matrix(projection, nodes)
        max_df = clustering.specificity_cap(matrix.n_docs)
        rows = np.arange(len(nodes), dtype=np.int64)
        columns = clustering.shared_concepts(matrix.matrix, rows, matrix.df, max_df, limit) if nodes else ()
        return tuple(matrix.concept_keys[int(c)] for c in columns)

    def _change(self, skill_id: str, actor: str, reason: str | None, apply: Callable[[SkillRecord, Any], Change]
                ) -> Skill:
        """One new version: ``apply`` names the action and the fields it sets; the store writes both."""
        actor = check_text("actor", actor, 200, required=True) or "agent"
        reason = check_text("reason", reason, 2_000)
        now = self.clock.now_ms()
        with self.uow.write() as write:
            action, fields = apply(self._record(write.session, skill_id), write.session)
            record = learning_store.update_skill(write.session, skill_id, fields, now,
                                                 _audit(action, actor, reason, now))
            write.changed("skills", [record.id])
            return self._skill(write.session, record)

    def _record(self, session: Any, skill_id: str) -> SkillRecord:
        record = learning_store.skill_record(session, skill_id) if isinstance(skill_id, str) else None
        if record is None:
            raise NotFound("skill id", str(skill_id))
        return record

    def _skill(self, session: Any, record: SkillRecord, *, history: bool = True) -> Skill:
        versions = learning_store.skill_history(session, record.id) if history else []
        return Skill(id=record.id, name=record.name, project=record.project, trigger=record.trigger,
                     steps=record.steps, source_ids=record.source_ids, status=record.status, version=record.version,
                     successes=record.successes, failures=record.failures, successor_id=record.successor_id,
                     history=tuple(SkillVersion(v.version, v.action, v.actor, from_ms(v.at).isoformat(), v.reason,
                                                v.snapshot.get("status", "")) for v in versions))


def _move(skill: SkillRecord, action: str, allowed: set[str], status: str, successor_id: str | None) -> Change:
    if skill.status not in allowed:
        raise InvalidInput(f"cannot {action} a {skill.status} skill (allowed from: {', '.join(sorted(allowed))})")
    fields: dict[str, Any] = {"status": status}
    if action == "deprecate":
        fields["successor_id"] = successor_id
    return {"activate": "activated", "deprecate": "deprecated", "reject": "rejected"}[action], fields


def _audit(action: str, actor: str, reason: str | None, now: int) -> dict[str, Any]:
    return {"action": action, "actor": actor, "reason": reason, "at": now}


def _step(content: str, kind: str) -> str:
    """The first statement of a memory, prefixed by what it is (an error to avoid, a fix to apply)."""
    first = split_statements(content)[0] if content.strip() else content
    return f"{kind}: {first}" if kind in ("error", "solution", "decision") else first

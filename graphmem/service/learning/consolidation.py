"""Consolidation (cortexgraph's ``consolidate_memories``): preview, apply, undo; nothing is ever deleted.

Apply writes, in one transaction: the merged memory (every unique statement once, the union of tags
and entities, the earliest ``valid_from``, the summed use counts, the strongest strength), a judged
``consolidated_from`` relation from it to each original, and through that relation's effect the
originals archived and hidden (``as_of`` before the merge still shows them: their rows are untouched
but for status). Undo ignores those relations (originals active and visible again) and archives the
merged memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.core.consolidation import merge_statements
from graphmem.core.time import from_ms
from graphmem.core.values import Memory
from graphmem.errors import ConflictError, InvalidInput, NotFound
from graphmem.ids import new_id
from graphmem.service.clock import Clock
from graphmem.service.learning.clusters import ClusterService
from graphmem.service.learning.results import ConsolidationPreview, ConsolidationResult
from graphmem.service.memories.drafts import Observation, build_drafts
from graphmem.service.memories.relation_effects import RelationEffects, record_effects
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_choice, check_range
from graphmem.store import learning_store, lifecycle_store, relation_store
from graphmem.store.repository import insert_memories

__all__ = ["AUTO_COHESION", "ConsolidationService"]

AUTO_COHESION = 0.75  # cortexgraph's default cohesion threshold for auto_detect


class ConsolidationService:
    """Consolidation use cases (reached as ``service.learning.consolidation``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock, clusters: ClusterService) -> None:
        self.uow = uow
        self.clock = clock
        self.clusters = clusters

    def consolidate(self, cluster_id: str | None = None, mode: str = "preview", *, auto_detect: bool = False,
                    cohesion_threshold: float = AUTO_COHESION, memory_ids: Sequence[str] | None = None,
                    project: str | None = None) -> ConsolidationResult:
        """:meth:`preview` or :meth:`apply`, by ``mode`` (the CLI's one command for both)."""
        check_choice("mode", mode, ("preview", "apply"))
        run = self.preview if mode == "preview" else self.apply
        return run(cluster_id, auto_detect=auto_detect, cohesion_threshold=cohesion_threshold,
                   memory_ids=memory_ids, project=project)

    def preview(self, cluster_id: str | None = None, *, auto_detect: bool = False,
                cohesion_threshold: float = AUTO_COHESION, memory_ids: Sequence[str] | None = None,
                project: str | None = None) -> ConsolidationResult:
        """The merged text and fields of one cluster (by id or by its memory ids), or with ``auto_detect``
        of every merge-worthy cluster at or above ``cohesion_threshold``; nothing is written."""
        previews = self._previews(cluster_id, auto_detect, _cohesion(cohesion_threshold), memory_ids, project)
        return ConsolidationResult(action="preview", merged_id=None, previews=previews,
                                   message=f"{len(previews)} consolidation(s) previewed; nothing written")

    def apply(self, cluster_id: str | None = None, *, auto_detect: bool = False,
              cohesion_threshold: float = AUTO_COHESION, memory_ids: Sequence[str] | None = None,
              project: str | None = None) -> ConsolidationResult:
        """Write what :meth:`preview` shows: the merged memory, ``consolidated_from`` edges, the originals
        archived (never deleted)."""
        previews = self._previews(cluster_id, auto_detect, _cohesion(cohesion_threshold), memory_ids, project)
        results = [self._apply(preview) for preview in previews]
        return ConsolidationResult(
            action="applied", merged_id=results[0][0] if results else None,
            archived=tuple(i for _, archived, _ in results for i in archived),
            relation_ids=tuple(r for *_, rels in results for r in rels), previews=previews,
            message=f"{len(results)} cluster(s) consolidated; originals archived, nothing deleted")

    def undo(self, merged_id: str) -> ConsolidationResult:
        """Restore the originals of a consolidation and archive the merged memory."""
        effects = RelationEffects()
        now = from_ms(self.clock.now_ms())
        with self.uow.write() as write:
            relations = learning_store.consolidation_relations(write.session, merged_id)
            if not relations:
                raise NotFound("consolidation (merged memory id)", merged_id)
            for relation in relations:
                after = relation_store.update_relation(write.session, relation.id, {
                    "status": "ignored", "judged_at": self.clock.now_ms(), "reason": "consolidation undone"})
                record_effects(write.session, relation, after, now, effects)
            merged = lifecycle_store.set_status(write.session, [merged_id], "archived")
            effects.record(write)
            write.updated(merged)
        restored = tuple(r.target_id for r in relations)
        return ConsolidationResult(action="undone", merged_id=merged_id, restored=restored,
                                   relation_ids=tuple(r.id for r in relations),
                                   message=f"restored {len(restored)} original(s); {merged_id} archived")

    # -- preview --------------------------------------------------------------------------------
    def _previews(self, cluster_id: str | None, auto_detect: bool, threshold: float,
                  memory_ids: Sequence[str] | None, project: str | None) -> tuple[ConsolidationPreview, ...]:
        if memory_ids:
            return (self._preview("manual", 1.0, list(dict.fromkeys(memory_ids))),)
        if auto_detect:
            report = self.clusters.clusters(project=project, limit=1000)
            return tuple(self._preview(c.id, c.cohesion, c.memory_ids) for c in report.clusters
                         if c.action == "merge" and c.cohesion >= threshold)
        if not cluster_id:
            raise InvalidInput("consolidate needs cluster_id, memory_ids or auto_detect=true")
        cluster = self.clusters.find(cluster_id)
        if cluster is None:
            raise NotFound("cluster id (run clusters again: its members changed)", cluster_id)
        return (self._preview(cluster.id, cluster.cohesion, cluster.memory_ids),)

    def _preview(self, cluster_id: str, cohesion: float, ids: Sequence[str]) -> ConsolidationPreview:
        if len(ids) < 2:
            raise InvalidInput("a consolidation needs at least two memories")
        found = self.uow.repository.memories_by_id(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound("memory id", missing[0])
        members = sorted((found[i] for i in ids), key=lambda m: (m.created_at, m.id))
        if len({m.project for m in members}) > 1:
            raise InvalidInput("memories of different projects are never consolidated")
        merged = merge_statements([m.content for m in members])
        return ConsolidationPreview(
            cluster_id=cluster_id, cohesion=cohesion, memory_ids=tuple(m.id for m in members),
            content=merged.content, kind=_kind(members), project=members[0].project,
            tags=_union(m.tags for m in members), entities=_union(m.entities for m in members),
            valid_from=min(m.valid_from for m in members).isoformat(),
            use_count=sum(m.use_count for m in members), strength=max(m.strength for m in members),
            dropped_statements=merged.dropped)

    # -- apply ----------------------------------------------------------------------------------
    def _apply(self, preview: ConsolidationPreview) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        observation = Observation(
            content=preview.content, kind=preview.kind, project=preview.project, tags=preview.tags,
            entities=preview.entities, source="consolidation",
            meta={"consolidated_from": list(preview.memory_ids), "cluster_id": preview.cluster_id},
            valid_from=_instant(preview.valid_from))
        drafts = build_drafts(self.uow.extractor, [observation])
        effects = RelationEffects()
        with self.uow.write() as write:
            batch = insert_memories(write.session, drafts)
            merged_id, duplicate = batch.outcomes[0]
            if duplicate:
                raise ConflictError(f"the merged text repeats memory {merged_id}; consolidate with memory_ids "
                                    "that exclude it, or forget the others with superseded_by")
            write.inserted(batch)
            merged = lifecycle_store.update_memories(write.session, {merged_id: {
                "use_count": preview.use_count, "strength": preview.strength}})
            write.updated(merged)
            relation_ids = self._relate(write.session, merged_id, preview.memory_ids, preview.cohesion, effects)
            effects.record(write)
        return merged_id, preview.memory_ids, relation_ids

    def _relate(self, session: object, merged_id: str, originals: Sequence[str], cohesion: float,
                effects: RelationEffects) -> tuple[str, ...]:
        now_ms = self.clock.now_ms()
        ids = []
        for original in originals:
            relation = relation_store.insert_relation(session, {  # type: ignore[arg-type]
                "id": new_id("rel"), "source_id": merged_id, "target_id": original, "type": "consolidated_from",
                "confidence": 1.0, "reason": f"consolidated (cohesion {cohesion:.2f})", "evidence": None,
                "meta": {}, "status": "judged", "created_at": now_ms, "judged_at": now_ms})
            record_effects(session, None, relation, from_ms(now_ms), effects)
            ids.append(relation.id)
        return tuple(ids)


def _kind(members: Sequence[Memory]) -> str:
    kinds = {m.kind for m in members}
    return kinds.pop() if len(kinds) == 1 else "note"


def _union(groups: object) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group))  # type: ignore[attr-defined]


def _instant(iso: str):  # type: ignore[no-untyped-def]
    from datetime import datetime

    return datetime.fromisoformat(iso)


def _cohesion(threshold: float) -> float:
    return check_range("cohesion_threshold", threshold, 0.0, 1.0)

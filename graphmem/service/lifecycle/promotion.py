"""Promotion to long-term memory, by id or auto-detected, with an optional Markdown vault export.

A promoted memory stays in the store and in every search (its status is ``promoted``; it no longer
fades, see ``decay_scores``). The criteria are in :class:`graphmem.core.decay.PromotionCriteria`.
``force`` overrides those usage criteria, never validity: a superseded, expired or judged-hidden
(``duplicate_of``) memory is an outdated version, and long-term memory (and its vault) must not
keep it as current.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphmem.core.decay import PromotionCriteria, promotion_failures
from graphmem.core.time import MS_PER_HOUR, from_ms, to_ms
from graphmem.core.values import Memory
from graphmem.service.lifecycle.context import LifecycleContext, life_rows, update_memories
from graphmem.service.lifecycle.decay_scores import describe, memory_score
from graphmem.service.lifecycle.results import LifecycleItem, LifecycleReport
from graphmem.service.lifecycle.vault import note_path, render_note, vault_folder, write_notes
from graphmem.service.memories.reads import concept_names, resolve_many
from graphmem.service.validation import check_count
from graphmem.store import relation_store

__all__ = ["criteria_of", "promote", "promotion_check"]

Verdict = tuple[bool, bool, tuple[str, ...]]


def criteria_of(life: LifecycleContext) -> PromotionCriteria:
    settings = life.settings.lifecycle
    return PromotionCriteria(min_score=settings.promote_min_score, min_uses=settings.promote_min_uses,
                             window_days=settings.promote_window_days,
                             min_span_hours=settings.promote_min_span_hours)


def promotion_check(life: LifecycleContext, memory: Memory, now: int) -> tuple[str, ...]:
    """The criteria ``memory`` misses now (empty: it qualifies)."""
    last_used, created = to_ms(memory.last_used_at), to_ms(memory.created_at)
    return promotion_failures(memory_score(memory, life.params, now), memory.use_count,
                              (now - last_used) / MS_PER_HOUR, (last_used - created) / MS_PER_HOUR,
                              criteria_of(life))


def promote(life: LifecycleContext, ids: Sequence[str], *, dry_run: bool, force: bool, export: bool,
            folder: str | None, project: str | None, limit: int) -> LifecycleReport:
    """Promote the named memories (``force`` skips the criteria) or the auto-detected candidates."""
    limit = check_count("limit", limit, 1, 10_000)
    now = life.now_ms()
    memories = _named(life, ids) if ids else _candidates(life, project, now)
    outdated = _outdated(life, memories, now)
    memories = memories if ids else [m for m in memories if m.id not in outdated]
    verdicts = {m.id: _verdict(life, m, now, force, outdated.get(m.id)) for m in memories}
    chosen = [m for m in memories if verdicts[m.id][0]][:limit]
    paths = _note_paths(life, chosen, folder) if export else {}
    if not dry_run and chosen:
        _apply(life, chosen, paths, now)
    chosen_ids = {m.id for m in chosen}
    items = tuple(_item(life, m, now, verdicts[m.id], applied=m.id in chosen_ids and not dry_run,
                        path=paths.get(m.id)) for m in memories if ids or m.id in chosen_ids)
    verb = "would promote" if dry_run else "promoted"
    return LifecycleReport("promote", items, dry_run=dry_run, count=len(chosen), total=len(memories),
                           message=f"{verb} {len(chosen)} of {len(memories)}"
                                   + (f"; notes in {next(iter(paths.values())).parent}" if paths else ""))


def _named(life: LifecycleContext, ids: Sequence[str]) -> list[Memory]:
    wanted = resolve_many(life.uow.repository, ids, life.settings.limits.max_open_ids)
    found = life.uow.repository.memories_by_id(wanted)
    return [found[memory_id] for memory_id in wanted]


def _candidates(life: LifecycleContext, project: str | None, now: int) -> list[Memory]:
    """Active memories meeting every criterion, best score first (rows are scanned without content)."""
    criteria = criteria_of(life)
    ids = []
    for row in life_rows(life.uow, ("active",), project):
        if row.use_count < criteria.min_uses:
            continue  # the cheap test first: most memories are never used five times
        ids.append(row.id)
    found = life.uow.repository.memories_by_id(ids)
    qualified = [m for m in found.values() if not promotion_check(life, m, now)]
    return sorted(qualified, key=lambda m: (-memory_score(m, life.params, now), m.id))


def _outdated(life: LifecycleContext, memories: Sequence[Memory], now: int) -> dict[str, str]:
    """Why each memory that is no longer the valid version is not (superseded, expired, hidden)."""
    reasons: dict[str, str] = {}
    with life.uow.read() as session:
        for memory in memories:
            if memory.superseded_by is not None:
                reasons[memory.id] = f"superseded by {memory.superseded_by}; promote the current version"
            elif memory.valid_to is not None and to_ms(memory.valid_to) <= now:
                reasons[memory.id] = f"no longer valid (valid_to {memory.valid_to.isoformat()})"
            elif hiding := relation_store.hiding_relations(session, memory.id):
                reasons[memory.id] = f"hidden by judged {hiding[0].type} relation {hiding[0].id}"
    return reasons


def _verdict(life: LifecycleContext, memory: Memory, now: int, force: bool,
             outdated: str | None) -> Verdict:
    """(selected, eligible, reasons): ``force`` selects an active memory that misses the usage criteria,
    never one that is outdated."""
    if memory.status != "active":
        return False, False, (f"status is {memory.status}; only active memories are promoted",)
    if outdated is not None:
        return False, False, (outdated, "force overrides usage, never validity")
    failures = promotion_check(life, memory, now)
    if failures and force:
        return True, False, (*failures, "selected by force")
    return not failures, not failures, failures


def _note_paths(life: LifecycleContext, memories: Sequence[Memory],
                folder: str | None) -> dict[str, Path]:
    settings = life.settings.lifecycle
    root, target = vault_folder(settings.vault_path, settings.vault_folder if folder is None else folder)
    return {m.id: note_path(root, target, m) for m in memories}


def _apply(life: LifecycleContext, memories: Sequence[Memory], paths: dict[str, Path], now: int) -> None:
    stamp = from_ms(now).isoformat()
    changes: dict[str, dict[str, Any]] = {
        m.id: {"status": "promoted", "meta": {**m.meta, "promoted_at": stamp}} for m in memories}
    for memory_id, path in paths.items():
        changes[memory_id]["meta"]["vault_path"] = str(path)

    def write(updated: list[Memory]) -> None:
        # Runs inside the transaction: if a note cannot be written, nothing is promoted.
        notes = [(paths[m.id], render_note(m, _concepts(life, m.id), stamp))
                 for m in updated if m.id in paths]
        write_notes(Path(life.settings.lifecycle.vault_path or ".").expanduser().resolve(), notes)

    update_memories(life.uow, changes, write if paths else None)


def _concepts(life: LifecycleContext, memory_id: str) -> list[str]:
    node = life.uow.projection.memory_nodes.get(memory_id)
    return [] if node is None else concept_names(life.uow.projection, node)[:20]


def _item(life: LifecycleContext, memory: Memory, now: int, verdict: Verdict, *, applied: bool,
          path: Path | None) -> LifecycleItem:
    _, eligible, reasons = verdict
    return describe(memory, life.params, now, eligible=eligible, reasons=reasons,
                    status="promoted" if applied else memory.status,
                    vault_path=None if path is None else str(path))

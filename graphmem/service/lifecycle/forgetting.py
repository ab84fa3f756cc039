"""Bulk forgetting: ``gc`` by decay score and ``prune`` by idle age. Dry run first, archive by default.

Protected kinds (``life.protected_kinds``, decisions and architecture by default) are never
touched: a decision nobody looked at for three months is usually still the decision. Promoted
memories are long-term memory and are never candidates. ``mode="delete"`` is the only path to a hard
delete, and it also reaches archived and forgotten memories (cleaning up what was retired before).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphmem.core.decay import retention_score
from graphmem.core.time import MS_PER_HOUR, from_ms
from graphmem.core.timespan import parse_duration_hours
from graphmem.core.wording import counted
from graphmem.errors import InvalidInput
from graphmem.service.lifecycle.context import LifecycleContext, life_rows
from graphmem.service.lifecycle.results import LifecycleItem, LifecycleReport
from graphmem.service.validation import check_choice, check_count, check_kind, check_range, check_strings
from graphmem.store import lifecycle_store, purge
from graphmem.store.lifecycle_store import LifeRow

__all__ = ["gc", "prune"]

_MODES = ("archive", "delete")


def gc(life: LifecycleContext, *, dry_run: bool, mode: str, limit: int, project: str | None,
       threshold: float | None) -> LifecycleReport:
    """Memories scoring below the forget threshold, lowest first; archived or deleted unless ``dry_run``."""
    check_choice("mode", mode, _MODES)
    limit = check_count("limit", limit, 1, 100_000)
    threshold = (life.settings.decay.forget_threshold if threshold is None
                 else check_range("threshold", threshold, 0.0, 10.0))
    now = life.now_ms()
    rows = life_rows(life.uow, _statuses(mode), project,
                                          exclude_kinds=life.settings.lifecycle.protected_kinds)
    if mode == "delete":
        rows = _without_lineage(life, rows)
    scores = _scores(life, rows, now)
    below = [i for i in range(len(rows)) if scores[i] < threshold]
    order = sorted(below, key=lambda i: (scores[i], rows[i].id))
    chosen = [(rows[i], float(scores[i])) for i in order[:limit]]
    _apply(life, [row.id for row, _ in chosen], mode, dry_run)
    message = f"{_verb(mode, dry_run)} {len(chosen)} of {counted(len(order), 'memory')} scoring below {threshold:g}"
    return LifecycleReport("gc", tuple(_item(row, score) for row, score in chosen), dry_run=dry_run,
                           count=len(chosen), total=len(order), message=message)


def prune(life: LifecycleContext, older_than: str, *, dry_run: bool, mode: str,
          protect: Sequence[str] | None, project: str | None, limit: int) -> LifecycleReport:
    """Memories neither created nor used within ``older_than`` (``90d``, ``2w``, ``6m``, ``12h``),
    oldest first."""
    check_choice("mode", mode, _MODES)
    limit = check_count("limit", limit, 1, 1_000_000)
    try:
        hours = parse_duration_hours(older_than)
    except ValueError as error:
        raise InvalidInput(str(error)) from None
    kinds = life.settings.lifecycle.protected_kinds if protect is None else _kinds(protect)
    now = life.now_ms()
    cutoff = now - int(hours * MS_PER_HOUR)
    rows = life_rows(life.uow, _statuses(mode), project, exclude_kinds=kinds,
                                          used_before_ms=cutoff)
    rows.sort(key=lambda row: (row.last_used_at, row.id))
    scores = _scores(life, rows, now)
    chosen = list(zip(rows, scores.tolist(), strict=True))[:limit]
    _apply(life, [row.id for row, _ in chosen], mode, dry_run)
    message = (f"{_verb(mode, dry_run)} {len(chosen)} of {counted(len(rows), 'memory')} idle for more than "
               f"{older_than}; protected kinds: {', '.join(kinds) or 'none'}")
    return LifecycleReport("prune", tuple(_item(row, score) for row, score in chosen), dry_run=dry_run,
                           count=len(chosen), total=len(rows), message=message)


def _without_lineage(life: LifecycleContext, rows: list[LifeRow]) -> list[LifeRow]:
    """Archived originals of a consolidation are kept from a hard delete: the delete would take their
    ``consolidated_from`` edges with them, and the merged memory would lose the record of its sources."""
    archived = [row.id for row in rows if row.status == "archived"]
    if not archived:
        return rows
    sources = {relation.target_id for relation in life.uow.repository.relations_touching(archived)
               if relation.type == "consolidated_from" and relation.status != "ignored"}
    return [row for row in rows if row.id not in sources]


def _statuses(mode: str) -> tuple[str, ...]:
    return ("active",) if mode == "archive" else ("active", "archived", "forgotten")


def _kinds(protect: Sequence[str]) -> tuple[str, ...]:
    return tuple(check_kind(kind) for kind in check_strings("protect", protect, 20, 40))


def _scores(life: LifecycleContext, rows: list[LifeRow], now: int) -> np.ndarray:
    if not rows:
        return np.zeros(0)
    ages = np.array([(now - row.last_used_at) / MS_PER_HOUR for row in rows])
    uses = np.array([row.use_count for row in rows], dtype=np.float64)
    strength = np.array([row.strength for row in rows], dtype=np.float64)
    return np.asarray(retention_score(uses, ages, strength, life.params), dtype=np.float64)


def _apply(life: LifecycleContext, ids: list[str], mode: str, dry_run: bool) -> None:
    if dry_run or not ids:
        return
    with life.uow.write() as write:
        if mode == "archive":
            write.updated(lifecycle_store.set_status(write.session, ids, "archived"))
            return
        lifecycle_store.delete_memories(write.session, ids)
        # The projection only ever appends nodes, so a hard delete rebuilds it from the rows, in this
        # process and in every other (a rare, explicit admin action; recall itself never reloads).
        write.rewrote("delete")
    purge.checkpoint(life.uow.engine)  # after the commit: the WAL held the deleted pages


def _verb(mode: str, dry_run: bool) -> str:
    if dry_run:
        return f"dry run: would {mode}"
    return "archived" if mode == "archive" else "deleted"


def _item(row: LifeRow, score: float) -> LifecycleItem:
    return LifecycleItem(id=row.id, kind=row.kind, project=row.project, status=row.status,
                         score=round(score, 6), use_count=row.use_count, strength=round(row.strength, 6),
                         created_at=from_ms(row.created_at).isoformat(),
                         last_used_at=from_ms(row.last_used_at).isoformat())

"""What every lifecycle use case works with, and the small steps they share.

:class:`LifecycleContext` is the narrow thing the use case modules (forgetting, review, promotion)
receive instead of the ``LifecycleService``: the unit of work, the one clock and the decay parameters.
The shared steps are plain functions over the unit of work, so no module reaches into another's
private parts and the service imports its modules one way only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.core.decay import DecayParams
from graphmem.core.values import Memory
from graphmem.service.clock import Clock
from graphmem.service.lifecycle.decay_scores import decay_params, describe
from graphmem.service.lifecycle.results import LifecycleItem
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.settings import Settings
from graphmem.store import lifecycle_store
from graphmem.store.lifecycle_store import LifeRow

__all__ = ["LifecycleContext", "items", "life_rows", "update_memories"]


@dataclass(frozen=True, slots=True)
class LifecycleContext:
    """The unit of work, the clock and the configured decay, for one service's lifetime."""

    uow: UnitOfWork
    clock: Clock
    params: DecayParams

    @classmethod
    def build(cls, uow: UnitOfWork, clock: Clock) -> LifecycleContext:
        return cls(uow, clock, decay_params(uow.settings.decay))

    @property
    def settings(self) -> Settings:
        return self.uow.settings

    def now_ms(self) -> int:
        """The lifecycle clock (the service's one :class:`Clock`)."""
        return self.clock.now_ms()


def life_rows(uow: UnitOfWork, statuses: Sequence[str], project: str | None = None, *,
              exclude_kinds: Sequence[str] = (), used_before_ms: int | None = None) -> list[LifeRow]:
    """The decay columns of the memories in ``statuses`` (see :func:`lifecycle_store.life_rows`)."""
    with uow.read() as session:
        return lifecycle_store.life_rows(session, statuses, project, exclude_kinds=exclude_kinds,
                                         used_before_ms=used_before_ms)


def update_memories(uow: UnitOfWork, changes: dict[str, dict[str, Any]],
                    before_commit: Callable[[list[Memory]], None] | None = None) -> list[Memory]:
    """Set columns of memories in one write (``before_commit`` runs inside it, e.g. writing vault notes)."""
    with uow.write() as write:
        updated = lifecycle_store.update_memories(write.session, changes, before_commit)
        write.updated(updated)
    return updated


def items(memories: Sequence[Memory], params: DecayParams, now: int, **extra: Any) -> tuple[LifecycleItem, ...]:
    """Each memory as a :class:`LifecycleItem` with its score now."""
    return tuple(describe(m, params, now, **extra) for m in memories)

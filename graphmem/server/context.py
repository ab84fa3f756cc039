"""The typed lifespan context every tool call receives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.server.opening import ServiceOpening

if TYPE_CHECKING:
    from graphmem.service import MemoryService

__all__ = ["AppContext"]


@dataclass(frozen=True, slots=True)
class AppContext:
    """What every tool call can reach: the service, which the server opens after it starts
    (:mod:`graphmem.server.opening`); a call reaches it once it is open."""

    opening: ServiceOpening

    @property
    def service(self) -> MemoryService:
        return self.opening.service

"""The typed lifespan context every tool call receives."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.service import MemoryService

__all__ = ["AppContext"]


@dataclass(frozen=True, slots=True)
class AppContext:
    """What every tool call can reach."""

    service: MemoryService

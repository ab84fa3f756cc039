"""Use cases: one ``MemoryService`` that every adapter calls.

The name loads on first use (PEP 562): a module that needs one light part of a feature (the call budget of
``cancellation``, a result type) imports it without importing every feature, SQLAlchemy, numpy and scipy, which
``MemoryService`` does when it opens for a server (a one-shot command's imports each feature on first use). The MCP
server answers ``initialize`` before it opens the service (docs/benchmarks.md, section 7a).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.service.memory_service import MemoryService

__all__ = ["MemoryService"]


def __getattr__(name: str) -> Any:
    if name == "MemoryService":
        from graphmem.service.memory_service import MemoryService

        return MemoryService
    raise AttributeError(f"module 'graphmem.service' has no attribute {name!r}")

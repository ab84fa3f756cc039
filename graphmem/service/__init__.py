"""Use cases: one ``MemoryService`` that every adapter calls."""

from graphmem.service.memory_service import MemoryService

__all__ = ["MemoryService"]

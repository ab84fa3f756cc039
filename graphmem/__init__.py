"""graphmem: knowledge-graph memory for AI agents, served over MCP.

>>> from graphmem import MemoryService, Settings

The names load on first use (PEP 562), so ``graphmem --help`` does not pay for spaCy, scipy and
SQLAlchemy, which the service imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphmem.malloc_arenas import keep_one_arena
from graphmem.numpy_extras import defer_before_scipy

defer_before_scipy()  # before any graphmem module imports scipy: numpy's unused extras load only if used
keep_one_arena()  # before any graphmem module starts a thread: every thread allocates from glibc's main arena

if TYPE_CHECKING:
    from graphmem.service import MemoryService
    from graphmem.settings import Settings

__all__ = ["MemoryService", "Settings"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "MemoryService":
        from graphmem.service import MemoryService

        return MemoryService
    if name == "Settings":
        from graphmem.settings import Settings

        return Settings
    raise AttributeError(f"module 'graphmem' has no attribute {name!r}")

"""Memory that learns: clusters, duplicates, consolidation, skills from patterns and project briefs.

``LearningService`` loads on first use (PEP 562), so a light part (``brief_roots``, which the MCP server's
tool definitions use) imports without the learning use cases and the store under them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.service.learning.service import LearningService

__all__ = ["LearningService"]


def __getattr__(name: str) -> Any:
    if name == "LearningService":
        from graphmem.service.learning.service import LearningService

        return LearningService
    raise AttributeError(f"module 'graphmem.service.learning' has no attribute {name!r}")

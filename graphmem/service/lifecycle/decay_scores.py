"""The decay as the lifecycle reads it: parameters, and per-memory scores and items.

Kept as the lifecycle's one import for them: ``decay_params`` comes from recall, which ranks with the
vectorized weights (:mod:`graphmem.service.recall.decay_weights`); ``memory_score`` and ``describe`` from
memories, whose edits report with them (:mod:`graphmem.service.memories.reports`).
"""

from __future__ import annotations

from graphmem.service.memories.reports import describe, memory_score
from graphmem.service.recall.decay_weights import decay_params

__all__ = ["decay_params", "describe", "memory_score"]

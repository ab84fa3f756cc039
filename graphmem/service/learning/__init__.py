"""Memory that learns: clusters, duplicates, consolidation, skills from patterns and project briefs."""

from graphmem.service.learning.service import LearningService

__all__ = ["LearningService"]

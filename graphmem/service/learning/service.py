"""``service.learning``: the learning use cases, each its own attribute (clusters, duplicates,
consolidation, skills, briefs, and ``recall``: skills a query matches), built from the one unit of work."""

from __future__ import annotations

from graphmem.service.clock import Clock
from graphmem.service.learning.briefs import BriefService
from graphmem.service.learning.clusters import ClusterService
from graphmem.service.learning.consolidation import ConsolidationService
from graphmem.service.learning.duplicates import DuplicateFinder
from graphmem.service.learning.skills import SkillService
from graphmem.service.memories.writes import MemoryWrites
from graphmem.service.recall.skills import SkillRecall
from graphmem.service.unit_of_work import UnitOfWork

__all__ = ["LearningService"]


class LearningService:
    """The learning features, reached as ``service.learning.<feature>``."""

    def __init__(self, uow: UnitOfWork, clock: Clock, writes: MemoryWrites) -> None:
        self.clusters = ClusterService(uow, clock)
        self.duplicates = DuplicateFinder(uow, clock)
        self.consolidation = ConsolidationService(uow, clock, self.clusters)
        self.skills = SkillService(uow, clock, writes)
        self.briefs = BriefService(uow, clock, self.skills)
        self.recall = SkillRecall(uow)

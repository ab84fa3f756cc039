"""Skills in recall (Kyew's ``include: skills | all`` with ``skill_detail``): the skills a query names.

Recall owns this read (search and associate add skills to their answer); the learning wing writes the
skills and reaches this matcher as ``service.learning.recall``.

Kept apart from memory ranking and cheap: one read of the project's live skills (active and draft,
at most :data:`MAX_SCANNED`), each scored by the query's words found in its name (weight 3), its
trigger (2) and its steps (1), normalized to [0, 1]. No graph, no embedding: a skill's name and
trigger are built from the specific concepts its source memories share, so the words an agent asks
with are the words that match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_choice, check_count
from graphmem.store import learning_store
from graphmem.store.learning_store import SkillRecord

__all__ = ["INCLUDES", "SKILL_DETAILS", "SkillHit", "SkillRecall", "wants", "words"]

INCLUDES = ("memories", "skills", "all")
SKILL_DETAILS = ("name_only", "summary", "full")
RECALLED_STATUSES = ("active", "draft")  # deprecated and rejected skills are not offered
MAX_SCANNED = 500
_WEIGHTS = (("name", 3.0), ("trigger", 2.0), ("steps", 1.0))
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP = frozenset(("a", "an", "and", "are", "as", "at", "be", "before", "after", "by", "do", "for", "from",
                   "how", "in", "into", "is", "it", "of", "on", "or", "the", "then", "to", "use", "using",
                   "when", "what", "with", "without"))


@dataclass(frozen=True, slots=True)
class SkillHit:
    """A skill the query matched; ``detail`` decides which of the optional fields are filled."""

    id: str
    name: str
    status: str
    score: float
    project: str | None = None
    trigger: str | None = None  # summary and full
    step_count: int | None = None  # summary and full
    steps: tuple[str, ...] = ()  # full
    source_ids: tuple[str, ...] = ()  # full
    version: int | None = None  # full
    successes: int | None = None  # summary and full
    failures: int | None = None  # summary and full


def words(text: str) -> set[str]:
    """Lower-cased words of ``text`` without stop words, a plural ``s`` dropped.

    >>> sorted(words("Run npm run build:worker before the Deploys"))
    ['build', 'deploy', 'npm', 'run', 'worker']
    """
    found = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOP or len(word) < 2:
            continue
        found.add(word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word)
    return found


def score(query: set[str], row: SkillRecord) -> float:
    """Share of the best possible weight: every query word found in the name scores 1."""
    if not query:
        return 0.0
    fields = {"name": words(row.name), "trigger": words(row.trigger), "steps": words(" ".join(row.steps))}
    total = sum(max((weight for field, weight in _WEIGHTS if term in fields[field]), default=0.0) for term in query)
    return round(total / (3.0 * len(query)), 6)


class SkillRecall:
    """``service.learning.recall``: skills matched by a query, at a detail level."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def match(self, query: str, project: str | None = None, *, detail: str = "summary",
              limit: int = 5) -> tuple[SkillHit, ...]:
        """Live skills of ``project`` (all projects when None) the query's words match, best first."""
        check_choice("skill_detail", detail, SKILL_DETAILS)
        limit = check_count("limit", limit, 1, 100)
        wanted = words(query)
        with self.uow.read() as session:
            rows = learning_store.skill_records(session, project=project, statuses=RECALLED_STATUSES,
                                                limit=MAX_SCANNED)
        scored = [(score(wanted, row), row) for row in rows]
        ranked = sorted(((s, row) for s, row in scored if s > 0),
                        key=lambda item: (-item[0], item[1].status != "active", item[1].id))
        return tuple(_hit(row, s, detail) for s, row in ranked[:limit])


def _hit(row: SkillRecord, value: float, detail: str) -> SkillHit:
    if detail == "name_only":
        return SkillHit(row.id, row.name, row.status, value)
    summary = SkillHit(row.id, row.name, row.status, value, project=row.project, trigger=row.trigger,
                       step_count=len(row.steps), successes=row.successes, failures=row.failures)
    if detail == "summary":
        return summary
    return SkillHit(row.id, row.name, row.status, value, project=row.project, trigger=row.trigger,
                    step_count=len(row.steps), steps=row.steps, source_ids=row.source_ids,
                    version=row.version, successes=row.successes, failures=row.failures)


def wants(include: str) -> tuple[bool, bool]:
    """(memories, skills) that ``include`` asks for."""
    check_choice("include", include, INCLUDES)
    return include != "skills", include != "memories"

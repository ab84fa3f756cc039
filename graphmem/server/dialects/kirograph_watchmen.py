"""KiroGraph's Watchmen over graphmem's briefs: the count runs since the last ``kind: 'summary'``, a reset
stores that summary, and a synthesis writes the workspace brief and one file per skill.

graphmem's brief counter (``service.learning.briefs``) counts observations since its last reset. This
dialect resets it whenever a summary lands (``kirograph_mem_store(kind="summary")``, the reset tool, a
synthesis), in the same unit of work as the summary, so the count is KiroGraph's "since the last summary".
A synthesis stores a summary of what it wrote, as KiroGraph's workflow asks the agent to.

Skill files: every active or draft skill of the project is written to ``.kiro/skills/<slug>.md`` under the
project root (through :func:`graphmem.service.safe_files.write_confined`: no link is followed out of the
root). A file graphmem did not write (no marker on its first line) is left untouched and reported.
The brief lists each fact once: of two paraphrases (graphmem's duplicate detection) the newer stays, unless a
conflict relation joins them.
Skills come from graphmem's pattern detection: a ``pattern`` stored through this dialect drafts one once
three related observations exist (``service.learning.skills.learn``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from graphmem.errors import InvalidInput
from graphmem.server.common import tool_errors
from graphmem.server.dialects.unit import one_unit
from graphmem.server.models.learning import BriefOut, BriefStatusOut
from graphmem.service import MemoryService
from graphmem.service.learning.results import Skill
from graphmem.service.memories.results import StoreResult
from graphmem.service.safe_files import read_confined, write_confined

__all__ = ["SKILL_FOLDER", "WatchmenOut", "WatchmenStatusOut", "paraphrases", "reset", "skill_files", "status",
           "store_summary", "synthesize"]

SKILL_FOLDER = ".kiro/skills"
_MARKER = "<!-- graphmem:skill "  # the first line of every skill file graphmem writes
_CONFLICTS = frozenset({"conflicts_with", "contradicts"})


class WatchmenStatusOut(BriefStatusOut):
    skill_files: list[str]  # the skill files the next synthesis writes


class WatchmenOut(BriefOut):
    summary_id: str | None  # the kind: 'summary' observation the synthesis stored
    skill_files: list[str]  # written
    skipped_files: list[str]  # present but not graphmem's: left as they are


def _skills(service: MemoryService, project: str | None) -> list[Skill]:
    listed = [*service.learning.skills.list(project, "active").skills,
              *service.learning.skills.list(project, "draft").skills]
    return [s for s in listed if s.project == project]


def _path(service: MemoryService, skill: Skill) -> str:
    slug = service.suggest_topic_key("pattern", skill.name).split("/", 1)[-1] or skill.id
    return f"{SKILL_FOLDER}/{slug}.md"


def status(service: MemoryService, project: str | None) -> WatchmenStatusOut:
    with tool_errors():
        brief = service.learning.briefs.status(project)
        files = [_path(service, s) for s in _skills(service, project)]
    return WatchmenStatusOut(**BriefStatusOut.model_validate(brief).model_dump(), skill_files=files)


def store_summary(service: MemoryService, content: str, project: str | None) -> StoreResult:
    """Store a summary and restart the count from it, in one unit of work (a summary already stored
    restarts it too: the agent says the brief is written)."""
    with one_unit(service), tool_errors():
        stored = service.store(content, "summary", project, source="kirograph")
        service.learning.briefs.reset(project)
    return stored


def reset(service: MemoryService, project: str | None) -> WatchmenStatusOut:
    """KiroGraph's reset: a ``kind: 'summary'`` observation, so the count starts again."""
    with tool_errors():
        pending = service.learning.briefs.status(project).count
    store_summary(service, f"Watchmen counter reset after {pending} observations: the workspace brief of "
                           f"{project or 'the workspace'} was written by hand.", project)
    return status(service, project)


def _skill_text(skill: Skill) -> str:
    steps = "\n".join(f"{n}. {step}" for n, step in enumerate(skill.steps, start=1))
    state = "" if skill.status == "active" else " (draft: not yet reviewed)"
    return (f"{_MARKER}{skill.id} v{skill.version} -->\n# {skill.name}{state}\n\n{skill.trigger}.\n\n{steps}\n\n"
            f"Sources: {', '.join(skill.source_ids)}\n")


def skill_files(service: MemoryService, root: str, project: str | None) -> tuple[list[str], list[str]]:
    """Write one file per skill under ``root``; returns (written, skipped because not graphmem's)."""
    written, skipped = [], []
    with tool_errors():
        for skill in _skills(service, project):
            relative = _path(service, skill)
            if not _ours(root, relative):
                skipped.append(relative)
                continue
            write_confined(root, relative, _skill_text(skill))
            written.append(relative)
    return written, skipped


def _ours(root: str, relative: str) -> bool:
    """Whether a skill file may be (re)written: absent, or written by graphmem. A link, a FIFO or another
    odd file in its place is refused by ``read_confined`` and left alone like a user's own file."""
    try:
        text = read_confined(root, relative)
    except InvalidInput:
        return False
    return not text or text.startswith(_MARKER)


def paraphrases(service: MemoryService, project: str | None) -> set[str]:
    """The older memory of each paraphrase pair (graphmem's duplicate detection), for the brief to list each
    fact once. A pair joined by a conflict relation keeps both: an open disagreement belongs in the brief."""
    with tool_errors():
        pairs = service.learning.duplicates.find(project, limit=1_000).pairs
    if not pairs:
        return set()
    ids = {i for pair in pairs for i in (pair.left_id, pair.right_id)}
    memories = service.repository.memories_by_id(ids)
    disputed = {frozenset((r.source_id, r.target_id)) for r in service.repository.relations_touching(ids)
                if r.type in _CONFLICTS and r.status != "ignored"}
    older = set()
    for pair in pairs:
        left, right = memories.get(pair.left_id), memories.get(pair.right_id)
        if left is None or right is None or frozenset((left.id, right.id)) in disputed:
            continue
        older.add(min((left, right), key=lambda m: (m.created_at, m.id)).id)
    return older


def synthesize(service: MemoryService, project_path: str | None, project: str | None,
               force: bool, client_roots: Sequence[Path] = ()) -> WatchmenOut:
    """The brief between markers in the target files, one file per skill, then a summary of it all."""
    root = project_path or os.getcwd()
    with tool_errors():
        brief = BriefOut.model_validate(service.learning.briefs.synthesize(
            root, project, force=force, exclude=paraphrases(service, project), client_roots=client_roots))
    if brief.skipped:
        return WatchmenOut(**brief.model_dump(), summary_id=None, skill_files=[], skipped_files=[])
    written, skipped = skill_files(service, root, project)
    sections = sorted({line.section for line in brief.lines})
    summary = (f"Watchmen brief of {project or 'the workspace'}: {len(brief.lines)} lines "
               f"({', '.join(sections) or 'nothing yet'}) written to {', '.join(brief.written)}"
               + (f"; skill files: {', '.join(written)}" if written else "") + ".")
    summary_id = store_summary(service, summary, project).id
    with tool_errors():
        after = BriefStatusOut.model_validate(service.learning.briefs.status(project))
    return WatchmenOut(**brief.model_dump(exclude={"status"}), status=after, summary_id=summary_id,
                       skill_files=written, skipped_files=skipped)

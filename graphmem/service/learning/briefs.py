"""Project briefs (KiroGraph's watchmen): a counter of observations since the last brief, a status, an
extractive synthesis written between graphmem's markers into agent instruction files, and a reset.

Safety of the written files: the root is an existing directory the operator allows (brief_roots.py);
every target is a relative path to a
Markdown file (``.md``, ``.mdc``, ``.markdown``: a brief is Markdown, and no other kind of file, a shell
profile say, can be made to carry one) that must resolve inside that root; a target that is a symlink or
has other hard links is refused (writing through it would change a file outside the project or another
name of it), and so is a FIFO or a device, without opening it (a FIFO would block the read). Text outside
the markers is left byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from graphmem.errors import InvalidInput
from graphmem.service.clock import Clock
from graphmem.service.learning.brief_roots import allowed_brief_root
from graphmem.service.learning.results import BriefLine, BriefResult, BriefStatus
from graphmem.service.learning.skills import SkillService
from graphmem.service.safe_files import check_confined, read_confined, write_confined
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.service.validation import check_count, quote
from graphmem.store import learning_store, session_store
from graphmem.store.tables import BriefStateRow

__all__ = ["DEFAULT_TARGETS", "END_MARKER", "START_MARKER", "BriefService"]

DEFAULT_TARGETS = ("AGENTS.md", "CLAUDE.md", ".kiro/steering/workspace.md")
DEFAULT_THRESHOLD = 5  # KiroGraph's default
START_MARKER = "<!-- graphmem:brief:start -->"
END_MARKER = "<!-- graphmem:brief:end -->"
_MARKDOWN = (".md", ".mdc", ".markdown")
_SECTIONS = (("Decisions", ("decision",)), ("Known errors and fixes", ("error", "solution")),
             ("Recurring patterns", ("pattern",)), ("Architecture notes", ("architecture",)))
_PER_SECTION = 12


class BriefService:
    """Brief use cases (reached as ``service.learning.briefs``)."""

    def __init__(self, uow: UnitOfWork, clock: Clock, skills: SkillService) -> None:
        self.uow = uow
        self.clock = clock
        self.skills = skills

    def configure(self, project: str | None = None, threshold: int | None = None,
                  targets: Sequence[str] | None = None) -> BriefStatus:
        """Set the project's threshold and target files (relative paths)."""
        with self.uow.write() as write:
            state = self._state(write.session, project)
            if threshold is not None:
                state.threshold = check_count("threshold", threshold, 1, 100_000)
            if targets is not None:
                state.targets = [_relative(t) for t in targets]
            learning_store.save_brief_state(write.session, state)
            write.changed("briefs", [project or ""])
            return self._status(write.session, state, project)

    def status(self, project: str | None = None) -> BriefStatus:
        """Observations since the last brief, the threshold and the target files."""
        with self.uow.read() as session:
            return self._status(session, self._state(session, project), project)

    def reset(self, project: str | None = None) -> BriefStatus:
        """Set the counter to zero without synthesizing."""
        with self.uow.write() as write:
            state = self._state(write.session, project)
            state.last_seq = learning_store.latest_seq(write.session, project or "")
            state.last_brief_at = self.clock.now_ms()
            learning_store.save_brief_state(write.session, state)
            write.changed("briefs", [project or ""])
            return self._status(write.session, state, project)

    def synthesize(self, root: str | os.PathLike[str], project: str | None = None, *, force: bool = False,
                   exclude: Collection[str] = (), client_roots: Sequence[Path] = (),
                   named_by_operator: bool = False) -> BriefResult:
        """Write the brief into the target files under ``root`` (below the threshold only with ``force``);
        memories in ``exclude`` are left out (a dialect's paraphrase duplicates).

        ``root`` must lie in a folder the operator allows (brief_roots.py); ``client_roots`` are the roots
        the MCP client declared, and ``named_by_operator`` is the CLI's ``--root``.
        """
        base = allowed_brief_root(root, self.uow.settings, client_roots, named_by_operator=named_by_operator)
        status = self.status(project)
        if not status.ready and not force:
            return BriefResult(project, (), (), "", status, skipped=True,
                               message=f"{status.count} of {status.threshold} observations; use force to write now")
        lines = self.lines(project, exclude)
        markdown = render(lines, project)
        paths = [check_confined(base, _relative(target)) for target in status.targets]  # all, before any write
        texts = [_between_markers(read_confined(base, target), markdown) for target in status.targets]
        for target, text in zip(status.targets, texts, strict=True):
            write_confined(base, target, text)
        after = self.reset(project)
        return BriefResult(project, lines, tuple(str(p.relative_to(base)) for p in paths), markdown, after,
                           message=f"brief of {len(lines)} lines written to {len(paths)} file(s)")

    def lines(self, project: str | None, exclude: Collection[str] = ()) -> tuple[BriefLine, ...]:
        """The brief's lines: current memories by section (superseded ones are not visible, nor those in
        ``exclude``), then skills."""
        now = self.clock.now_ms()
        with self.uow.read() as session:
            current = session_store.recent_memories(session, project, 100_000, now)
        lines = []
        for section, kinds in _SECTIONS:
            chosen = [m for m in current if m.kind in kinds and m.status in ("active", "promoted")
                      and m.superseded_by is None and m.id not in exclude][:_PER_SECTION]
            lines += [BriefLine(section, m.id, " ".join(m.content.split())) for m in chosen]
        for skill in self.skills.list(project, "active").skills:
            lines.append(BriefLine("Active skills", skill.id, skill.summary()))
        return tuple(lines)

    def _state(self, session: object, project: str | None) -> BriefStateRow:
        state = learning_store.brief_state(session, project or "")  # type: ignore[arg-type]
        return state or BriefStateRow(project_key=project or "", threshold=DEFAULT_THRESHOLD,
                                      targets=list(DEFAULT_TARGETS))

    def _status(self, session: object, state: BriefStateRow, project: str | None) -> BriefStatus:
        count = learning_store.count_since(session, project or "", state.last_seq)  # type: ignore[arg-type]
        return BriefStatus(project, count, state.threshold, count >= state.threshold, tuple(state.targets))


def render(lines: Sequence[BriefLine], project: str | None) -> str:
    """The brief as markdown, one bullet per line ending with its memory id."""
    out = [f"## Project brief: {project or 'all projects'} (graphmem)"]
    for section in dict.fromkeys(line.section for line in lines):
        out += ["", f"### {section}"]
        out += [f"- {line.text} ({line.memory_id})" for line in lines if line.section == section]
    return "\n".join(out)


def _relative(target: str) -> str:
    if not isinstance(target, str) or not target.strip() or Path(target).is_absolute() or ".." in Path(target).parts:
        raise InvalidInput(f"target {quote(target)} must be a relative path inside the project root")
    if Path(target).suffix.lower() not in _MARKDOWN:
        raise InvalidInput(f"target {quote(target)} is not a Markdown file ({', '.join(_MARKDOWN)})")
    return target


def _between_markers(text: str, markdown: str) -> str:
    """The file's text with the brief block replaced (or appended); the write is ``write_confined``'s."""
    block = f"{START_MARKER}\n{markdown}\n{END_MARKER}"
    start, end = text.find(START_MARKER), text.find(END_MARKER)
    if start != -1 and end > start:
        updated = text[:start] + block + text[end + len(END_MARKER):]
    else:
        updated = text + ("\n\n" if text and not text.endswith("\n\n") else "") + block + "\n"
    return updated

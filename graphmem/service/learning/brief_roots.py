"""Which folders a brief may be written into: the ones the operator allowed, never one a client just names.

A brief carries stored memory text into files every later agent session reads (AGENTS.md, CLAUDE.md,
.kiro/steering/). An adversarial run set ``root`` to ``~/.claude`` and planted a line there for every
session to come. So a root an MCP client names must lie inside one of:

- the project's folder: the one holding the project store (``<project>/.graphmem/``), else the git
  work tree the server runs in;
- the roots the client declared through MCP's ``roots`` capability (the folders its user opened);
- ``lifecycle.brief_roots``, folders the operator lists.

Whatever the first two give, the home folder itself, the file system root and the global
agent-instruction folders (``~/.claude``, ``~/.codex``, …) are refused unless ``lifecycle.brief_roots``
names them: a session started anywhere below home reads ``~/CLAUDE.md``. The CLI's ``--root`` is the
operator's own choice and is not confined (``named_by_operator``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from graphmem.errors import InvalidInput
from graphmem.service.safe_files import check_path_text
from graphmem.service.validation import quote
from graphmem.settings import STORE_DIR, Settings, store_location

__all__ = ["GLOBAL_AGENT_FOLDERS", "allowed_brief_root", "file_roots", "project_root"]

GLOBAL_AGENT_FOLDERS = (".claude", ".codex", ".cursor", ".kiro", ".gemini", ".continue", ".aider", ".config",
                        ".windsurf", ".codeium", ".github")


def project_root(settings: Settings, cwd: Path | None = None) -> Path | None:
    """The project's folder: the parent of the project store's ``.graphmem/``, else the enclosing git tree."""
    location = store_location(settings)
    if location.path is not None and location.path.parent.name == STORE_DIR:
        return location.path.parent.parent.resolve()
    start = (cwd or Path.cwd()).resolve()
    return next((folder for folder in (start, *start.parents) if (folder / ".git").exists()), None)


def file_roots(uris: Sequence[str]) -> list[Path]:
    """The local folders of MCP ``roots`` (``file://`` URIs); other schemes name no folder here."""
    return [Path(unquote(parsed.path)) for parsed in map(urlparse, uris) if parsed.scheme == "file" and parsed.path]


def _global(path: Path) -> bool:
    home = Path.home().resolve()
    if path in (home, Path(path.anchor)) or home.is_relative_to(path):
        return True
    return path.is_relative_to(home) and path.relative_to(home).parts[:1] in [(name,) for name in GLOBAL_AGENT_FOLDERS]


def allowed_brief_root(root: str | os.PathLike[str], settings: Settings, client_roots: Sequence[Path] = (), *,
                       named_by_operator: bool = False) -> Path:
    """``root`` resolved, once it is an existing folder inside a root the operator allows; else why not."""
    text = check_path_text("root", os.fspath(root))
    try:
        base = Path(text).expanduser().resolve()
        is_dir = base.is_dir()
    except OSError as error:  # a name too long for the file system, a loop of links, no permission
        raise InvalidInput(f"root {quote(text)} cannot be used: {error.strerror or error}") from None
    if not is_dir:
        raise InvalidInput(f"root {quote(text)} is not an existing directory")
    if named_by_operator:
        return base
    operator = [Path(folder).expanduser().resolve() for folder in settings.lifecycle.brief_roots]
    if any(base.is_relative_to(folder) for folder in operator):
        return base
    project = project_root(settings)
    implicit = [folder.resolve() for folder in (*([project] if project else []), *client_roots)]
    if _global(base):
        raise InvalidInput(f"root {quote(str(base))} is the home folder, the file system root or a global "
                           "agent-instruction folder; a brief goes there only if lifecycle.brief_roots names it "
                           "(refused)")
    if not any(base.is_relative_to(folder) for folder in implicit if not _global(folder) or folder == base):
        shown = ", ".join(str(folder) for folder in implicit) or "none"
        raise InvalidInput(f"root {quote(str(base))} is outside the roots this server writes briefs into ({shown}): "
                           "the project's folder, the roots the client declared, or lifecycle.brief_roots (refused)")
    return base

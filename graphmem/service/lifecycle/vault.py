"""Promoted memories as Markdown notes in an Obsidian-style vault, confined to a configured folder.

Note paths are built from the vault root without resolving them: resolving follows a symlink, and a
symlinked note inside the vault (pointing at ``.obsidian/app.json``, say) would then be written through
as if it were the note. Every folder and note is checked with ``lstat`` instead (safe_files.py): any
symlink at a target, inside the vault or out of it, is refused before a single file is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from graphmem.core.values import Memory
from graphmem.errors import InvalidInput
from graphmem.service.safe_files import check_confined, check_path_text, relative_parts, write_confined
from graphmem.service.validation import quote

__all__ = ["note_path", "render_note", "vault_folder", "write_notes"]

_SLUG = re.compile(r"[^a-z0-9]+")
_LINK_UNSAFE = re.compile(r"[\[\]|#^]")


def vault_folder(vault_path: str | None, folder: str) -> tuple[Path, Path]:
    """The vault root (resolved: the operator named it) and the folder notes go to, below it, unresolved."""
    if not vault_path:
        raise InvalidInput("export to a vault needs lifecycle.vault_path (GRAPHMEM_LIFECYCLE__VAULT_PATH)")
    check_path_text("vault_path", vault_path)
    check_path_text("folder", folder)
    root = Path(vault_path).expanduser().resolve()
    if not root.is_dir():
        raise InvalidInput(f"vault {root} is not an existing directory")
    try:
        parts = relative_parts(folder)
    except InvalidInput as error:
        raise InvalidInput(f"vault folder {quote(folder)} would be outside the vault {root}: {error}") from None
    for depth in range(1, len(parts) + 1):
        try:
            linked = root.joinpath(*parts[:depth]).is_symlink()
        except OSError as error:  # a folder name too long for the file system
            raise InvalidInput(f"vault folder {quote(folder)} cannot be used: {error.strerror or error}") from None
        if linked:
            raise InvalidInput(f"{root.joinpath(*parts[:depth])} is a symbolic link, which may lead outside the vault; "
                               "graphmem does not write through links (refused)")
    return root, root.joinpath(*parts)


def note_path(root: Path, folder: Path, memory: Memory) -> Path:
    """``<folder>/<slug>-<id>.md``; refused if the note or a folder on its way is a symlink, a hard link
    or not a regular file (checked now, so a batch fails before its first write)."""
    source = memory.topic_key or " ".join(memory.content.split()[:6])
    slug = _SLUG.sub("-", source.casefold()).strip("-")[:60] or "memory"
    path = folder / f"{slug}-{memory.id}.md"
    return check_confined(root, path.relative_to(root))


def render_note(memory: Memory, concepts: Sequence[str], promoted_at: str) -> str:
    """Markdown with YAML frontmatter; values are JSON scalars and lists, which YAML reads verbatim."""
    front = {
        "id": memory.id, "kind": memory.kind, "project": memory.project, "topic_key": memory.topic_key,
        "tags": list(memory.tags), "created": memory.created_at.isoformat(), "promoted": promoted_at,
        "use_count": memory.use_count, "strength": round(memory.strength, 3), "source": memory.source,
        "graphmem": "promoted",
    }
    yaml = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in front.items()]
    lines = ["---", *yaml, "---", ""]
    words = memory.content.split()
    title = " ".join(words[:12]) + (" …" if len(words) > 12 else "")
    lines += [f"# {title}", ""]
    if len(words) > 12:  # a short memory is its own title; do not repeat it
        lines += [memory.content.strip(), ""]
    names = (_LINK_UNSAFE.sub(" ", name).strip() for name in concepts)
    links = [f"[[{name}]]" for name in names if name]
    if links:
        lines += ["## Concepts", "", " ".join(links), ""]
    return "\n".join(lines)


def write_notes(root: Path, notes: Sequence[tuple[Path, str]]) -> list[Path]:
    """Write every note or none, never through a link (safe_files); on a failure the notes already
    written are removed."""
    written: list[Path] = []
    try:
        for path, text in notes:
            written.append(write_confined(root, path.relative_to(root), text))
    except Exception:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return written

"""Promoted memories as Markdown notes in an Obsidian-style vault, confined to a configured folder.

Every target path is resolved (symlinks included) and must lie inside the vault root; anything that
resolves outside it is refused before a single file is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from graphmem.core.values import Memory
from graphmem.errors import InvalidInput
from graphmem.service.safe_files import check_path_text, write_confined

__all__ = ["note_path", "render_note", "vault_folder", "write_notes"]

_SLUG = re.compile(r"[^a-z0-9]+")
_LINK_UNSAFE = re.compile(r"[\[\]|#^]")


def vault_folder(vault_path: str | None, folder: str) -> tuple[Path, Path]:
    """The vault root and the folder notes go to, both resolved; refuse a folder outside the vault."""
    if not vault_path:
        raise InvalidInput("export to a vault needs lifecycle.vault_path (GRAPHMEM_LIFECYCLE__VAULT_PATH)")
    check_path_text("vault_path", vault_path)
    check_path_text("folder", folder)
    root = Path(vault_path).expanduser().resolve()
    if not root.is_dir():
        raise InvalidInput(f"vault {root} is not an existing directory")
    target = (root / folder).resolve()
    if Path(folder).is_absolute() or not target.is_relative_to(root):
        raise InvalidInput(f"vault folder {folder[:100]!r} resolves to {target}, outside the vault {root}; refused")
    return root, target


def note_path(root: Path, folder: Path, memory: Memory) -> Path:
    """``<folder>/<slug>-<id>.md``; refused if it resolves outside the vault (a symlinked note)."""
    source = memory.topic_key or " ".join(memory.content.split()[:6])
    slug = _SLUG.sub("-", source.casefold()).strip("-")[:60] or "memory"
    path = (folder / f"{slug}-{memory.id}.md").resolve()
    if not path.is_relative_to(root):
        raise InvalidInput(f"note {path} resolves outside the vault {root}; refused")
    return path


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

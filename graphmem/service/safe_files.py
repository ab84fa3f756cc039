"""Writing files under a root directory without ever following a link out of it.

Every file graphmem writes for the user (vault notes, brief files such as AGENTS.md) goes through
``write_confined``:
- a NUL byte anywhere, an absolute path or a ``..`` component is refused with a readable error;
- every directory between the root and the file is checked with ``lstat`` and must be a real
  directory inside the root (a symlinked folder is refused, not followed);
- an existing target that is a symlink, a hard link (``st_nlink > 1``: another name for a file that
  may live outside the root) or not a regular file is refused;
- the text goes to a fresh temporary file created with ``O_EXCL | O_NOFOLLOW`` beside the target and
  is renamed over it atomically. A rename replaces the directory entry and never writes through it,
  so even a link planted between the check and the rename cannot redirect the write.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path, PurePath

from graphmem.errors import InvalidInput, StorageError
from graphmem.service.validation import quote

__all__ = ["check_path_text", "write_confined"]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def check_path_text(name: str, value: str) -> str:
    """Refuse a NUL byte in a path (the OS would raise an unreadable ValueError)."""
    if "\x00" in value:
        raise InvalidInput(f"{name} must not contain a NUL (\\x00) character")
    return value


def write_confined(root: str | os.PathLike[str], relative_path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``root / relative_path``, creating folders; return the path written."""
    base = Path(check_path_text("root", os.fspath(root))).expanduser().resolve()
    parts = _relative_parts(os.fspath(relative_path))
    folder = base
    for part in parts[:-1]:
        folder = _real_directory(folder / part, base)
    target = folder / parts[-1]
    _refuse_link(target)
    temporary = folder / f".{parts[-1]}.{secrets.token_hex(6)}.tmp"
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, 0o644)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise StorageError(f"could not write {target}: {error.strerror or error}") from error
    return target


def _relative_parts(relative: str) -> tuple[str, ...]:
    check_path_text("path", relative)
    path = PurePath(relative)
    if path.is_absolute() or not path.parts:
        raise InvalidInput(f"path {quote(relative)} must be relative to the root")
    if any(part in {"..", ""} for part in path.parts):
        raise InvalidInput(f"path {quote(relative)} must not contain '..'")
    return tuple(part for part in path.parts if part != ".")


def _real_directory(path: Path, base: Path) -> Path:
    """An existing real directory (not a link), or a new one made here."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        try:
            path.mkdir(mode=0o755)
        except OSError as error:
            raise StorageError(f"could not create {path}: {error.strerror or error}") from error
        return path
    if stat.S_ISLNK(info.st_mode):
        raise InvalidInput(f"{path} is a symbolic link; graphmem does not write through links (refused)")
    if not stat.S_ISDIR(info.st_mode):
        raise InvalidInput(f"{path} exists and is not a directory")
    if not path.resolve().is_relative_to(base):
        raise InvalidInput(f"{path} resolves outside {base}; refused")
    return path


def _refuse_link(target: Path) -> None:
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise InvalidInput(f"{target} is a symbolic link; graphmem does not write through links (refused)")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"{target} exists and is not a regular file; refused")
    if info.st_nlink > 1:
        raise InvalidInput(f"{target} has {info.st_nlink} hard links (another name may be outside the "
                           "vault); refused")

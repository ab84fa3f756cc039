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

__all__ = ["check_confined", "check_path_text", "read_confined", "relative_parts", "write_confined"]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def check_path_text(name: str, value: str) -> str:
    """Refuse a NUL byte in a path (the OS would raise an unreadable ValueError)."""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a path given as text")
    if "\x00" in value:
        raise InvalidInput(f"{name} must not contain a NUL (\\x00) character: no file system accepts one in a path")
    return value


def check_confined(root: str | os.PathLike[str], relative_path: str | os.PathLike[str]) -> Path:
    """Every check ``write_confined`` makes, without creating or writing anything; the target's path.

    Used to refuse a whole batch (every brief target, every vault note) before the first file is written.
    """
    base = Path(check_path_text("root", os.fspath(root))).expanduser().resolve()
    parts = relative_parts(os.fspath(relative_path))
    folder = base
    for part in parts[:-1]:
        folder = folder / part
        if not _existing_directory(folder, base):
            return base.joinpath(*parts)  # a folder still to be made: nothing below it exists yet
    target = folder / parts[-1]
    _refuse_link(target)
    return target


def read_confined(root: str | os.PathLike[str], relative_path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of a confined regular file, ``""`` if it does not exist yet; never blocks.

    ``O_NONBLOCK`` keeps a FIFO planted as the target from hanging the call (opening one for reading
    waits for a writer), ``O_NOFOLLOW`` refuses a link planted after the check, and ``fstat`` on the
    descriptor checks the file actually opened.
    """
    target = check_confined(root, relative_path)
    try:
        descriptor = os.open(target, os.O_RDONLY | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return ""
    except OSError as error:
        raise InvalidInput(f"{target} cannot be read ({error.strerror or error}); refused") from error
    with os.fdopen(descriptor, "rb") as handle:
        kind = _file_kind(os.fstat(handle.fileno()).st_mode)
        if kind != "regular file":
            raise InvalidInput(f"{target} is a {kind}; graphmem reads and writes only regular files (refused)")
        try:
            return handle.read().decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidInput(f"{target} is not UTF-8 text (byte {error.start}); refused") from error


def write_confined(root: str | os.PathLike[str], relative_path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``root / relative_path``, creating folders; return the path written."""
    base = Path(check_path_text("root", os.fspath(root))).expanduser().resolve()
    parts = relative_parts(os.fspath(relative_path))
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


def relative_parts(relative: str) -> tuple[str, ...]:
    """The components of a path that must stay below its root: no NUL, not absolute, no ``..``."""
    check_path_text("path", relative)
    path = PurePath(relative)
    if path.is_absolute() or not path.parts:
        raise InvalidInput(f"path {quote(relative)} must be relative to the root (it is absolute or empty)")
    if any(part in {"..", ""} for part in path.parts):
        raise InvalidInput(f"path {quote(relative)} must not contain '..' (it would leave the root)")
    return tuple(part for part in path.parts if part != ".")


def _real_directory(path: Path, base: Path) -> Path:
    """An existing real directory (not a link), or a new one made here."""
    if not _existing_directory(path, base):
        try:
            path.mkdir(mode=0o755)
        except OSError as error:
            raise StorageError(f"could not create {path}: {error.strerror or error}") from error
    return path


def _existing_directory(path: Path, base: Path) -> bool:
    """``True`` for a real directory inside ``base``, ``False`` if nothing is there; refuse anything else."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as error:  # a name too long, a component that is a file
        raise InvalidInput(f"{quote(str(path))} cannot be used: {error.strerror or error}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InvalidInput(f"{path} is a symbolic link; graphmem does not write through links (refused)")
    if not stat.S_ISDIR(info.st_mode):
        raise InvalidInput(f"{path} exists and is a {_file_kind(info.st_mode)}, not a directory; refused")
    if not path.resolve().is_relative_to(base):
        raise InvalidInput(f"{path} resolves outside {base}; refused")
    return True


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISREG, "regular file"), (stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symbolic link"),
             (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
             (stat.S_ISBLK, "block device"))
    return next((name for test, name in kinds if test(mode)), "special file")


def _refuse_link(target: Path) -> None:
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return
    except OSError as error:
        raise InvalidInput(f"{quote(str(target))} cannot be used: {error.strerror or error}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InvalidInput(f"{target} is a symbolic link; graphmem does not write through links (refused)")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"{target} is a {_file_kind(info.st_mode)}; graphmem writes only regular files (refused)")
    if info.st_nlink > 1:
        raise InvalidInput(f"{target} has {info.st_nlink} hard links (another name may be outside the "
                           "vault); refused")

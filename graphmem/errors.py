"""One hierarchy of typed errors.

The service raises these; the MCP layer turns them into readable tool errors and the CLI into
a one-line message with exit code 2. Nothing below the service swallows them.
"""

from __future__ import annotations

__all__ = [
    "ConflictError",
    "GraphmemError",
    "InvalidInput",
    "NotFound",
    "StorageError",
    "StoreMissing",
]


class GraphmemError(Exception):
    """Base class of every error graphmem raises on purpose."""


class InvalidInput(GraphmemError, ValueError):
    """The caller sent something graphmem cannot accept; the message says what and how to fix it."""


class NotFound(GraphmemError, LookupError):
    """An id or topic key that names nothing in the store."""

    def __init__(self, what: str, missing: list[str] | str) -> None:
        self.missing = [missing] if isinstance(missing, str) else list(missing)
        shown = ", ".join(_cut(ref) for ref in self.missing[:_LISTED])
        more = f" and {len(self.missing) - _LISTED} more" if len(self.missing) > _LISTED else ""
        super().__init__(f"unknown {what}: {shown}{more}")


_SHOWN, _LISTED = 100, 10  # an unknown reference is quoted back this far, and this many of them


def _cut(ref: str) -> str:
    """A reference as an error quotes it: whole when short, else its head and its length (an id of
    100,000 characters must not come back whole in the error).

    >>> _cut("mem_0123")
    'mem_0123'
    >>> _cut("x" * 5_000).endswith("x… (5,000 characters)"), len(_cut("x" * 5_000))
    (True, 120)
    """
    ref = str(ref)
    return ref if len(ref) <= _SHOWN else f"{ref[:_SHOWN]}… ({len(ref):,} characters)"


class ConflictError(GraphmemError):
    """The request is valid but contradicts the current state (for example a judged relation)."""


class StorageError(GraphmemError):
    """The database refused an operation; the transaction was rolled back."""


class StoreMissing(StorageError):
    """The store named (or the project's) does not exist yet; the message names the command that creates it."""

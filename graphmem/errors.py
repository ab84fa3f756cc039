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
]


class GraphmemError(Exception):
    """Base class of every error graphmem raises on purpose."""


class InvalidInput(GraphmemError, ValueError):
    """The caller sent something graphmem cannot accept; the message says what and how to fix it."""


class NotFound(GraphmemError, LookupError):
    """An id or topic key that names nothing in the store."""

    def __init__(self, what: str, missing: list[str] | str) -> None:
        self.missing = [missing] if isinstance(missing, str) else list(missing)
        super().__init__(f"unknown {what}: {', '.join(self.missing)}")


class ConflictError(GraphmemError):
    """The request is valid but contradicts the current state (for example a judged relation)."""


class StorageError(GraphmemError):
    """The database refused an operation; the transaction was rolled back."""

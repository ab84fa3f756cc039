"""Resolving what callers name a memory by: its id, or a topic key (the newest current holder)."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.errors import NotFound
from graphmem.service.validation import check_ref
from graphmem.store.repository import Repository

__all__ = ["resolve"]


def resolve(repository: Repository, refs: Sequence[str], *, strict: bool = True) -> dict[str, str]:
    """Map ids or topic keys to memory ids; with ``strict`` an unknown reference raises NotFound."""
    refs = [check_ref("memory id or topic key", ref) for ref in refs]  # before any lookup
    known = repository.memories_by_id(refs)
    resolved = {ref: ref for ref in refs if ref in known}
    resolved.update(repository.ids_for_topic_keys([r for r in refs if r not in resolved]))
    missing = [r for r in refs if r not in resolved]
    if strict and missing:
        raise NotFound("memory id or topic key", missing)
    return resolved

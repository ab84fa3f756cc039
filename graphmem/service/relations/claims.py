"""Claims for conflict detection, parsed once per memory version and bounded in size.

Composition and the conflict scan compare memories' claims (graphmem.core.conflicts). Both used to
parse every candidate again on every call: on a store of 43 memories, 30 of them at the 50,000-character
maximum, one ``memory_associate`` in composition mode took 220 s in ``claim_texts``, and
``memory_scan_conflicts {}`` gave no answer within 150 s. Two bounds fix it:

- a process-wide cache keyed by memory id and content, so a memory is parsed once per version
  (a corrected memory has a new id, so no entry is ever stale); it holds at most ``CACHE_ENTRIES``
  claims and ``CACHE_CHARS`` characters, least recently used out first;
- only the first ``CLAIM_CHARS`` characters of a memory are read as its claims: a decision or a fix
  states its stance up front, and parsing 8,000 characters takes about 0.1 s where 50,000 took 1.5 s.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from graphmem.core.conflicts import ClaimText
from graphmem.core.values import Memory
from graphmem.store.convert import to_ms
from nlp import ConceptExtractor

__all__ = ["CACHE_CHARS", "CACHE_ENTRIES", "CLAIM_CHARS", "cached_claims"]

CLAIM_CHARS = 8_000
CACHE_ENTRIES = 2_048
CACHE_CHARS = 16_000_000  # with the concept offsets, about 100 MB at most

class _ClaimCache:
    """Least recently used claims, bounded by entries and characters; shared by every thread."""

    def __init__(self) -> None:
        self.entries: OrderedDict[tuple[str, int], ClaimText] = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()

    def get(self, keys: dict[str, tuple[str, int]]) -> dict[str, ClaimText]:
        with self.lock:
            found = {memory_id: self.entries[key] for memory_id, key in keys.items() if key in self.entries}
            for memory_id in found:
                self.entries.move_to_end(keys[memory_id])
        return found

    def put(self, key: tuple[str, int], claim: ClaimText) -> None:
        with self.lock:
            if key in self.entries:
                return
            self.entries[key] = claim
            self.chars += len(claim.text)
            while len(self.entries) > CACHE_ENTRIES or self.chars > CACHE_CHARS:
                _, dropped = self.entries.popitem(last=False)
                self.chars -= len(dropped.text)


_CACHE = _ClaimCache()


def cached_claims(extractor: ConceptExtractor, memories: Sequence[Memory]) -> dict[str, ClaimText]:
    """Each memory's claims, from the cache or parsed now (batched), at most ``CLAIM_CHARS`` of text each."""
    keys = {memory.id: (memory.id, hash(memory.content)) for memory in memories}
    found = _CACHE.get(keys)
    missing = [memory for memory in memories if memory.id not in found]
    if missing:
        parsed = extractor.parse_many([memory.content[:CLAIM_CHARS] for memory in missing])
        for memory, doc in zip(missing, parsed, strict=True):
            claim = ClaimText(id=memory.id, text=memory.content[:CLAIM_CHARS], created_ms=to_ms(memory.created_at),
                              concepts={c.key: c.start for c in doc.mentions},
                              kinds={c.key: c.kind for c in doc.mentions}, topic_key=memory.topic_key,
                              kind=memory.kind)
            found[memory.id] = claim
            _CACHE.put(keys[memory.id], claim)
    return found

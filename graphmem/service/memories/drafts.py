"""Validating observations at the boundary, and parsing them into the drafts the store inserts.

The observation (:class:`graphmem.core.values.Observation`) is the typed value that goes down; the draft adds
what this step settles (id, times, the dedupe hash, the parsed concepts) and the store builds the row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from graphmem.core.redaction import mask_placeholders
from graphmem.core.time import to_ms
from graphmem.core.values import OUTCOMES, Observation
from graphmem.errors import InvalidInput
from graphmem.ids import new_id
from graphmem.service.scrub import Scrubber
from graphmem.service.validation import check_choice, check_kind, check_text, normalize_content, parse_instant
from graphmem.settings import LimitSettings
from graphmem.store.drafts import MemoryDraft
from nlp import ConceptExtractor, ParsedObservation, normalize_key

__all__ = ["MAX_TASK_TYPE_CHARS", "MAX_TOOLS", "MAX_TOOL_CHARS", "Observation", "build_drafts",
           "validate_observation"]

# Kyew's learn fields: a task type is a short label ("deploy", "debugging"), tools are short names.
MAX_TASK_TYPE_CHARS = 100
MAX_TOOLS = 30
MAX_TOOL_CHARS = 100

# Co-occurrence evidence is recorded among an observation's six most salient concepts that share a
# sentence: all pairs of a 40-concept passage would add 780 edges of mostly noise, and generating
# them dominated bulk-import time (16 s of 28 s for 2,500 observations when profiled).
_COOCCURRENCE_TOP = 6


def validate_observation(limits: LimitSettings, *, content: Any, kind: str = "note", project: Any = None,
                         topic_key: Any = None, tags: Any = None, entities: Any = None,
                         source: Any = None, context: Any = None, meta: Any = None, session_id: Any = None,
                         review_after: Any = None, valid_from: Any = None, created_at: Any = None,
                         parent_id: Any = None, outcome: Any = None, task_type: Any = None,
                         tools_used: Any = None) -> Observation:
    """Check every field at the boundary; raise InvalidInput naming the first bad one.

    Every text field loses its ``<private>`` blocks and secrets before anything parses it.
    """
    scrub = Scrubber()
    text = scrub.text("content", content, limits.max_content_chars, required=True) or ""
    return Observation(
        content=text, kind=check_kind(kind),
        project=scrub.text("project", project, 200),
        topic_key=scrub.text("topic_key", topic_key, 300),
        tags=scrub.strings("tags", tags, limits.max_tags, limits.max_tag_chars),
        entities=scrub.strings("entities", entities, limits.max_entities, 200),
        source=scrub.text("source", source, limits.max_source_chars),
        context=scrub.text("context", context, limits.max_context_chars),
        meta=scrub.meta("meta", meta), session_id=check_text("session_id", session_id, 200) or None,
        review_after=parse_instant("review_after", review_after),
        valid_from=parse_instant("valid_from", valid_from),
        created_at=parse_instant("created_at", created_at),
        parent_id=check_text("parent_id", parent_id, 200) or None,
        outcome=_outcome(outcome), task_type=scrub.text("task_type", task_type, MAX_TASK_TYPE_CHARS),
        tools_used=scrub.strings("tools_used", tools_used, MAX_TOOLS, MAX_TOOL_CHARS),
        redacted=scrub.redacted,
    )


def _outcome(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"outcome must be one of: {', '.join(OUTCOMES)}")
    return check_choice("outcome", value.strip().lower(), OUTCOMES)


def build_drafts(extractor: ConceptExtractor, observations: Sequence[Observation]) -> list[MemoryDraft]:
    """Parse every observation once (batched through spaCy) and build its insert draft."""
    # Placeholders are blanked (same length, spans stay valid) so they never become concepts.
    parsed = extractor.parse_many([mask_placeholders(obs.content) for obs in observations])
    now = datetime.now(UTC)
    return [_draft(obs, doc, now) for obs, doc in zip(observations, parsed, strict=True)]


def _draft(obs: Observation, doc: ParsedObservation, now: datetime) -> MemoryDraft:
    created = obs.created_at or now
    mentions = {m.key: (m.key, m.kind, m.weight, m.count) for m in doc.mentions if m.key}
    for entity in obs.entities:
        key = normalize_key(mask_placeholders(entity))
        if key:
            mentions.setdefault(key, (key, "entity", 1.0, 1))
    return MemoryDraft(
        observation=obs, id=obs.id or new_id("mem", at_ms=to_ms(created) if obs.created_at else None),
        created_at=created, valid_from=obs.valid_from or created,
        content_hash=hashlib.sha256(normalize_content(obs.content).encode()).hexdigest(),
        mentions=tuple(mentions.values()), cooccurrences=_salient_pairs(doc))


def _salient_pairs(doc: ParsedObservation) -> tuple[tuple[str, str, int], ...]:
    ranked = sorted((m for m in doc.mentions if m.kind != "part"), key=lambda m: (-m.weight, m.start))
    top = ranked[:_COOCCURRENCE_TOP]
    return tuple((min(a.key, b.key), max(a.key, b.key), 1)
                 for i, a in enumerate(top) for b in top[i + 1 :]
                 if a.sentence == b.sentence and a.key != b.key and b.key not in a.parts and a.key not in b.parts)

"""Output models of the temporal fact tools."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import field_serializer

from graphmem.server.models.base import Out, optional

__all__ = ["FactListOut", "FactOut", "FactResultOut"]


class FactOut(Out):
    id: str
    subject: str
    predicate: str
    object: str
    confidence: float
    valid_from: datetime
    created_at: datetime
    valid_to: datetime | None = optional()
    superseded_by: str | None = optional()
    reason: str | None = optional()
    source_id: str | None = optional()
    meta: dict[str, Any] = optional({})

    @field_serializer("valid_from", "created_at", "valid_to")
    def _iso(self, value: datetime | None) -> str | None:
        return None if value is None else value.isoformat()


class FactResultOut(Out):
    fact: FactOut
    closed: list[FactOut]
    duplicate: bool
    message: str


class FactListOut(Out):
    facts: list[FactOut]
    as_of: str | None = optional()
    subject: str | None = optional()

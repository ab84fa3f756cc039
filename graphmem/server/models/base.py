"""The base of every output model: reads the service's dataclasses once, leaves empty optional fields out."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Out", "absent", "iso", "optional"]


class Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


def absent(value: object) -> bool:
    return value is None or value in ([], {}, "")


def optional(default: Any = None, description: str | None = None) -> Any:
    """A field that is left out of the result when it is empty (the schema still lists it)."""
    return Field(default, exclude_if=absent, description=description)


def iso(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()

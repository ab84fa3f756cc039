"""MCP parameters for Kyew's learn fields: set on memory_store, filters on search, associate and export."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

__all__ = ["OutcomeFilter", "OutcomeValue", "TaskTypeFilter", "TaskTypeValue", "ToolsFilter", "ToolsValue"]

Outcome = Literal["success", "failure", "partial", "unknown"]
OutcomeValue = Annotated[Outcome | None, Field(description=(
    "How the work it records turned out (success, failure, partial, unknown)"))]
TaskTypeValue = Annotated[str | None, Field(max_length=100, description=(
    "The kind of task it came from, a short label (deploy, debugging, review)"))]
ToolsValue = Annotated[list[str], Field(max_length=30, description=(
    "Tools used in that task (git, kubectl, pytest)"))]
OutcomeFilter = Annotated[Outcome | None, Field(description="Only memories with this outcome")]
TaskTypeFilter = Annotated[str | None, Field(max_length=100, description="Only memories of this task type")]
ToolsFilter = Annotated[list[str] | None, Field(max_length=30, description=(
    "Only memories whose tools_used include all of these"))]

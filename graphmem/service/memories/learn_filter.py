"""The filter over Kyew's learn fields (outcome, task type, tools used), validated at the boundary."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.core.values import OUTCOMES
from graphmem.service.memories.drafts import MAX_TASK_TYPE_CHARS, MAX_TOOL_CHARS, MAX_TOOLS
from graphmem.service.validation import check_choice, check_strings, check_text
from graphmem.store.visibility import VisibilityFilter

__all__ = ["LearnFilter"]


@dataclass(frozen=True, slots=True)
class LearnFilter:
    """Only memories with this outcome, this task type, and every one of these tools (None: any)."""

    outcome: str | None = None
    task_type: str | None = None
    tools_used: Sequence[str] | None = None

    def narrow(self, view: VisibilityFilter) -> VisibilityFilter:
        """``view`` restricted to the memories this filter admits; raises InvalidInput on a bad value."""
        outcome = None if self.outcome is None else check_choice("outcome", self.outcome, OUTCOMES)
        task_type = check_text("task_type", self.task_type, MAX_TASK_TYPE_CHARS)
        tools = check_strings("tools_used", self.tools_used, MAX_TOOLS, MAX_TOOL_CHARS)
        return dataclasses.replace(view, outcomes=(outcome,) if outcome else (),
                                   task_types=(task_type.strip(),) if task_type and task_type.strip() else (),
                                   tools=tools)

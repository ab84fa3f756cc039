"""Tool profiles: which tools a server exposes.

An agent pays for every tool definition on every turn, so ``core`` (the default) holds the six tools
of an agent's every turn; ``full`` holds every tool, one intent each. The dialects expose a seed
system's own tool names and parameters over graphmem's engine (``graphmem.server.dialects``).
Admin jobs (gc, prune, lint --fix, bulk import) are CLI commands, in no profile.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal, cast

from mcp_types import ToolAnnotations

from graphmem.server import export, facts, learning, lifecycle, maintenance, memories, recall, relations, sessions

__all__ = ["CORE", "PLANNED", "PROFILES", "ProfileName", "hidden_parameters", "resources_of", "tools_of"]

ToolTable = Mapping[str, tuple[Callable[..., Any], ToolAnnotations]]
ProfileName = Literal["core", "full", "kirograph", "kyew", "cortexgraph", "tam", "reference"]

CORE = ("memory_store", "memory_search", "memory_associate", "memory_open", "memory_correct", "memory_forget")
# mypy joins a table's differently-typed tool functions into builtins.function, which is not a Callable:
# every entry is a (tool function, annotations) pair, so each table is a ToolTable.
_FEATURES = cast(tuple[ToolTable, ...], (memories.TOOLS, recall.TOOLS, relations.TOOLS, facts.TOOLS, lifecycle.TOOLS,
                                         sessions.TOOLS, export.TOOLS, maintenance.TOOLS, learning.TOOLS))
FULL: dict[str, tuple[Callable[..., Any], ToolAnnotations]] = {
    name: entry for table in _FEATURES for name, entry in table.items()}

_DIALECTS = ("kyew", "tam", "reference", "cortexgraph", "kirograph")


def _dialect(name: str) -> Any:
    """The dialect's module (``graphmem.server.dialects.<name>``), imported when its profile is asked for:
    a server of graphmem's own tools never loads the five seed dialects (docs/benchmarks.md, issue 22)."""
    return importlib.import_module(f"graphmem.server.dialects.{name}")


class _Profiles(Mapping[str, ToolTable]):
    """Every profile by name; a dialect's table is read from its module on first use."""

    def __init__(self, own: Mapping[str, ToolTable]) -> None:
        self._own = own

    def __getitem__(self, name: str) -> ToolTable:
        if name in self._own:
            return self._own[name]
        if name in _DIALECTS:
            return cast(ToolTable, _dialect(name).TOOLS)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter((*self._own, *_DIALECTS))

    def __len__(self) -> int:
        return len(self._own) + len(_DIALECTS)


PROFILES: Mapping[str, ToolTable] = _Profiles({"core": {name: FULL[name] for name in CORE}, "full": FULL})
# Named in the settings and the CLI, not built yet: asking for one is a clear error, never an empty server.
PLANNED: tuple[str, ...] = ()


# The core profile lists these optional parameters of its tools only in `full`: Kyew's learn fields and skills
# in recall are for agents that use them, and each costs every agent bytes on every turn (tools/list ≤ 12 KB).
# (``skills`` is the result field only ``include`` fills.)
_LEARN_FILTERS = frozenset({"outcome", "task_type", "tools_used", "include", "skill_detail", "skills"})
_CORE_HIDDEN: dict[str, frozenset[str]] = {
    "memory_store": frozenset({"outcome", "task_type", "tools_used"}),
    "memory_search": _LEARN_FILTERS,
    "memory_associate": _LEARN_FILTERS,
}


def hidden_parameters(profile: str) -> dict[str, frozenset[str]]:
    """The optional parameters a profile's tools/list leaves out, by tool (they keep their defaults)."""
    return _CORE_HIDDEN if profile == "core" else {}


# A dialect's own resources, beside graphmem's: each registrar takes the server and the live service, and
# returns the URIs a write changes (their subscribers are told, as the seed server tells them).
ResourceRegistrar = Callable[[Any, Callable[[], Any]], tuple[str, ...]]
_RESOURCES: dict[str, tuple[str, ...]] = {"reference": ("register_resources",)}  # registrars in the dialect


def resources_of(profile: str) -> tuple[ResourceRegistrar, ...]:
    """The seed resources a profile adds (the reference server's ``memory://knowledge-graph``)."""
    return tuple(getattr(_dialect(profile), name) for name in _RESOURCES.get(profile, ()))


def tools_of(profile: str) -> ToolTable:
    """The tool table of a profile; an unknown name is a readable error."""
    if profile in PLANNED:
        raise ValueError(f"tool profile {profile!r} is not available yet; available: {', '.join(PROFILES)}")
    if profile not in PROFILES:
        raise ValueError(f"unknown tool profile {profile!r}; choose one of: {', '.join(PROFILES)}")
    return PROFILES[profile]

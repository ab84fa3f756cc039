"""The import structure ``docs/architecture.md`` draws, checked over the source's ``ast`` (in the spirit of
import-linter, with no dependency): layers import downwards only, the service's feature packages form a
one-way stack, and no module imports itself back through others.

Imports under ``if TYPE_CHECKING:`` count: a circle kept for the type checker is still a circle a reader
has to follow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Bottom first: a feature may import the features below it, never one above it (docs/architecture.md).
FEATURE_STACK = ("memories", "relations", "recall", "lifecycle", "sessions", "learning", "export", "maintenance")
# The service's shared modules, below every feature: they import no feature.
SHARED = ("unit_of_work", "idle_follower", "validation", "clock", "scrub", "safe_files", "metrics", "cancellation")
# The top of the service floor: the facade and composition root, and the package that exports it.
ROOTS = ("memory_service", "__init__")

# Each layer and the graphmem layers it must never import (graphmem.errors, ids and settings are for all).
FORBIDDEN = {
    "nlp": ("graphmem",),
    "graphmem.core": ("graphmem.store", "graphmem.service", "graphmem.server", "graphmem.cli"),
    "graphmem.store": ("graphmem.service", "graphmem.server", "graphmem.cli"),
    "graphmem.service": ("graphmem.server", "graphmem.cli"),
    "graphmem.server": ("graphmem.cli",),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    files = [*sorted((ROOT / "graphmem").rglob("*.py")), *sorted((ROOT / "nlp").rglob("*.py"))]
    return {_module_name(path): path for path in files}


def _imports(path: Path) -> Iterator[str]:
    """Every absolute module name ``path`` imports: ``from a.b import c`` is ``a.b.c`` when that is a module
    (a package handing out one of its modules), else ``a.b``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                yield submodule if submodule in SOURCES else node.module


SOURCES = _sources()
GRAPH = {name: sorted({i for i in _imports(path) if i in SOURCES and i != name}) for name, path in SOURCES.items()}


def _service_part(module: str) -> str | None:
    """``graphmem.service.recall.engine`` → ``recall``; None outside the service floor."""
    parts = module.split(".")
    if parts[:2] != ["graphmem", "service"]:
        return None
    return parts[2] if len(parts) > 2 else "__init__"


def _allowed(part: str, other: str) -> bool:
    """Whether service part ``part`` may import ``other``: features only downwards; shared modules each
    other (the circle test keeps them one way) but no feature; the roots anything."""
    if part in ROOTS or other == part:
        return True
    if part in SHARED:
        return other in SHARED
    return other in SHARED or (other in FEATURE_STACK and FEATURE_STACK.index(other) < FEATURE_STACK.index(part))


def test_every_service_package_has_a_place_in_the_stack() -> None:
    parts = {_service_part(name) for name in SOURCES} - {None}
    assert parts <= {*FEATURE_STACK, *SHARED, *ROOTS}, "add the new package to FEATURE_STACK or SHARED"


def test_service_features_import_only_downwards() -> None:
    against = []
    for module, imported in GRAPH.items():
        part = _service_part(module)
        if part is None:
            continue
        for target in imported:
            other = _service_part(target)
            if other is not None and not _allowed(part, other):
                against.append(f"{module} imports {target} ({part} is not above {other})")
    assert against == []


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_downwards(layer: str) -> None:
    upward = [f"{module} imports {target}" for module, imported in GRAPH.items()
              if module == layer or module.startswith(layer + ".")
              for target in imported if target.startswith(FORBIDDEN[layer])]
    assert upward == []


def _circle_through(start: str) -> list[str] | None:
    """A path of imports from ``start`` back to itself, or None (depth first, each module once)."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        module, path = stack.pop()
        for target in GRAPH.get(module, ()):
            if target == start:
                return [*path, start]
            if target not in seen and target.startswith("graphmem.service"):
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


def test_no_service_module_imports_itself_back() -> None:
    circles = [" → ".join(found) for module in GRAPH if module.startswith("graphmem.service.")
               if (found := _circle_through(module)) is not None]
    assert circles == []


def test_the_checks_see_a_circle() -> None:
    """The circle finder itself: a made-up pair that imports each other is found."""
    GRAPH["graphmem.service.example_a"] = ["graphmem.service.example_b"]
    GRAPH["graphmem.service.example_b"] = ["graphmem.service.example_a"]
    try:
        assert _circle_through("graphmem.service.example_a") == [
            "graphmem.service.example_a", "graphmem.service.example_b", "graphmem.service.example_a"]
    finally:
        del GRAPH["graphmem.service.example_a"], GRAPH["graphmem.service.example_b"]


def _tree_rows() -> dict[str, list[str]]:
    """The feature tree of docs/architecture.md: feature → the adapter modules its row (and continuation) names."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = page.split("graphmem/service/                     graphmem/server/              graphmem/cli/\n", 1)[1]
    tree = tree.split("```", 1)[0]
    rows: dict[str, list[str]] = {}
    feature = ""
    for line in tree.splitlines():
        named = [word.strip("─ ,") for word in line.split() if word.strip("─ ,").endswith(".py")]
        head = line.lstrip("├└│─ ").split("/", 1)[0]
        if line[:1] in "├└" and head:
            feature = head
        rows.setdefault(feature, []).extend(named)
    return rows


def test_the_architecture_tree_names_every_feature_with_its_server_and_cli_modules() -> None:
    rows = _tree_rows()
    assert tuple(sorted(rows)) == tuple(sorted(FEATURE_STACK))
    cli = {path.stem for path in (ROOT / "graphmem" / "cli").glob("*.py")} - {"__init__", "__main__", "app"}
    named_cli = set()
    for feature, modules in rows.items():
        *server, cli_module = modules
        assert server and cli_module == f"{feature}.py", (feature, modules)  # the CLI module is the feature's name
        assert all((ROOT / "graphmem" / "server" / module).is_file() for module in server), (feature, server)
        named_cli.add(cli_module.removesuffix(".py"))
    assert cli - named_cli == {"start", "hooks"}  # the two shell-only modules, outside any feature

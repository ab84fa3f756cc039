"""Read the tool-call examples of README.md and docs/*.md, and compare a shown result with a real one.

The convention (``tests/test_doc_tool_calls.py`` runs it) in short:

- A ``json`` block whose first value is a call, ``{"tool": NAME, "arguments": {...}}`` (``"name"`` is accepted
  for ``"tool"``, as in ``tools/call``), is a tool-call block. Each call may be followed by the result it
  returns (a JSON value), or by the text of the tool error it answers (the lines up to the next call). A call
  with neither must just succeed. Other ``json`` blocks (client configuration, result fragments) are shown, not
  run.
- A page's calls run in order, against one fresh store, through a real MCP client session with the tools of the
  page's profile: ``core`` (the default profile) for README.md, ``full`` for docs/. ``<!-- doccheck: profile
  NAME -->`` right before a block runs that block's calls with profile ``NAME`` (on the same store).
- A shown result is a trimmed result. An object shows some of the keys of the real one; a list shows every item,
  or, with a ``"…"`` item, some of them in order. ``…`` outside a string stands for more keys or items, ``"…"``
  for any value, and ``…`` inside a string for any text. An integer, a string, ``true``, ``false`` and ``null``
  must be equal; a float stands for any number (scores move with the store and the clock), a timestamp for any
  timestamp. An id (``mem_``, ``rel_``, ``fact_``, ``ses_``, ``prm_``, ``skill_`` and 20 characters) matches the
  id returned in its place, the same one wherever the page shows it, and a later call's arguments get the real id.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.doc_console import ELLIPSIS, ID, TIMESTAMP

__all__ = ["Bindings", "Call", "ToolBlock", "matches", "parse_page", "tool_blocks"]

_FENCE = re.compile(r"^```json[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_PROFILE = re.compile(r"<!--\s*doccheck:\s*profile\s+(\S+)\s*-->\s*$")
_CALL_START = re.compile(r'^\s*\{\s*"(?:tool|name)"\s*:', re.MULTILINE)


@dataclass(frozen=True)
class Call:
    """One call of a block: the tool, its arguments, and the result or error text shown under it."""

    line: int
    tool: str
    arguments: dict[str, Any]
    result: Any = None
    error: str | None = None
    shows_result: bool = False


@dataclass(frozen=True)
class ToolBlock:
    page: str
    line: int
    profile: str
    calls: tuple[Call, ...]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def tolerant_json(text: str) -> str:
    """``text`` with every ``…`` outside a string made JSON: ``"…": "…"`` in an object, ``"…"`` in a list."""
    out: list[str] = []
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (char == "\\" and not escaped), not (char == '"' and not escaped)
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
        elif char == ELLIPSIS:
            out.append('"…": "…"' if stack and stack[-1] == "{" else '"…"')
            continue
        out.append(char)
    return "".join(out)


def _values(body: str, first_line: int, page: str) -> list[tuple[int, Any, str | None]]:
    """(line, JSON value, None) or (line, None, error text) for each item of a block."""
    text = tolerant_json(body)
    decoder = json.JSONDecoder()
    items: list[tuple[int, Any, str | None]] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return items
        line = first_line + text.count("\n", 0, position)
        if text[position] in '{["':
            try:
                value, position = decoder.raw_decode(text, position)
            except json.JSONDecodeError as error:
                raise ValueError(f"{page}:{line}: not JSON: {error}") from None
            items.append((line, value, None))
            continue
        following = _CALL_START.search(text, position)
        end = following.start() if following else len(text)
        error = text[position:end].replace(f'"{ELLIPSIS}"', ELLIPSIS)  # tolerant_json quoted a bare …
        items.append((line, None, " ".join(error.split())))
        position = end


def _is_call(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) in ({"tool", "arguments"}, {"name", "arguments"})
            and isinstance(value["arguments"], dict))


def _calls(items: list[tuple[int, Any, str | None]], where: str) -> tuple[Call, ...]:
    calls: list[Call] = []
    for line, value, error in items:
        if value is not None and _is_call(value):
            calls.append(Call(line, value.get("tool") or value["name"], value["arguments"]))
        elif not calls:
            raise ValueError(f"{where}: a result before any call")
        elif calls[-1].shows_result:
            raise ValueError(f"{where}:{line}: a second result under one call")
        else:
            last = calls[-1]
            calls[-1] = Call(last.line, last.tool, last.arguments, value, error, True)
    return tuple(calls)


def parse_page(name: str, text: str, profile: str) -> list[ToolBlock]:
    """The tool-call blocks of a page (see the module docstring)."""
    blocks = []
    for fence in _FENCE.finditer(text):
        body = fence.group(1)
        line = text.count("\n", 0, fence.start()) + 1
        if not _CALL_START.match(body):
            if '"arguments"' in body or re.match(r"\s*\w+\(", body):  # a call the suite could not run
                raise ValueError(f"{name}:{line}: write a tool call as {{\"tool\": ..., \"arguments\": ...}} "
                                 "at the start of its block")
            continue
        directive = _PROFILE.search(text[:fence.start()].rstrip("\n").rsplit("\n", 1)[-1])
        calls = _calls(_values(body, line + 1, name), f"{name}:{line}")
        blocks.append(ToolBlock(name, line, directive.group(1) if directive else profile, calls))
    return blocks


def tool_blocks(root: Path) -> list[ToolBlock]:
    """Every tool-call block of README.md (profile ``core``) and docs/*.md (profile ``full``)."""
    pages = [(root / "README.md", "core"), *((page, "full") for page in sorted((root / "docs").glob("*.md")))]
    return [block for page, profile in pages
            for block in parse_page(page.name, page.read_text(encoding="utf-8"), profile)]


@dataclass
class Bindings:
    """Shown id → the real one, over one page."""

    shown: dict[str, str] = field(default_factory=dict)

    def substitute(self, value: Any) -> Any:
        """``value`` (call arguments) with every shown id replaced by the real one."""
        if isinstance(value, dict):
            return {key: self.substitute(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.substitute(item) for item in value]
        if isinstance(value, str):
            return ID.sub(lambda found: self._real(found.group(0)), value)
        return value

    def _real(self, shown: str) -> str:
        if shown not in self.shown:
            raise KeyError(f"the call uses {shown}, which no result above it shows")
        return self.shown[shown]

    def bind(self, shown: str, real: str) -> bool:
        if shown in self.shown:
            return self.shown[shown] == real
        if real in self.shown.values():
            return False
        self.shown[shown] = real
        return True


def _text_pattern(shown: str) -> tuple[re.Pattern[str], list[str]]:
    ids: list[str] = []
    parts: list[str] = []
    for piece in re.split(f"({ELLIPSIS}|{ID.pattern})", shown):
        if piece == ELLIPSIS:
            parts.append(".*")
        elif ID.fullmatch(piece):
            ids.append(piece)
            parts.append(f"({ID.pattern})")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts), re.DOTALL), ids


def match_text(shown: str, real: str, bindings: Bindings) -> bool:
    if TIMESTAMP.fullmatch(shown):
        return TIMESTAMP.fullmatch(real) is not None
    pattern, ids = _text_pattern(shown)
    found = pattern.fullmatch(real)
    return found is not None and all(bindings.bind(shown_id, real_id)
                                     for shown_id, real_id in zip(ids, found.groups(), strict=True))


def matches(shown: Any, real: Any, bindings: Bindings, path: str = "") -> list[str]:
    """Where ``real`` differs from the trimmed ``shown`` (empty when it matches), binding ids on the way."""
    if shown == ELLIPSIS:
        return []
    if isinstance(shown, dict):
        return _match_object(shown, real, bindings, path)
    if isinstance(shown, list):
        return _match_list(shown, real, bindings, path)
    if isinstance(shown, str):
        same = isinstance(real, str) and match_text(shown, real, bindings)
    elif isinstance(shown, float):  # a score or a duration: any number
        same = isinstance(real, int | float) and not isinstance(real, bool)
    elif isinstance(shown, bool) or shown is None:
        same = real is shown
    else:
        same = type(real) is int and real == shown
    return [] if same else [f"{path or 'result'}: shown {shown!r}, got {real!r}"[:300]]


def _match_object(shown: dict[str, Any], real: Any, bindings: Bindings, path: str) -> list[str]:
    if not isinstance(real, dict):
        return [f"{path or 'result'}: shown an object, got {real!r}"[:300]]
    problems = []
    for key, item in shown.items():  # in the page's order, so an id shown as a key was bound before
        real_key = bindings.shown.get(key, key)
        if key == ELLIPSIS:
            continue
        problems += (matches(item, real[real_key], bindings, f"{path}.{key}") if real_key in real
                     else [f"{path}.{key}: missing"])
    return problems


def _match_list(shown: list[Any], real: Any, bindings: Bindings, path: str) -> list[str]:
    if not isinstance(real, list):
        return [f"{path}: shown a list, got {real!r}"[:300]]
    items = [item for item in shown if item != ELLIPSIS]
    if len(items) == len(shown):
        if len(real) != len(shown):
            return [f"{path}: shown {len(shown)} items, got {len(real)}"]
        return [problem for index, (item, got) in enumerate(zip(shown, real, strict=True))
                for problem in matches(item, got, bindings, f"{path}[{index}]")]
    start = 0
    for item in items:  # each shown item matches a later real one, in order
        for index in range(start, len(real)):
            trial = Bindings(dict(bindings.shown))
            if not matches(item, real[index], trial):
                bindings.shown, start = trial.shown, index + 1
                break
        else:
            return [f"{path}: no item after [{start - 1}] matches {json.dumps(item, ensure_ascii=False)[:200]}"]
    return []

"""One pass over every user-supplied text before it is parsed or stored: private blocks, then secrets.

``Scrubber`` is used once per request. Each method checks a field's bounds (on what the caller
sent), removes ``<private>`` blocks (graphmem.core.private_tags), replaces credential shapes by
typed placeholders (graphmem.core.redaction) and counts what it replaced, so the result can say
what was redacted without ever holding the value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from graphmem.core.redaction import redact
from graphmem.errors import InvalidInput
from graphmem.service.validation import check_meta, check_strings, check_text, strip_private

__all__ = ["Scrubber", "scrub_meta", "scrub_text"]


class Scrubber:
    """Cleans fields of one request and tallies the redactions."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    @property
    def redacted(self) -> dict[str, int]:
        """Kind → number of secrets replaced across every field scrubbed so far."""
        return dict(sorted(self._counts.items()))

    def clean(self, value: str) -> str:
        """Private blocks out, secrets replaced; the text is otherwise unchanged."""
        redaction = redact(strip_private(value))
        self._counts.update(redaction.counts)
        return redaction.text

    def text(self, name: str, value: Any, max_chars: int, *, required: bool = False) -> str | None:
        """A bounded text field, cleaned and stripped; ``None`` when nothing is left of an optional one."""
        checked = check_text(name, value, max_chars, required=required)
        if checked is None:
            return None
        cleaned = self.clean(checked).strip()
        if required and not cleaned:
            raise InvalidInput(f"{name} is empty once <private> blocks are removed")
        return cleaned or None

    def strings(self, name: str, values: Iterable[str] | None, max_items: int, max_chars: int) -> tuple[str, ...]:
        """A bounded list of strings (tags, entities), each cleaned; items left empty are dropped."""
        checked = check_strings(name, values, max_items, max_chars)
        return tuple(dict.fromkeys(kept for kept in (self.clean(item).strip() for item in checked) if kept))

    def meta(self, name: str, value: Any) -> dict[str, Any]:
        """A bounded JSON object whose every string, keys included, is cleaned."""
        return self._clean_json(check_meta(name, value))  # type: ignore[no-any-return]

    def _clean_json(self, node: Any) -> Any:
        # check_meta bounded the depth, so this recursion is at most META_MAX_DEPTH deep.
        if isinstance(node, dict):
            return {self.clean(key): self._clean_json(child) for key, child in node.items()}
        if isinstance(node, list | tuple):
            return [self._clean_json(child) for child in node]
        return self.clean(node) if isinstance(node, str) else node


def scrub_text(name: str, value: Any, max_chars: int, *, required: bool = False) -> str | None:
    """``Scrubber().text`` for a write whose result does not report redactions."""
    return Scrubber().text(name, value, max_chars, required=required)


def scrub_meta(name: str, value: Any) -> dict[str, Any]:
    """``Scrubber().meta`` for a write whose result does not report redactions."""
    return Scrubber().meta(name, value)

"""spaCy's library without its command line, until something asks for the command line.

graphmem parses with spaCy's library and never runs its commands, but ``import spacy`` runs
``from .cli.info import info``, and ``spacy/cli/__init__.py`` imports every spaCy command and the packages behind
them: typer, click, rich, requests, weasel, jinja2, pygments, httpx, about 350 modules, 14 MiB of every server
process (issue 26: a partitioned server's fixed cost is most of its memory; docs/benchmarks.md, "The pool from
the snapshots written ahead") and a second of its start.

:func:`defer_spacy_cli`, called before spaCy's first import, puts a stand-in for ``spacy.cli`` and
``spacy.cli.info`` in ``sys.modules``. spaCy's import then takes ``info`` from the stand-in and imports nothing of
its command line. The stand-in is spaCy's own command-line package as soon as anything uses it: a submodule
(``import spacy.cli.download``) imports from spaCy's folder as usual, and the first attribute read from it
(``spacy.cli.download``, ``from spacy.cli import app``) or a call of ``spacy.info(...)`` imports the real package
in its place and answers from it (:mod:`nlp.deferred_modules`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

from nlp.deferred_modules import DeferredModule, load_in_place

__all__ = ["defer_spacy_cli"]

_CLI, _INFO = "spacy.cli", "spacy.cli.info"
_LOCK = threading.Lock()


class _DeferredInfo(DeferredModule):
    """Stands for ``spacy.cli.info`` while spaCy imports: hands it ``info`` (:func:`_info`) and makes the stand-in
    for ``spacy.cli`` its ``cli`` attribute, as the real import would have."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # the import system's own probes (__path__ ...): no import
        if name != "info":
            _real_cli()
            return getattr(importlib.import_module(_INFO), name)
        spacy = sys.modules.get("spacy")
        if spacy is not None and "cli" not in vars(spacy):
            spacy.cli = sys.modules.get(_CLI)  # type: ignore[attr-defined]
        return _info


def _info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info``: spaCy's own, imported on the first call."""
    _real_cli()
    real: Any = importlib.import_module(_INFO)
    return real.info(*args, **kwargs)


def defer_spacy_cli() -> bool:
    """Before spaCy's first import: stand-ins for its command-line package; ``True`` if they were put in place
    (``False``: spaCy is imported already, or not installed)."""
    with _LOCK:
        if "spacy" in sys.modules or _CLI in sys.modules:
            return False
        spec = importlib.util.find_spec("spacy")
        if spec is None or not spec.submodule_search_locations:
            return False
        folder = next(iter(spec.submodule_search_locations))
        cli = DeferredModule(_CLI, "spaCy's command line, imported on first use (nlp/spacy_cli.py)", also=(_INFO,))
        cli.__path__ = [f"{folder}/cli"]  # its submodules import from spaCy's folder, without the package
        cli.__package__ = _CLI
        info = _DeferredInfo(_INFO)
        info.__package__ = _CLI
        sys.modules[_CLI], sys.modules[_INFO] = cli, info
        return True


def _real_cli() -> types.ModuleType:
    """The real ``spacy.cli``, imported in the stand-ins' place (once); spaCy's ``cli`` attribute set to it."""
    real = load_in_place(_CLI, _INFO)
    spacy = sys.modules.get("spacy")
    if spacy is not None and vars(spacy).get("cli") is not real:
        spacy.cli = real  # type: ignore[attr-defined]
    return real

"""spaCy's command line is imported only when something uses it (nlp/spacy_cli.py): checked in a fresh
interpreter, where ``import nlp`` comes before spaCy's first import as in every graphmem process."""

from __future__ import annotations

import json
import subprocess
import sys

CLI_PACKAGES = ("typer", "click", "rich", "requests", "weasel", "jinja2")


def _run(code: str) -> object:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_parsing_imports_none_of_spacys_command_line():
    loaded = _run("import json, sys\nfrom nlp import ConceptExtractor\n"
                  "mentions = ConceptExtractor().parse('Retry the Stripe webhook with backoff').mentions\n"
                  f"print(json.dumps([bool(mentions), [m for m in {list(CLI_PACKAGES)!r} if m in sys.modules]]))")
    assert loaded == [True, []]


def test_spacys_command_line_still_works_once_asked_for():
    answers = _run(
        "import json, sys, nlp, spacy\n"
        "deferred = type(spacy.cli).__name__\n"
        "import spacy.cli.download as download\n"  # a submodule imports from spaCy's folder
        "from spacy.cli import app, info\n"  # the first attribute read imports the real package
        "version = spacy.info(silent=True)['spacy_version']\n"
        "print(json.dumps([deferred, download.__name__, type(app).__name__, info is sys.modules['spacy.cli.info'].info,"
        " type(spacy.cli).__name__, version == spacy.__version__, 'typer' in sys.modules]))")
    assert answers == ["DeferredModule", "spacy.cli.download", "Typer", True, "module", True, True]


def test_nothing_is_deferred_once_spacy_is_imported():
    assert _run("import json, spacy\nfrom nlp.spacy_cli import defer_spacy_cli\n"
                "print(json.dumps([defer_spacy_cli(), type(spacy.cli).__name__]))") == [False, "module"]

"""The maintenance commands: ``graphmem lint`` finds and fixes what is safe; ``graphmem redact``: an older
store's secrets leave its rows, concepts, index, file and exports."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.cli import main
from graphmem.core.redaction import Redaction

CORPUS = [json.loads(line) for line in
          (Path(__file__).parents[1] / "data" / "redaction_outside_corpus.jsonl").read_text().splitlines()]
# One of each family the issue found stored verbatim: a prefixed token, a connection string, a flag, a URL
# whose password holds "@", an env line and an entity that is only a secret (it becomes a concept).
PICKED = {"huggingface-token", "azure-storage-connection-string", "mysql-p-flag", "db-url-at-in-password",
          "env-secret-token-hex", "gitlab-runner-auth-token", "telegram-bot-token", "putty-private-key"}
SECRETS = {case["format"]: case for case in CORPUS if case["format"] in PICKED}
HF_TOKEN = SECRETS["huggingface-token"]["secret"]


@pytest.fixture
def old_store(new_store, extractor, monkeypatch) -> str:
    """A store written by a graphmem whose rules missed these formats: the scrubber lets everything through."""
    path = new_store("old.db")
    monkeypatch.setattr("graphmem.service.scrub.redact", lambda text: Redaction(text, {}))
    service = MemoryService(Settings.load(db=path, environ={}), extractor=extractor)
    for case in SECRETS.values():
        service.store(f"Deploy note: {case['text']} for the payments release", project="ops",
                      meta={"from": case["text"]})
    service.store(f"Hub login for the model mirror {HF_TOKEN}", entities=[HF_TOKEN], tags=[HF_TOKEN])
    service.store(f"Hub login for the model mirror {HF_TOKEN[:-1]}Z")  # same text once both are redacted
    service.close()
    monkeypatch.undo()
    return path


def _everything(path: str, extractor) -> str:  # type: ignore[no-untyped-def]
    service = MemoryService(Settings.load(db=path, environ={}), extractor=extractor)
    export = io.StringIO()
    service.export_jsonl(export)
    concepts = [concept for memory in service.search("hub login model mirror payments release").hits
                for concept in getattr(memory, "concepts", ())]
    service.close()
    raw = b"".join(file.read_bytes() for file in Path(path).parent.glob(Path(path).name + "*"))
    return export.getvalue() + json.dumps(concepts) + raw.decode("latin-1")


def test_a_dry_run_reports_and_changes_nothing_then_apply_removes_every_secret(old_store, extractor, capsys):
    secrets = [case["secret"] for case in SECRETS.values()]
    assert all(secret in _everything(old_store, extractor) for secret in secrets)
    assert main(["--json", "--db", old_store, "redact"]) == 0
    dry = json.loads(capsys.readouterr().out)
    assert not dry["applied"] and dry["rows"] >= len(SECRETS) + 2 and dry["concepts"] >= 1
    assert "huggingface-token" in dry["redacted"] and "memory.content" in dry["columns"]
    assert all(secret in _everything(old_store, extractor) for secret in secrets)

    assert main(["--json", "--db", old_store, "redact", "--apply"]) == 0
    applied = json.loads(capsys.readouterr().out)
    assert applied["applied"] and applied["rows"] == dry["rows"]
    stored = _everything(old_store, extractor)
    for secret in secrets:
        assert secret not in stored and secret.casefold() not in stored
    assert main(["--json", "--db", old_store, "redact"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 0


def test_after_apply_the_store_still_finds_the_memories_by_their_other_words(old_store, extractor, capsys):
    assert main(["--db", old_store, "redact", "--apply"]) == 0
    assert "rewrote" in capsys.readouterr().out
    service = MemoryService(Settings.load(db=old_store, environ={}), extractor=extractor)
    hits = service.search("payments release", limit=20).hits
    assert sum(hit.content.startswith("Deploy note: ") for hit in hits) == len(SECRETS)
    assert all(HF_TOKEN not in str(hit) for hit in service.search(HF_TOKEN).hits)
    service.close()


def test_a_concept_that_is_itself_a_secret_shape_is_dropped(new_store, extractor, monkeypatch, capsys):
    path = new_store("concept.db")
    token = "ghp_" + "Zq4" * 12
    monkeypatch.setattr("graphmem.service.scrub.redact", lambda text: Redaction(text, {}))
    service = MemoryService(Settings.load(db=path, environ={}), extractor=extractor)
    service.store("The CI bot authenticates with its own token", entities=[token])
    service.close()
    monkeypatch.undo()
    assert main(["--json", "--db", path, "redact", "--apply"]) == 0
    assert json.loads(capsys.readouterr().out)["concepts"] >= 1
    service = MemoryService(Settings.load(db=path, environ={}), extractor=extractor)
    export = io.StringIO()
    service.export_jsonl(export)
    service.close()
    assert token.casefold() not in export.getvalue().casefold()


def test_lint_reports_a_broken_store_and_fix_repairs_it(new_store, extractor, capsys):
    path = new_store("lint.db")
    service = MemoryService(Settings.load(db=path, environ={}), extractor=extractor)
    service.store("Deploys run at 10:00 UTC on weekdays")
    with service.engine.begin() as connection:  # a concept nothing mentions, written past the service
        connection.exec_driver_sql("INSERT INTO concept (key, kind, df, aliases) VALUES ('lonely', 'term', 0, '[]')")
    service.close()
    assert main(["--db", path, "--json", "lint"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert not found["ok"] and found["fixed"] == 0
    assert any(finding["subject"] == "lonely" and finding["fixable"] for finding in found["findings"])
    assert main(["--db", path, "--json", "lint", "--fix"]) == 0
    assert json.loads(capsys.readouterr().out)["fixed"] >= 1
    assert main(["--db", path, "lint"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "ok"

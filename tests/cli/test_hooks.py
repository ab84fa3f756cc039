"""The hook commands, run as Claude Code runs them: a process with the client's JSON event on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GRAPHMEM = str(Path(sys.executable).with_name("graphmem"))
DECISION = "Sessions live in Redis with a sliding TTL, so a logout revokes them at once"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git checkout named webshop with its project store, one decision and one memory due for review."""
    root = tmp_path / "webshop"
    (root / ".git").mkdir(parents=True)
    assert hook(tmp_path, root, "init").returncode == 0
    for argv in (["store", DECISION, "--kind", "decision", "--project", "webshop"],
                 ["store", "Cache rendered HTML at the CDN edge for 5 minutes", "--project", "webshop",
                  "--review-after", "2026-01-01T00:00:00Z"]):
        assert hook(tmp_path, root, *argv).returncode == 0
    return root


def hook(tmp_path: Path, cwd: Path, *argv: str, event: dict | str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "XDG_"))} | {
        "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    text = event if isinstance(event, str) else json.dumps(event) if event is not None else ""
    return subprocess.run([GRAPHMEM, *argv], cwd=cwd, env=env, input=text, capture_output=True, text=True,
                          timeout=120, check=False)


def test_session_start_prints_the_projects_memory_for_the_event_directory(tmp_path, project):
    event = {"session_id": "0b9c", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(project / "src"),
             "hook_event_name": "SessionStart", "source": "startup"}
    (project / "src").mkdir()
    done = hook(tmp_path, tmp_path, "hook-start", event=event)  # run elsewhere: the event's cwd decides
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "# graphmem: memory of project webshop"
    assert lines[1].startswith(("started session ses_", "resumed session ses_"))  # the stores opened one
    assert any(line.startswith("- [decision] mem_") and line.endswith(DECISION) for line in lines)
    due = lines[lines.index("## Due for review") + 1]
    assert due.startswith("- mem_") and "days overdue): Cache rendered HTML" in due
    assert lines[lines.index("## Open conflicts") + 1] == "- none"
    assert f"store {project / '.graphmem' / 'memory.db'} (project)" in done.stderr


def test_stop_captures_the_last_replys_note_once_and_never_on_a_hook_continuation(tmp_path, project):
    transcript = tmp_path / "transcript.jsonl"
    replies = ["Looking at the session code now.",
               "Done.\n\n## Decisions\n- Rotate the session id on every privilege change\n\n## Errors\n"
               "- The CSRF check failed on cached pages"]
    transcript.write_text("\n".join(json.dumps({"type": "assistant", "message": {
        "role": "assistant", "content": [{"type": "text", "text": text}]}}) for text in replies) + "\n",
        encoding="utf-8")
    event = {"session_id": "0b9c", "transcript_path": str(transcript), "cwd": str(project),
             "hook_event_name": "Stop", "stop_hook_active": False}
    first = hook(tmp_path, tmp_path, "hook-stop", event=event)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1] == "captured 2, duplicates 0"
    assert "[decision] Rotate the session id on every privilege change" in first.stdout
    assert hook(tmp_path, tmp_path, "hook-stop", event=event).stdout.splitlines()[-1] == "captured 0, duplicates 2"
    again = hook(tmp_path, tmp_path, "hook-stop", event=event | {"stop_hook_active": True})
    assert again.stdout.strip() == "nothing to capture"
    found = json.loads(hook(tmp_path, project, "--json", "search", "privilege change session id").stdout)
    assert found["hits"][0]["content"] == "Rotate the session id on every privilege change"


def test_a_failing_hook_exits_1_with_one_line_so_the_client_keeps_going(tmp_path, project):
    broken = hook(tmp_path, project, "hook-stop", event="{not json")
    assert broken.returncode == 1
    assert broken.stderr.splitlines() == ["error: the hook input on stdin is not JSON: Expecting property name "
                                          "enclosed in double quotes: line 1 column 2 (char 1)"]
    elsewhere = tmp_path / "no-store"
    (elsewhere / ".graphmem").mkdir(parents=True)  # a project folder whose store was deleted
    missing = hook(tmp_path, tmp_path, "hook-start", event={"cwd": str(elsewhere)})
    assert missing.returncode == 1 and "no graphmem store at" in missing.stderr and "init" in missing.stderr

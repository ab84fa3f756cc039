"""Skills from patterns (draft at the threshold, lifecycle, versions, rollback, outcomes) and briefs."""

from __future__ import annotations

import os

import pytest

from graphmem.errors import InvalidInput
from graphmem.service.learning.briefs import DEFAULT_TARGETS, END_MARKER, START_MARKER

DEPLOY = [
    "Run `npm run build:worker` before `kubectl rollout restart deploy/worker` or the old bundle ships.",
    "Deploy of the worker failed: `kubectl rollout restart deploy/worker` shipped a stale bundle from npm.",
    "After `npm run build:worker`, check the worker bundle hash before `kubectl rollout restart deploy/worker`.",
    "Worker deploy checklist: `npm run build:worker`, then `kubectl rollout restart deploy/worker`, then smoke test.",
]


def _learn_all(service):
    return [service.learning.skills.learn(text, project="infra", kind="pattern")[1] for text in DEPLOY]


def test_learn_counts_related_memories_and_drafts_a_skill_at_the_threshold(service):
    notices = _learn_all(service)
    assert notices[1].message.startswith("1 related memories found — 2 more")
    assert notices[2].message.startswith("2 related memories found — 1 more")
    assert notices[3].skill_id is not None
    skill = service.learning.skills.get(notices[3].skill_id)
    assert skill.status == "draft" and len(skill.steps) == 4 and len(skill.source_ids) == 4
    assert skill.steps[0].startswith("Run `npm run build:worker`")


def test_skill_lifecycle_versions_audit_rollback_and_outcomes(service):
    skill_id = _learn_all(service)[3].skill_id
    skills = service.learning.skills
    skills.transition(skill_id, "activate", actor="alice", reason="worked twice")
    skills.record_outcome(skill_id, "success", actor="agent-7")
    deprecated = skills.transition(skill_id, "deprecate", actor="bob", reason="replaced by CI")
    assert deprecated.status == "deprecated" and deprecated.version == 4 and deprecated.successes == 1
    assert [(v.action, v.actor) for v in deprecated.history] == [
        ("drafted", "graphmem"), ("activated", "alice"), ("outcome_success", "agent-7"), ("deprecated", "bob")]
    rolled = skills.rollback(skill_id, 2, actor="carol", reason="CI is down")
    assert rolled.status == "active" and rolled.version == 5
    with pytest.raises(InvalidInput):
        skills.transition(skill_id, "reject")


def test_session_start_lists_active_skills(service):
    skill_id = _learn_all(service)[3].skill_id
    service.learning.skills.transition(skill_id, "activate")
    started = service.sessions.start(project="infra")
    assert [s["id"] for s in started.active_skills] == [skill_id]


def test_brief_counter_status_synthesize_between_markers_and_reset(service, tmp_path):
    briefs = service.learning.briefs
    briefs.configure(project="infra", threshold=3, targets=["AGENTS.md", ".kiro/steering/workspace.md"])
    (tmp_path / "AGENTS.md").write_text("# Agents\nKeep this line.\n", encoding="utf-8")
    service.store("Use Terraform workspaces per region", kind="decision", project="infra")
    assert briefs.status("infra").count == 1 and not briefs.status("infra").ready
    assert briefs.synthesize(tmp_path, "infra", named_by_operator=True).skipped
    forced = briefs.synthesize(tmp_path, "infra", force=True, named_by_operator=True)
    text = (tmp_path / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith("# Agents\nKeep this line.\n") and START_MARKER in text and END_MARKER in text
    assert forced.lines[0].memory_id in text and forced.status.count == 0
    assert (tmp_path / ".kiro/steering/workspace.md").exists()
    briefs.synthesize(tmp_path, "infra", force=True, named_by_operator=True)
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8").count(START_MARKER) == 1


def test_brief_targets_are_markdown_files_in_an_existing_root(service, tmp_path):
    briefs = service.learning.briefs
    for target in (".bashrc", ".ssh/authorized_keys", "notes.txt", "AGENTS"):
        with pytest.raises(InvalidInput, match="not a Markdown file"):
            briefs.configure(targets=[target])
    assert briefs.status().targets == DEFAULT_TARGETS  # a refused configuration changes nothing
    briefs.configure(targets=["docs/AGENTS.md", ".cursor/rules/memory.mdc"])
    missing = tmp_path / "no-such-project"
    with pytest.raises(InvalidInput, match="not an existing directory"):
        briefs.synthesize(missing, force=True, named_by_operator=True)
    assert not missing.exists()
    written = briefs.synthesize(tmp_path, force=True, named_by_operator=True)
    assert written.written == ("docs/AGENTS.md", ".cursor/rules/memory.mdc")


def test_brief_targets_stay_inside_the_root_and_never_follow_links(service, tmp_path):
    briefs = service.learning.briefs
    with pytest.raises(InvalidInput):
        briefs.configure(targets=["../outside.md"])
    outside = tmp_path / "outside.md"
    outside.write_text("x", encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    (root / "AGENTS.md").symlink_to(outside)
    with pytest.raises(InvalidInput, match="symbolic link"):
        briefs.synthesize(root, force=True, named_by_operator=True)
    (root / "AGENTS.md").unlink()
    os.link(outside, root / "AGENTS.md")
    with pytest.raises(InvalidInput, match="hard links"):
        briefs.synthesize(root, force=True, named_by_operator=True)

"""CLI commands of memory that learns: clusters, duplicates, consolidate, skills, brief (docs/learning.md).

Each command is a thin call into ``MemoryService.learning`` that prints text, or JSON with ``--json``.
"""

from __future__ import annotations

import argparse
from typing import Any

from graphmem.cli.app import Commands, emit, open_service
from graphmem.errors import InvalidInput

__all__ = ["COMMANDS", "add_arguments", "cmd_brief", "cmd_clusters", "cmd_consolidate", "cmd_duplicates",
           "cmd_skills"]

_SKILL_ACTIONS = ("list", "show", "learn", "activate", "deprecate", "reject", "rollback", "outcome")


def cmd_clusters(args: argparse.Namespace) -> None:
    """Clusters of memories sharing specific concepts, with cohesion and a suggested action."""
    report = open_service(args).learning.clusters.clusters(args.project, args.threshold, limit=args.limit)
    emit(args, report, _render_clusters)


def _render_clusters(report: Any) -> str:
    lines = []
    for cluster in report.clusters:
        lines.append(f"{cluster.id} {cluster.action} cohesion {cluster.cohesion:.2f} "
                     f"[{', '.join(cluster.kinds)}] {cluster.project or '-'}: {', '.join(cluster.shared_concepts)}")
        lines += [f"    {memory_id}: {' '.join(preview.split())[:90]}"
                  for memory_id, preview in zip(cluster.memory_ids, cluster.previews, strict=False)]
    lines.append(f"{len(report.clusters)} clusters of {report.memories_considered} memories "
                 f"({report.candidate_pairs} candidate pairs)")
    return "\n".join(lines)


def cmd_duplicates(args: argparse.Namespace) -> None:
    """Near-duplicate pairs (same kind, same project) with their similarity score."""
    report = open_service(args).learning.duplicates.find(args.project, args.threshold, limit=args.limit)
    emit(args, report, lambda r: "\n".join(
        [f"{p.score:.2f} {p.left_id} ~ {p.right_id} [{p.kind}] {', '.join(p.shared_concepts[:4])}\n"
         f"    A: {' '.join(p.left_preview.split())[:90]}\n    B: {' '.join(p.right_preview.split())[:90]}"
         for p in r.pairs] + [f"{len(r.pairs)} pairs at ≥ {r.threshold} among {r.memories_considered} memories"]))


def cmd_consolidate(args: argparse.Namespace) -> None:
    """Merge a cluster into one memory: preview by default, --apply to write, --undo MERGED_ID to restore."""
    consolidation = open_service(args).learning.consolidation
    if args.undo:
        if args.cluster_id or args.auto or args.ids:
            raise InvalidInput("usage: graphmem consolidate --undo MERGED_ID (alone)")
        result = consolidation.undo(args.undo)
    else:
        if not (args.cluster_id or args.auto or args.ids):
            raise InvalidInput("usage: graphmem consolidate CLUSTER_ID | --ids A B ... | --auto [--apply]")
        result = consolidation.consolidate(args.cluster_id, "apply" if args.apply else "preview",
                                           auto_detect=args.auto, cohesion_threshold=args.cohesion,
                                           memory_ids=args.ids or None, project=args.project)
    emit(args, result, _render_consolidation)


def _render_consolidation(result: Any) -> str:
    lines = []
    for preview in result.previews:
        lines += [f"{preview.cluster_id} cohesion {preview.cohesion:.2f}: {', '.join(preview.memory_ids)}",
                  f"    merged [{preview.kind}]: {' '.join(preview.content.split())[:160]}",
                  f"    tags {', '.join(preview.tags) or '-'}; valid_from {preview.valid_from}; "
                  f"use_count {preview.use_count}; strength {preview.strength}"]
    if result.merged_id:
        lines.append(f"{result.action}: {result.merged_id}")
    if result.archived:
        lines.append(f"archived {', '.join(result.archived)}")
    if result.restored:
        lines.append(f"restored {', '.join(result.restored)}")
    return "\n".join([*lines, result.message] if result.message else lines) or "nothing to consolidate"


def cmd_skills(args: argparse.Namespace) -> None:
    """Skills from patterns: list, show ID, learn TEXT, activate|deprecate|reject ID, rollback ID N, outcome ID R."""
    skills = open_service(args).learning.skills
    action, rest = args.action, list(args.args)
    if action == "list":
        _none(rest, "graphmem skills list [--project P] [--status S]")
        emit(args, skills.list(args.project, args.status, args.limit), _render_skill_list)
        return
    if action == "learn":
        (text,) = _take(rest, 1, "graphmem skills learn TEXT [--project P] [--kind K]")
        stored, notice = skills.learn(text, args.project, kind=args.kind)
        emit(args, {"id": stored.id, "duplicate": stored.duplicate, "related_ids": list(notice.related_ids),
                    "message": notice.message, "skill_id": notice.skill_id},
             lambda r: f"stored {r['id']}{' (duplicate)' if r['duplicate'] else ''}: {r['message']}")
        return
    if action == "show":
        (skill_id,) = _take(rest, 1, "graphmem skills show SKILL_ID")
        skill = skills.get(skill_id)
    elif action in ("activate", "deprecate", "reject"):
        (skill_id,) = _take(rest, 1, f"graphmem skills {action} SKILL_ID [--reason R] [--successor ID]")
        skill = skills.transition(skill_id, action, args.actor, args.reason, args.successor)
    elif action == "rollback":
        skill_id, version = _take(rest, 2, "graphmem skills rollback SKILL_ID VERSION")
        if not version.isdigit():
            raise InvalidInput(f"version must be a number, got {version!r}")
        skill = skills.rollback(skill_id, int(version), args.actor, args.reason)
    else:
        skill_id, outcome = _take(rest, 2, "graphmem skills outcome SKILL_ID success|failure|partial|unknown")
        skill = skills.record_outcome(skill_id, outcome, args.actor, args.reason)
    emit(args, skill, _render_skill)


def _take(values: list[str], count: int, usage: str) -> list[str]:
    if len(values) != count:
        raise InvalidInput(f"usage: {usage}")
    return values


def _none(values: list[str], usage: str) -> None:
    if values:
        raise InvalidInput(f"usage: {usage}")


def _render_skill_list(listing: Any) -> str:
    return "\n".join(skill.summary() for skill in listing.skills) or "no skills"


def _render_skill(skill: Any) -> str:
    lines = [skill.summary(), f"    version {skill.version}; outcomes {skill.successes} success, "
                              f"{skill.failures} failure; sources {', '.join(skill.source_ids)}"]
    lines += [f"    {number}. {step[:120]}" for number, step in enumerate(skill.steps, start=1)]
    lines += [f"    v{v.version} {v.action} by {v.actor} at {v.at}" + (f": {v.reason}" if v.reason else "")
              for v in skill.history]
    return "\n".join(lines)


def cmd_brief(args: argparse.Namespace) -> None:
    """Project brief: status, synthesize (into AGENTS.md, CLAUDE.md ... under --root) or reset the counter."""
    briefs = open_service(args).learning.briefs
    if args.action == "status":
        emit(args, briefs.status(args.project), _render_status)
    elif args.action == "reset":
        emit(args, briefs.reset(args.project), _render_status)
    else:
        result = briefs.synthesize(args.root, args.project, force=args.force, named_by_operator=True)
        emit(args, result, lambda r: "\n".join(
            [r.message, *(f"    wrote {path}" for path in r.written), _render_status(r.status)]))


def _render_status(status: Any) -> str:
    ready = "ready" if status.ready else "not ready"
    return (f"{status.project or 'all projects'}: {status.count} observations since the last brief, a brief at "
            f"{status.threshold} ({ready}); targets {', '.join(status.targets)}")


def add_arguments(parsers: dict[str, argparse.ArgumentParser]) -> None:
    """The arguments of the learning commands."""
    for name in ("clusters", "duplicates"):
        parsers[name].add_argument("--threshold", type=float, help="similarity to link (clusters) or to "
                                                                   "report (duplicates); default 0.45 / 0.5")
    parsers["clusters"].add_argument("--limit", type=int, default=50, help="clusters to show")
    parsers["duplicates"].add_argument("--limit", type=int, default=100, help="pairs to show")
    consolidate = parsers["consolidate"]
    consolidate.add_argument("cluster_id", nargs="?", help="a cluster id from graphmem clusters")
    consolidate.add_argument("--ids", nargs="+", help="memory ids to merge instead of a cluster")
    consolidate.add_argument("--auto", action="store_true", help="every merge cluster above --cohesion")
    consolidate.add_argument("--cohesion", type=float, default=0.75, help="--auto: cohesion threshold")
    consolidate.add_argument("--apply", action="store_true", help="write the merge (default: preview only)")
    consolidate.add_argument("--undo", metavar="MERGED_ID", help="restore the originals of a merge")
    skills = parsers["skills"]
    skills.add_argument("action", choices=_SKILL_ACTIONS, help="what to do with skills")
    skills.add_argument("args", nargs="*", help="skill id, text, version or outcome")
    skills.add_argument("--status", choices=["draft", "active", "deprecated", "rejected"], help="list: only these")
    skills.add_argument("--limit", type=int, default=50, help="list: skills to show")
    skills.add_argument("--kind", default="note", help="learn: the memory's kind")
    skills.add_argument("--actor", default="cli", help="who made the change (audit)")
    skills.add_argument("--reason", help="why (audit), or an outcome's note")
    skills.add_argument("--successor", help="deprecate: the skill replacing it")
    brief = parsers["brief"]
    brief.add_argument("action", choices=["status", "synthesize", "reset"],
                       help="show the counter, write the brief, or reset the counter")
    brief.add_argument("--root", default=".", help="synthesize: the project root the targets are under")
    brief.add_argument("--force", action="store_true", help="synthesize below the threshold")
    for name in COMMANDS:
        parsers[name].add_argument("--project", help="only this project (default: every project)")


COMMANDS: Commands = {
    "clusters": (cmd_clusters, "graphmem clusters --project infra --limit 2"),
    "duplicates": (cmd_duplicates, "graphmem duplicates --limit 2"),
    "consolidate": (cmd_consolidate, "graphmem consolidate --auto --cohesion 0.8"),
    "skills": (cmd_skills, "graphmem skills learn 'Run npm run build:worker before kubectl rollout restart "
                           "deploy/worker, or the old bundle ships' --project infra --kind pattern; "
                           "graphmem skills list --status draft"),
    "brief": (cmd_brief, "graphmem brief status --project infra"),
}

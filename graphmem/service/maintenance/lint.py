"""Lint: find what breaks the store's invariants; with ``fix``, repair what is safe to repair.

Safe repairs delete rows that point at nothing (dangling relations, mentions, edges), drop concepts
nothing uses, merge concepts that differ only in case or Unicode form (their normalized keys are
equal, so they were always meant to be one node), end stale sessions, rebuild the full-text index
and reload the graph projection. Reported only: memories without concepts (re-store the content),
concepts that differ in spelling such as plural or hyphenation (they may be different things),
relations of a type the semantics table does not know.
"""

from __future__ import annotations

import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.core.relations import RELATION_TYPES
from graphmem.core.time import to_ms
from graphmem.core.values import STATUSES
from graphmem.service.maintenance.results import LintFinding, LintReport
from graphmem.service.unit_of_work import UnitOfWork
from graphmem.store import lint_store, relation_store
from graphmem.store.projection import GraphProjection
from nlp import normalize_key

__all__ = ["LintService"]

_SPOT_CHECKS = 64  # memories compared node by node with their rows (evenly spaced over the store)


@dataclass(slots=True)
class _Check:
    findings: list[LintFinding] = field(default_factory=list)
    repair: Callable[[Any], None] | None = None

    def add(self, check: str, subject: str, detail: str, fixable: bool) -> None:
        self.findings.append(LintFinding(check, subject, detail, fixable))


class LintService:
    """``service.lint``: store health checks."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def run(self, fix: bool = False) -> LintReport:
        """Run every check; with ``fix`` repair the fixable findings in one transaction."""
        if not fix:
            with self.uow.read() as session:
                checks = [self._projection_check(session), *self._row_checks(session)]
        else:
            with self.uow.write() as write:
                checks = [self._projection_check(write.session), *self._row_checks(write.session)]
                for check in checks:
                    if check.findings and check.repair:
                        check.repair(write.session)
                if any(check.findings for check in checks):
                    write.rewrote("lint")  # every process rebuilds its projection from the repaired rows
        findings = tuple(LintFinding(f.check, f.subject, f.detail, f.fixable, fixed=fix and f.fixable)
                         for c in checks for f in c.findings)
        return LintReport(findings=findings, counts=dict(Counter(f.check for f in findings)),
                          fixed=sum(f.fixed for f in findings), fix=fix, ok=not findings)

    def _row_checks(self, session: Any) -> list[_Check]:
        return [_orphans(session), _dangling(session), _unknown_types(session), _without_concepts(session),
                _duplicates(session), _stale(session, time.time_ns() // 1_000_000), _fts(session)]

    def _projection_check(self, session: Any) -> _Check:
        check = _Check(repair=lambda _session: None)  # the repair is the rebuild run() asks for
        projection, repository = self.uow.fresh(), self.uow.repository
        memories, concepts = lint_store.row_counts(session)
        if (projection.memory_count, len(projection.concept_nodes)) != (memories, concepts):
            check.add("projection_out_of_sync", "counts",
                      f"graph has {projection.memory_count} memories and "
                      f"{len(projection.concept_nodes)} concepts; rows have {memories} and {concepts}",
                      True)
        seqs = {int(projection.col("seq")[node]): node for node in _sample(projection.memory_nodes)}
        rows = repository.memories_by_seq(seqs)
        keys = lint_store.mention_keys(session, list(rows))
        for seq, node in seqs.items():
            problem = _node_problem(projection, session, node, rows.get(seq), keys.get(seq, set()))
            if problem:
                check.add("projection_out_of_sync", projection.names[node], problem, True)
        return check


def _sample(memory_nodes: Mapping[str, int]) -> list[int]:
    """Up to ``_SPOT_CHECKS`` memory nodes, evenly spaced over the store (first and last included)."""
    nodes = sorted(memory_nodes.values())
    if not nodes:
        return []
    return [nodes[i] for i in np.linspace(0, len(nodes) - 1, min(_SPOT_CHECKS, len(nodes))).astype(int)]


def _node_problem(projection: GraphProjection, session: Any, node: int, row: Any, keys: set[str]) -> str | None:
    if row is None:
        return "in the graph but not in the rows"
    if int(projection.col("status")[node]) != STATUSES.index(row.status):
        return f"graph status {STATUSES[int(projection.col('status')[node])]!r}, row status {row.status!r}"
    valid_to = None if row.valid_to is None else to_ms(row.valid_to)
    if (valid_to or np.iinfo(np.int64).max) != int(projection.col("valid_to")[node]):
        return "graph valid_to differs from the row"
    if bool(projection.col("hidden")[node]) != bool(relation_store.hiding_relations(session, row.id)):
        return "graph hidden flag differs from the judged relations"
    graph_keys = {projection.names[c] for c, _ in projection.concepts_of(node)}
    if graph_keys != keys:
        return f"graph concepts differ from mention rows ({len(graph_keys)} vs {len(keys)})"
    return None


def _orphans(session: Any) -> _Check:
    orphans = lint_store.orphan_concepts(session)
    check = _Check(repair=lambda s: lint_store.delete_concepts(s, [seq for seq, _ in orphans]))
    for _, key in orphans:
        check.add("orphan_concept", key, "no memory mentions it and no fact names it", True)
    return check


def _dangling(session: Any) -> _Check:
    relations = lint_store.dangling_relations(session)
    mentions = lint_store.dangling_mentions(session)
    edges = lint_store.dangling_concept_edges(session)

    def repair(s: Any) -> None:
        lint_store.delete_rows(s, "relation", "id = :id", [{"id": r[0]} for r in relations])
        lint_store.delete_rows(s, "mention", "memory_seq = :m AND concept_seq = :c",
                               [{"m": m, "c": c} for m, c in mentions])
        lint_store.delete_rows(s, "concept_edge", "a_seq = :a AND b_seq = :b",
                               [{"a": a, "b": b} for a, b in edges])

    check = _Check(repair=repair)
    for rel_id, rel_type, source, target in relations:
        check.add("dangling_relation", rel_id, f"{rel_type} {source} → {target} names a missing memory",
                  True)
    for m, c in mentions:
        check.add("dangling_mention", f"{m}:{c}", "mention of a missing memory or concept", True)
    for a, b in edges:
        check.add("dangling_concept_edge", f"{a}:{b}", "co-occurrence edge of a missing concept", True)
    return check


def _unknown_types(session: Any) -> _Check:
    check = _Check()
    for rel_id, rel_type in lint_store.relation_types(session):
        if rel_type not in RELATION_TYPES:
            check.add("unknown_relation_type", rel_id, f"type {rel_type!r} is not in the semantics table; "
                      "judge it as a valid type or ignore it", False)
    return check


def _without_concepts(session: Any) -> _Check:
    check = _Check()
    for memory_id, head in lint_store.memories_without_concepts(session):
        check.add("memory_without_concepts", memory_id, f"{head!r}: recall can only reach it by keywords; "
                  "re-store its content to extract concepts", False)
    return check


def _duplicates(session: Any) -> _Check:
    concepts = lint_store.concept_keys(session)
    by_normal: dict[str, list[tuple[int, str]]] = {}
    for seq, key in concepts:
        by_normal.setdefault(normalize_key(key), []).append((seq, key))
    merges = []
    check = _Check()
    for normal, group in by_normal.items():
        if len(group) > 1:
            keep = next((c for c in group if c[1] == normal), group[0])
            merges += [(dup, keep) for dup in group if dup != keep]
            check.add("duplicate_concept", normal, f"{', '.join(k for _, k in group)} differ only in case or "
                      f"Unicode form; merge into {keep[1]!r}", True)
    by_form: dict[str, list[str]] = {}
    for normal in by_normal:
        by_form.setdefault(_form(normal), []).append(normal)
    for form, spellings in by_form.items():
        if len(spellings) > 1:
            check.add("similar_concepts", form, f"{', '.join(sorted(spellings))} differ only in spelling "
                      "(plural, hyphens, accents); review whether they are one concept", False)

    def repair(s: Any) -> None:
        for dup, keep in merges:
            lint_store.merge_concept(s, dup, keep)

    check.repair = repair
    return check


def _form(key: str) -> str:
    """A loose spelling form: no accents, no separators, no plural ``s`` ("web-hooks" ~ "webhook")."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", key) if not unicodedata.combining(c))
    squashed = "".join(c for c in folded if c.isalnum())
    return squashed[:-1] if len(squashed) > 3 and squashed.endswith("s") else squashed


def _stale(session: Any, now_ms: int) -> _Check:
    stale = lint_store.stale_sessions(session, now_ms)
    check = _Check(repair=lambda s: lint_store.close_sessions(s, [sid for sid, _ in stale]))
    for session_id, last in stale:
        check.add("stale_session", session_id,
                  f"open, idle since epoch ms {last}; ended at its last activity", True)
    return check


def _fts(session: Any) -> _Check:
    state = lint_store.fts_state(session)
    check = _Check(repair=lint_store.rebuild_fts)
    if state is not None and (state[0] != state[1] or not state[2]):
        check.add("fts_out_of_sync", "memory_fts", f"{state[0]} memory rows, {state[1]} indexed; integrity "
                  f"check {'passed' if state[2] else 'failed'}", True)
    return check

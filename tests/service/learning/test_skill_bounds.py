"""``skills.learn`` reads only the new memory's neighbourhood, and finds exactly what a project-wide
similarity pass finds."""

from __future__ import annotations

import numpy as np

from graphmem.service.learning.clusters import similarity_of
from graphmem.service.learning.skills import RELATED_SIMILARITY
from graphmem.service.recall.skills import score, words
from graphmem.store.tables import SkillRow


def _project_wide(service, memory_id: str, project: str | None) -> set[str]:
    similarity = similarity_of(service.uow, project, service.clock.now_ms(), RELATED_SIMILARITY)
    ids = similarity.matrix.memory_ids
    if memory_id not in ids:  # not visible (superseded, hidden, archived): no pattern
        return set()
    row = ids.index(memory_id)
    pairs = similarity.pairs
    touching = (pairs.left == row) | (pairs.right == row)
    others = np.where(pairs.left[touching] == row, pairs.right[touching], pairs.left[touching])
    return {ids[int(other)] for other in others}


def test_related_memories_equal_the_project_wide_pass_on_the_sample(sample):
    skills = sample.learning.skills
    projection = sample.projection
    checked = 0
    for memory_id in sorted(projection.memory_nodes)[:120]:
        memory = sample.repository.memories_by_id([memory_id])[memory_id]
        bounded = skills.related(memory_id, memory.project)
        assert set(bounded) == _project_wide(sample, memory_id, memory.project), memory_id
        assert len(bounded) == len(set(bounded))
        checked += bool(bounded)
    assert checked > 20


def test_related_reads_no_more_rows_than_the_memory_s_neighbourhood(sample, monkeypatch):
    from graphmem.store import learning_store

    seen: list[int] = []
    original = learning_store.rows_matrix

    def counting(projection, nodes):
        seen.append(len(nodes))
        return original(projection, nodes)

    monkeypatch.setattr(learning_store, "rows_matrix", counting)
    stored = sample.store("Run npm run build:worker before kubectl rollout restart deploy/worker.", project="web")
    sample.learning.skills.related(stored.id, "web")
    assert seen and seen[0] < sample.projection.memory_count / 4


def test_skill_words_and_scores():
    row = SkillRow(id="skill_x", name="worker / deploy", project="infra", project_key="infra",
                   trigger="When working on worker in infra", steps=["Run npm run build:worker"], source_ids=[],
                   status="active", created_at=0, updated_at=0)
    assert score(words("worker deploys"), row) == 1.0
    assert 0 < score(words("npm build"), row) < score(words("worker npm"), row) < 1.0
    assert score(words("postgres vacuum"), row) == 0.0

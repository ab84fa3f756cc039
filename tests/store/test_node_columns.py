"""The projection's columns: the memory fields held once per memory, read by node as before (store/node_columns.py)."""

from __future__ import annotations

import numpy as np

from graphmem.settings import ActivationSettings, SemanticSettings
from graphmem.store.node_columns import MEMORY_COLUMNS, NODE_COLUMNS
from graphmem.store.projection import CONCEPT, MEMORY, GraphProjection, VisibilityFilter
from tests.store.test_projection_pool import _project_rows


def _built(memories: int, concepts: int) -> GraphProjection:
    projection = GraphProjection(ActivationSettings(), SemanticSettings(enabled=False))
    concept_rows, memory_rows, mentions, contents = _project_rows(memories, concepts, seed=3)
    memory_rows = [(*row[:2], "p01" if number % 2 else "p02", *row[3:]) for number, row in enumerate(memory_rows)]
    projection.build(concept_rows, memory_rows, mentions, [], [], [], contents)
    return projection


def test_a_project_of_mostly_concepts_holds_its_memory_fields_once_per_memory():
    projection = _built(memories=200, concepts=2_000)
    n = projection.graph.n_nodes
    assert n == 2_200
    for name in NODE_COLUMNS:
        assert projection._cols[name].size == n, name
    for name in MEMORY_COLUMNS:  # one slot per memory, and the fill a concept node reads
        assert projection._cols[name].size == 201, name
    # 64 bytes of memory fields a node before; now per memory, with 4 bytes a node for its row
    assert projection.columns.nbytes < 22 * n + 70 * 201


def test_a_memory_field_reads_by_node_as_the_per_node_column_did():
    projection = _built(memories=200, concepts=2_000)
    types = projection.col("node_type")
    concepts, memories = np.flatnonzero(types == CONCEPT), np.flatnonzero(types == MEMORY)
    project = projection.col("project")
    assert (project[concepts] == -1).all() and set(project[memories].tolist()) == {0, 1}
    assert project[int(memories[0])] == projection._codes["project"]["p02"]
    assert np.asarray(projection.col("valid_to"))[concepts].tolist() == [np.iinfo(np.int64).max] * concepts.size
    by_node = np.asarray(project)
    assert by_node.shape == (projection.graph.n_nodes,) and (by_node == project).all()
    assert project[np.array([[concepts[0], memories[1]]])].tolist() == [[-1, projection._codes["project"]["p01"]]]
    strength = projection.col("strength")
    assert strength[memories].tolist() == [1.0] * memories.size and strength[types == CONCEPT].tolist() == [
        1.0] * concepts.size
    assert [float(value) for value in projection.col("length")] == np.asarray(projection.col("length")).tolist()


def test_the_filter_reads_the_memory_rows_and_marks_their_nodes():
    projection = _built(memories=200, concepts=2_000)
    memories = np.flatnonzero(projection.col("node_type") == MEMORY)
    assert np.flatnonzero(projection.visible(VisibilityFilter(), 0)).tolist() == memories.tolist()
    assert np.flatnonzero(projection.visible(VisibilityFilter(project="p01"), 0)).tolist() == memories[1::2].tolist()
    projection.set_hidden(projection.names[int(memories[1])], True)
    assert np.flatnonzero(projection.visible(VisibilityFilter(project="p01"), 0)).tolist() == memories[3::2].tolist()
    assert projection.col("hidden")[int(memories[1])] and not projection.col("hidden")[int(memories[0])]

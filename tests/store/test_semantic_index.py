"""The semantic index's arithmetic on a fixed table: mean vectors and cosines less a centre."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.settings import SemanticSettings
from graphmem.store.semantic_index import SemanticIndex

# Every text shares the first axis (a conversation's manner); the topics are the other three.
TABLE = {"cooking": [0.9, 0.3, 0.0, 0.0], "rowing": [0.9, 0.0, 0.3, 0.0], "chess": [0.9, 0.0, 0.0, 0.3],
         "boating": [0.9, -0.1, 0.25, 0.0]}


class _TableEmbedder:
    dimensions = 4

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.array([TABLE[text] for text in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def ready(self) -> bool:
        return True


@pytest.fixture
def index() -> SemanticIndex:
    semantic = SemanticIndex(_TableEmbedder(), SemanticSettings())
    semantic.add_memories([0, 1, 2], ["cooking", "rowing", "chess"])
    return semantic


def test_the_mean_vector_is_the_mean_of_the_memories_vectors(index: SemanticIndex) -> None:
    expected = index.embed(["cooking", "rowing", "chess"]).astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(index.mean_vector(np.array([0, 1, 2])), expected, atol=1e-3)  # float16 storage
    assert not index.mean_vector(np.array([7])).any()  # no vector: zeros


def test_without_a_centre_the_centred_cosine_is_the_plain_one(index: SemanticIndex) -> None:
    query = index.embed(["boating"])[0]
    nodes = np.array([0, 1, 2, 7])
    np.testing.assert_allclose(index.centered_similarity(query, nodes, np.zeros(4)),
                               index.memory_similarity(query, nodes), atol=1e-3)  # float16 norms


def test_taking_the_shared_component_out_separates_the_topics(index: SemanticIndex) -> None:
    query = index.embed(["boating"])[0]
    nodes = np.array([0, 1, 2])
    plain = index.memory_similarity(query, nodes)
    centred = index.centered_similarity(query, nodes, index.mean_vector(nodes))
    assert plain.min() > 0.85  # the shared axis makes every memory look close
    assert int(np.argmax(centred)) == 1 and centred[1] > 0.8 and centred[[0, 2]].max() < 0.1

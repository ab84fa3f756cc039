"""The bridge's second hop starts from the best hits' entities, identifiers and phrases, never a seed, weighted by
the hits' ranks; a hit shows the concepts that passed it the most activation."""

from __future__ import annotations

import numpy as np

from graphmem import MemoryService
from graphmem.service.recall.engine import _BRIDGE_KINDS, CARRIERS_SHOWN, _carriers

TEXTS = (
    "Ben Stokes is an English cricketer born in Christchurch, New Zealand; he plays for Durham.",
    "Durham County Cricket Club plays at the Riverside Ground in Chester-le-Street.",
    "The Riverside Ground hosted a Test match against Sri Lanka in 2003.",
    "Christchurch hosts a cathedral, a botanic garden and the Hagley Oval.",
    "Kane Williamson captains New Zealand and was born in Tauranga.",
)


def _loop(service: MemoryService, sources: list[int], seed_names: set[str]) -> dict[int, float]:
    """What the bridge seeds from, written as a plain loop over each source's concepts."""
    projection = service.uow.projection
    bridge: dict[int, float] = {}
    for rank, node in enumerate(sources):
        for concept, weight in projection.concepts_of(node):
            if projection.names[concept] in seed_names or projection.concept_kind.get(concept) not in _BRIDGE_KINDS:
                continue
            bridge[concept] = bridge.get(concept, 0.0) + weight / (rank + 1)
    return bridge


def test_the_bridge_seeds_the_sources_specific_concepts_in_rank_order(service: MemoryService) -> None:
    service.store_many([{"content": text} for text in TEXTS])
    service.uow.fresh()
    engine = service.recall_service.engine
    projection = service.uow.projection
    memories = sorted(projection.memory_nodes.values())
    kinds = {projection.concept_kind.get(concept) for node in memories for concept, _ in projection.concepts_of(node)}
    assert kinds & _BRIDGE_KINDS and kinds - _BRIDGE_KINDS  # the texts have concepts of both sorts
    for sources, seeds in ((memories[:3], {"durham"}), (memories[::-1], set()), (memories[1:2], {"riverside ground"}),
                           ([], set())):
        with projection.lock:
            concepts, summed = engine._bridge_concepts(sources, seeds)
        expected = _loop(service, sources, seeds)
        assert concepts.tolist() == list(expected)  # first mentioned by the best source first
        assert summed.tolist() == list(expected.values())  # the same sums, to the last bit
        assert not {projection.names[c] for c in concepts.tolist()} & seeds


def test_a_hit_shows_the_concepts_that_passed_it_the_most_activation(service: MemoryService) -> None:
    service.store_many([{"content": text} for text in TEXTS])
    result = service.associate("Which English cricketer born in Christchurch plays for Durham?")
    engine = service.recall_service.engine
    projection = service.uow.projection
    activation = engine.activate("Which English cricketer born in Christchurch plays for Durham?",
                                 service.recall_service.view(None, None, None, None, False, None),
                                 service.clock.now_ms(), 10)
    nodes = [node for node, _ in activation.ranked]
    assert nodes and result.memories
    for hit, node in zip(engine.hits(activation, nodes), nodes, strict=True):
        with projection.lock:
            every = _carriers(projection.names, projection.concepts_of(node), activation.vector)
        assert list(hit.concepts) == every[:CARRIERS_SHOWN]
    assert any(len(_carriers(projection.names, projection.concepts_of(node), activation.vector)) > CARRIERS_SHOWN
               for node in nodes)  # some hit has more carriers than it shows
    assert np.isfinite(activation.vector).all()

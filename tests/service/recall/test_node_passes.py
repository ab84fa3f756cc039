"""A search of a filter already asked about reads that filter's memories, not every node of the graph.

At 1M memories the graph has 3.6M nodes, and each pass over all of them (the filter's node list, a comparison of
two masks, a copy, a dense activation vector) cost 0.2 to 2.5 ms: a search made six, which is most of why its
CPU grew 2.9x from 100k to 1M memories (docs/benchmarks.md, issue 22, section 11).
"""

from __future__ import annotations

import numpy as np

from graphmem.core import spreading_graph

NOTES = [f"Service {name} retries the {thing} through the {layer} layer after a {error} error"
         for name in ("billing", "search", "gateway", "auth", "ledger")
         for thing in ("webhook", "payment", "session")
         for layer, error in (("queue", "timeout"), ("cache", "conflict"))]
QUERIES = ["billing webhook timeout", "gateway session cache", "ledger payment conflict", "retries through queue"]


def test_a_search_of_a_filter_seen_this_second_makes_no_pass_over_every_node(service, monkeypatch):
    for note in NOTES:
        service.store(note)
    now = [service.clock.now_ms()]
    service.clock.now_ms = lambda: now[0]
    for query in QUERIES:  # the filter's mask, node list and scope are built once
        service.search(query)
        service.associate(query)
    now[0] += 1000  # a second later: the filter's mask is evaluated again, and compared with the scope's once
    service.search(QUERIES[0])
    n_nodes = service.projection.graph.n_nodes
    passes: list[str] = []
    flatnonzero, array_equal, count_nonzero = np.flatnonzero, np.array_equal, np.count_nonzero

    def counted_flatnonzero(a):
        if np.size(a) >= n_nodes:
            passes.append("flatnonzero")
        return flatnonzero(a)

    def counted_array_equal(a, b, *args, **kwargs):
        if np.size(a) >= n_nodes:
            passes.append("array_equal")
        return array_equal(a, b, *args, **kwargs)

    def counted_count_nonzero(a, *args, **kwargs):
        if np.size(a) >= n_nodes:
            passes.append("count_nonzero")
        return count_nonzero(a, *args, **kwargs)

    # A sparse vector's sum goes dense only over at most 16k nodes plus 32 a vector entry (spreading_graph._summed): a
    # bounded cost, not a pass that grows with the graph. This graph is that small; at 1M memories it never goes dense.
    monkeypatch.setattr(spreading_graph, "_DENSE_SUM_NODES", 0)
    monkeypatch.setattr(spreading_graph, "_DENSE_SUM_FACTOR", 0)
    monkeypatch.setattr(np, "count_nonzero", counted_count_nonzero)
    monkeypatch.setattr(np, "flatnonzero", counted_flatnonzero)
    monkeypatch.setattr(np, "array_equal", counted_array_equal)
    for query in QUERIES:
        assert service.search(query).hits
        assert service.associate(query).memories
    assert passes == []


def test_the_shared_mask_is_read_only_and_a_write_gives_a_new_one(service):
    service.store(NOTES[0])
    projection, view, now = service.projection, service.recall_service.view(None, None, None, None, False), 10**12
    shared = projection.visible_mask(view, now)
    assert projection.visible_mask(view, now) is shared and not shared.flags.writeable
    own = projection.visible(view, now)  # the caller's copy, which it may change
    assert own.flags.writeable and np.array_equal(own, shared)
    own[:] = False
    assert shared.any()
    assert projection.visible_nodes(view, now).tolist() == np.flatnonzero(shared).tolist()
    service.store(NOTES[1])
    service.uow.fresh(None, "")
    after = service.projection.visible_mask(view, now)
    assert after is not shared and int(after.sum()) == int(shared.sum()) + 1

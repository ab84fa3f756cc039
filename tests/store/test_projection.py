"""The projection's own structures: the seq index in its dense and sparse forms."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graphmem.store.projection import SeqIndex, VisibilityFilter

_BATCHES = st.lists(st.lists(st.tuples(st.integers(0, 200_000), st.integers(0, 10_000)), max_size=40), max_size=6)


@given(_BATCHES)
def test_the_seq_index_maps_what_a_dict_maps_whatever_its_form(batches):
    index, expected = SeqIndex(), {}
    for batch in batches:
        index.assign(np.array([seq for seq, _ in batch], dtype=np.int64),
                     np.array([node for _, node in batch], dtype=np.int64))
        expected.update(batch)
    probes = np.array([*expected, -1, 0, 5, 199_999, 10**9], dtype=np.int64)
    assert index.lookup(probes).tolist() == [expected.get(int(seq), -1) for seq in probes]
    assert len(index) == len(expected) and list(index) == sorted(expected)
    assert all(index[seq] == node and seq in index for seq, node in expected.items())
    assert -1 not in index and "7" not in index


def test_the_seqs_of_one_project_in_a_large_store_are_held_as_pairs_not_a_slot_per_store_seq():
    index = SeqIndex()
    seqs = np.arange(7, 1_000_000, 110)  # one project's memories among a million
    index.assign(seqs, np.arange(seqs.size))
    assert index.nbytes <= 12 * seqs.size
    index.assign(np.array([1_000_003]), np.array([seqs.size]))  # a write follows
    assert index[1_000_003] == seqs.size and index[seqs[-1]] == seqs.size - 1 and len(index) == seqs.size + 1


def test_the_seqs_of_a_whole_store_are_held_densely():
    index = SeqIndex()
    index.assign(np.arange(1, 100_001), np.arange(100_000))
    assert index.nbytes <= 4 * 100_001 * 2  # one int32 slot per seq (with room to grow)
    assert index.lookup(np.array([1, 100_000, 100_001])).tolist() == [0, 99_999, -1]


def test_a_server_process_imports_networkx_only_when_it_builds_a_graph():
    import subprocess
    import sys

    # networkx was 11 MiB of every server's fixed cost (docs/benchmarks.md, "The pool at 1M, again"); the
    # graph views and exports import it when they run.
    check = ("import sys; from graphmem import MemoryService; from graphmem.server import build_server; "
             "import graphmem.cli; assert 'networkx' not in sys.modules, 'imported'")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]


def test_names_packed_after_a_load_from_the_rows_find_the_same_nodes_and_rank_the_same(service):
    from graphmem.store.follow import follow
    from graphmem.store.projection import GraphProjection

    for number, text in enumerate(["Stripe webhook retries with backoff", "Redis cache timeout in the worker",
                                   "The rollback of release 4.2 broke login", "déjà vu: the webhook again"]):
        service.store(f"{text} (note {number})", project="alpha" if number % 2 else "beta")
    loaded = GraphProjection(service.settings.activation, service.settings.semantic, service.projection.embedder)
    generation = loaded.load(service.engine)
    before = (list(loaded.names), dict(loaded.concept_nodes), dict(loaded.memory_nodes),
              dict(loaded.semantic.compact), dict(loaded.keywords.vocabulary))
    ranked = loaded.keywords.rank(["webhook", "retries", "cache"], 5)
    loaded.pack_names()
    assert loaded.names.packed_count == len(loaded.names) and not loaded.concept_nodes.added
    assert not loaded.semantic.compact.added and not loaded.keywords.vocabulary.added
    assert (list(loaded.names), dict(loaded.concept_nodes), dict(loaded.memory_nodes),
            dict(loaded.semantic.compact), dict(loaded.keywords.vocabulary)) == before
    assert loaded.keywords.rank(["webhook", "retries", "cache"], 5) == ranked
    new = service.store("A new memory after the packing: webhook retries", project="alpha").id
    follow(loaded, service.engine, generation)  # the writes since land on top of the packed names
    assert loaded.names[loaded.memory_nodes[new]] == new and loaded.concept_nodes["webhook"] == before[1]["webhook"]


def test_the_filter_cache_keeps_only_the_masks_of_the_current_second_and_generation():
    from tests.store.test_node_columns import _built

    projection = _built(memories=50, concepts=100)
    everything, one_project = VisibilityFilter(), VisibilityFilter(project="p01")
    first = projection.visible(everything, 1_000)
    projection.visible(one_project, 1_500)  # the same second: both kept, for the same query's next asks
    assert len(projection._visible_cache) == 2
    assert projection.visible(everything, 2_000).tolist() == first.tolist()  # a new second: the others go
    assert len(projection._visible_cache) == 1
    projection.set_hidden(projection.names[int(np.flatnonzero(first)[0])], True)  # a new generation
    assert projection.visible(everything, 2_000).sum() == first.sum() - 1
    assert len(projection._visible_cache) == 1

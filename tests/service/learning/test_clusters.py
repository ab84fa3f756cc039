"""Clusters and near-duplicates on the bundled corpus and on tiny stores."""

from __future__ import annotations

import doctest

from graphmem.core import clustering
from tests.service.learning.conftest import near_duplicates


def test_the_clustering_docstring_examples_hold():
    assert doctest.testmod(clustering).failed == 0


def test_all_six_labelled_near_duplicates_are_found_with_at_most_six_false_pairs(sample):
    report = sample.learning.duplicates.find()
    contents = sample.repository.memories_by_id([i for p in report.pairs for i in (p.left_id, p.right_id)])
    found = [frozenset((contents[p.left_id].content, contents[p.right_id].content)) for p in report.pairs]
    truth = near_duplicates()
    assert all(pair in found for pair in truth)
    assert len([pair for pair in found if pair not in truth]) <= 6


def test_cluster_ids_are_the_same_on_every_run_and_each_cluster_explains_itself(sample):
    first = sample.learning.clusters.clusters()
    second = sample.learning.clusters.clusters()
    assert [c.id for c in first.clusters] == [c.id for c in second.clusters]
    assert first.clusters and all(c.shared_concepts and 0 < c.cohesion <= 1 for c in first.clusters)
    assert {c.action for c in first.clusters} >= {"merge", "link"}
    assert all(len(c.memory_ids) <= 12 for c in first.clusters)


def test_a_hub_concept_alone_forms_no_cluster(service):
    for number in range(40):
        service.store(f"Deploy worker number {number} to region {number * 7}", project="p")
    assert service.learning.clusters.clusters(threshold=0.3).clusters == ()


def test_two_memories_sharing_rare_concepts_cluster_and_merge(service):
    service.store("Never store access tokens in localStorage; an XSS payload can read them", kind="decision",
                  project="web")
    service.store("Access tokens must not go into localStorage because XSS can read them", kind="decision",
                  project="web")
    for number in range(10):
        service.store(f"Unrelated note {number} about lunch menus and parking spot {number}", project="web")
    report = service.learning.duplicates.find(project="web")
    assert len(report.pairs) == 1 and "local storage" in report.pairs[0].shared_concepts


def test_memories_of_different_projects_never_pair(service):
    text = "Never store access tokens in localStorage; an XSS payload can read them"
    service.store(text, project="a")
    service.store(text, project="b")
    assert service.learning.duplicates.find().pairs == ()

"""Learning measurements for scripts/bench.py: near-duplicates on data/, clustering time at scale, and
the cost of one ``skills.learn`` pattern check (bounded to the new memory's neighbourhood) against a
project-wide similarity pass on a synthetic store.

    python scripts/bench_learning.py --size 100000 --learn-size 20000
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from graphmem import MemoryService, Settings
from graphmem.core import clustering
from graphmem.service.learning.clusters import similarity_of
from graphmem.service.learning.skills import RELATED_SIMILARITY

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic

DATA = Path(__file__).resolve().parent.parent / "data"


def duplicates_on_sample() -> tuple[str, str, str]:
    """The six labelled near-duplicates of data/: how many found, how many false pairs."""
    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(db=str(Path(scratch) / "sample.db"), environ={}))
        records = [json.loads(line) for line in (DATA / "observations.jsonl").read_text(encoding="utf-8").splitlines()]
        service.store_many(records)
        labelled = json.loads((DATA / "lifecycle_pairs.json").read_text(encoding="utf-8"))["near_duplicates"]
        truth = {frozenset((p["a"], p["b"])) for p in labelled}
        report = service.learning.duplicates.find()
        content = service.repository.memories_by_id([i for p in report.pairs for i in (p.left_id, p.right_id)])
        found = {frozenset((content[p.left_id].content, content[p.right_id].content)) for p in report.pairs}
        service.close()
    return ("data/: labelled near-duplicates found / false pairs", f"{len(found & truth)} of {len(truth)} / "
            f"{len(found - truth)}", "conflict scan: 1 of 6 (issue 11)")


def synthetic_matrix(size: int, concepts_per_memory: int = 20, vocabulary: int = 400_000,
                     projects: int = 6, seed: int = 3) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
    """A memory × concept matrix with Zipf-distributed concepts (as text has), like synthetic.py's corpus."""
    rng = np.random.default_rng(seed)
    cols = np.minimum(rng.zipf(1.3, size * concepts_per_memory) - 1, vocabulary - 1)
    rows = np.repeat(np.arange(size), concepts_per_memory)
    matrix = sp.csr_array((rng.uniform(0.3, 1.0, rows.size), (rows, cols)), shape=(size, vocabulary))
    matrix.sum_duplicates()
    df = np.asarray((matrix > 0).sum(axis=0)).ravel()
    return matrix, df, rng.integers(0, projects, size)


def clustering_time(size: int) -> tuple[str, str, str]:
    matrix, df, groups = synthetic_matrix(size)
    start = time.perf_counter()
    max_df = clustering.specificity_cap(size)
    pairs = clustering.similar_pairs(matrix, df, size, groups, max_df=max_df, min_similarity=0.3)
    found = clustering.clusters_from_pairs(size, pairs, link_threshold=0.45, max_size=12)
    elapsed = time.perf_counter() - start
    return (f"{size:,} memories: clustering (s; candidate pairs, clusters)",
            f"{elapsed:.1f} ({len(pairs):,}; {len(found):,})", "target ≤ 60 s; all-pairs would be "
            f"{size * (size - 1) // 2:,} pairs")


def learn_check_time(size: int, probes: int = 20) -> tuple[str, str, str]:
    """One pattern check of ``skills.learn`` (its related memories) on a store of ``size`` synthetic
    observations: bounded to the memory's neighbourhood, against the project-wide pass it replaced."""
    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(db=str(Path(scratch) / "learn.db"), environ={}))
        records = list(synthetic.observations(size))
        ids = [r.id for r in service.store_many(records)]
        skills = service.learning.skills
        chosen = [(ids[i], records[i]["project"]) for i in range(0, size, max(1, size // probes))][:probes]
        service.uow.fresh()  # follow the import before timing
        start = time.perf_counter()
        for memory_id, project in chosen:
            skills.related(memory_id, str(project))
        bounded = (time.perf_counter() - start) / len(chosen)
        start = time.perf_counter()
        for _, project in chosen[:5]:
            similarity_of(service.uow, str(project), service.clock.now_ms(), RELATED_SIMILARITY)
        wide = (time.perf_counter() - start) / min(5, len(chosen))
        service.close()
    return (f"{size:,} memories: skills.learn pattern check (ms; bounded / project-wide)",
            f"{bounded * 1000:.1f} / {wide * 1000:.1f}", "neighbourhood only: memory's specific concepts × df")


def rows(size: int, learn_size: int) -> list[tuple[str, str, str]]:
    return [duplicates_on_sample(), clustering_time(size), learn_check_time(learn_size)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--learn-size", type=int, default=20_000)
    arguments = parser.parse_args()
    for row in rows(arguments.size, arguments.learn_size):
        print(" | ".join(row))
    sys.exit(0)

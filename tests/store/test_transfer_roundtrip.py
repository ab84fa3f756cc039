"""Export → import → export is the identity: the lossless JSONL keeps every field, and importing a
file into a store that already holds it adds nothing.

No field is exempt from the byte comparison (docs/export.md): the header carries no export time,
and concept document frequencies, which an import recomputes, are not exported.
"""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import MemoryService, Settings
from graphmem.store.tables import SCHEMA_VERSION
from graphmem.store.transfer import FORMAT
from tests.strategies import export_files

HEADER = {"type": "header", "format": FORMAT, "schema_version": SCHEMA_VERSION}
_WORDS = ("redis", "session", "storage", "webhook", "retry", "idempotency", "key", "cache", "deploy",
          "worker", "rollback", "migration", "token", "queue", "lag", "order", "stripe", "kubectl", "drift")
PROPERTY = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fresh(extractor) -> MemoryService:
    return MemoryService(Settings.load(db=":memory:", environ={}), extractor=extractor)


def exported(service: MemoryService) -> str:
    stream = io.StringIO()
    service.export_jsonl(stream)
    return stream.getvalue()


def identity(record: dict) -> tuple:
    """What names a record in a file: its type and id, key or key pair."""
    return record["type"], record.get("id") or record.get("key") or (record.get("a"), record.get("b"))


@PROPERTY
@given(records=export_files())
def test_an_imported_file_exports_as_the_same_bytes_and_importing_it_again_is_a_no_op(extractor, records):
    lines = [json.dumps(HEADER), *(json.dumps(record) for record in records)]
    first = fresh(extractor)
    first.import_jsonl(lines)
    original = exported(first)
    second = fresh(extractor)
    second.import_jsonl(original.splitlines())
    assert exported(second) == original
    again = second.import_jsonl(original.splitlines())  # into a store that holds it already
    assert sum(again.added.values()) == 0 and exported(second) == original
    by_identity = {identity(record): record for record in map(json.loads, original.splitlines())}
    for record in records:  # every drawn field came through unchanged
        assert by_identity[identity(record)] | record == by_identity[identity(record)], record["type"]
    first.close()
    second.close()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=8).map(" ".join),
                      min_size=1, max_size=6),
       projects=st.lists(st.sampled_from([None, "web", "api"]), min_size=6, max_size=6),
       links=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5),
                                st.sampled_from(["supports", "related"])), max_size=4))
def test_a_store_written_by_the_service_round_trips_with_its_concepts_and_relations(
        extractor, texts, projects, links):
    service = fresh(extractor)
    stored = [service.store(text, project=projects[n]) for n, text in enumerate(texts)]
    ids = [result.id for result in stored]
    ends = [(ids[a % len(ids)], ids[b % len(ids)], kind) for a, b, kind in links]
    relations = {(source, target, kind) for source, target, kind in ends if source != target}
    service.import_jsonl([json.dumps(HEADER), *(json.dumps(
        {"type": "relation", "id": f"rel_{n:020d}", "source_id": source, "target_id": target,
         "relation_type": kind, "confidence": 0.5, "status": "judged", "created_at": 1_700_000_000_000})
        for n, (source, target, kind) in enumerate(sorted(relations)))])
    original = exported(service)
    copy = fresh(extractor)
    copy.import_jsonl(original.splitlines())
    assert exported(copy) == original
    assert copy.status()["concept_edges"] == service.status()["concept_edges"]
    service.close()
    copy.close()

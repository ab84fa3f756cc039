"""Kyew's learn fields (outcome, task_type, tools_used) through a real MCP client: stored as columns,
validated, and filtering search, associate and export."""

from __future__ import annotations

import io
import json

import pytest

from graphmem import MemoryService, Settings
from graphmem.store.changes import current_generation
from graphmem.store.engine import snapshot
from graphmem.store.projection import GraphProjection
from graphmem.store.projection_snapshot import load_snapshot, save_snapshot
from tests.server.test_tools import call, refused

pytestmark = pytest.mark.anyio

DEPLOYS = [
    ("Worker rollout with kubectl rollout restart succeeded after npm run build:worker.", "success",
     ["kubectl", "npm"]),
    ("Worker rollout with kubectl failed: the stale worker bundle shipped again.", "failure", ["kubectl"]),
    ("Worker rollout partly done: kubectl restarted two of three worker pods.", "partial", ["kubectl", "helm"]),
]


async def store_deploys(client) -> list[str]:
    ids = []
    for text, outcome, tools in DEPLOYS:
        stored = await call(client, "memory_store", content=text, project="infra", outcome=outcome,
                            task_type="deploy", tools_used=tools)
        ids.append(stored["id"])
    await call(client, "memory_store", content="Worker rollout notes: kubectl is the tool we use.", project="infra")
    return ids


async def test_store_keeps_the_fields_and_open_shows_them(client):
    ids = await store_deploys(client)
    opened = await call(client, "memory_open", ids=[ids[0]])
    memory = opened["memories"][0]
    assert memory["outcome"] == "success" and memory["task_type"] == "deploy"
    assert memory["tools_used"] == ["kubectl", "npm"]


async def test_search_and_associate_filter_by_outcome_task_type_and_tools(client):
    ids = await store_deploys(client)
    failed = await call(client, "memory_search", query="worker rollout kubectl", outcome="failure")
    assert [hit["id"] for hit in failed["hits"]] == [ids[1]]
    deploys = await call(client, "memory_search", query="worker rollout kubectl", task_type="deploy")
    assert sorted(hit["id"] for hit in deploys["hits"]) == sorted(ids)
    both = await call(client, "memory_search", query="worker rollout", tools_used=["kubectl", "npm"])
    assert [hit["id"] for hit in both["hits"]] == [ids[0]]
    associated = await call(client, "memory_associate", query="worker rollout kubectl", tools_used=["helm"])
    assert [m["id"] for m in associated["memories"]] == [ids[2]]
    partial = await call(client, "memory_associate", query="worker rollout", outcome="partial",
                         task_type="deploy")
    assert [m["id"] for m in partial["memories"]] == [ids[2]]
    none = await call(client, "memory_search", query="worker rollout", task_type="review")
    assert none["hits"] == []


async def test_export_scope_filters_by_the_fields(client):
    ids = await store_deploys(client)
    page = await call(client, "memory_export", outcome="success")
    memories = [node for node in page["nodes"] if node.get("node_type") == "memory"]
    assert [node["id"] for node in memories] == [ids[0]]
    assert memories[0]["outcome"] == "success" and memories[0]["tools_used"] == "kubectl; npm"
    tools = await call(client, "memory_export", query="worker rollout", tools_used=["kubectl"], task_type="deploy")
    assert {node["id"] for node in tools["nodes"] if node.get("node_type") == "memory"} == set(ids)


async def test_bad_values_are_refused(client):
    assert "outcome" in await refused(client, "memory_store", content="x happened", outcome="great")
    assert "tools_used" in await refused(client, "memory_store", content="y happened", tools_used=["x" * 101])
    assert "outcome" in await refused(client, "memory_search", query="x", outcome="won")


def test_store_many_validates_and_the_jsonl_round_trip_carries_the_fields(service: MemoryService, new_store,
                                                                          extractor):
    results = service.store_many([{"content": "Rolled back the worker with kubectl rollout undo.",
                                   "outcome": "Success", "task_type": " rollback ", "tools_used": ["kubectl"]}])
    memory = service.repository.memories_by_id([results[0].id])[results[0].id]
    assert (memory.outcome, memory.task_type, memory.tools_used) == ("success", "rollback", ("kubectl",))
    with pytest.raises(Exception, match="record 1: outcome"):
        service.store_many([{"content": "z", "outcome": "meh"}])
    stream = io.StringIO()
    service.export_jsonl(stream)
    record = next(json.loads(line) for line in stream.getvalue().splitlines() if '"memory"' in line)
    assert (record["outcome"], record["task_type"], record["tools_used"]) == ("success", "rollback", ["kubectl"])
    other = MemoryService(Settings.load(db=new_store("other.db"), environ={}), extractor=extractor)
    other.import_jsonl(stream.getvalue().splitlines())
    again = io.StringIO()
    other.export_jsonl(again)
    assert again.getvalue() == stream.getvalue()
    assert [h.id for h in other.search("worker rollback", outcome="success").hits] == [results[0].id]
    other.close()


def test_the_fields_survive_a_reload_a_snapshot_and_another_process_writing(service: MemoryService, settings,
                                                                             extractor, tmp_path):
    first = service.store("Deploy the API with helm upgrade --atomic.", outcome="success", task_type="deploy",
                          tools_used=["helm"]).id
    service.store("Deploy the API by hand with kubectl apply.", outcome="failure", task_type="deploy",
                  tools_used=["kubectl"])
    service.projection.reload(service.engine)
    assert [h.id for h in service.search("deploy API", tools_used=["helm"]).hits] == [first]
    with snapshot(service.engine) as connection:
        generation = current_generation(connection)
    path = tmp_path / "projection.npz"
    save_snapshot(service.projection, path, service.engine, generation)
    restored = GraphProjection(service.projection.settings, service.settings.semantic, service.projection.embedder)
    assert load_snapshot(restored, path, service.engine, generation) == generation
    assert restored.tools[restored.memory_nodes[first]] == frozenset({"helm"})
    for name in ("outcome", "task_type"):
        assert restored.col(name).tolist() == service.projection.col(name).tolist()
    assert restored._codes == service.projection._codes
    writer = MemoryService(settings, extractor=extractor)  # another process on the same store
    later = writer.store("Deploy the API with helm rollback after a failed upgrade.", outcome="partial",
                         task_type="rollback", tools_used=["helm"]).id
    writer.close()
    assert [h.id for h in service.search("deploy API helm", task_type="rollback").hits] == [later]


async def make_skill(client) -> str:
    from tests.server.test_learning_tools import DEPLOY

    replies = [await call(client, "memory_learn", observation=text, domain="infra", kind="pattern")
               for text in DEPLOY]
    return str(replies[3]["skill_id"])


async def test_search_and_associate_include_skills_at_each_detail_level(client):
    skill_id = await make_skill(client)
    plain = await call(client, "memory_search", query="worker deploy rollout", project="infra")
    assert "skills" not in plain and plain["hits"]  # the default stays memories only
    both = await call(client, "memory_search", query="worker deploy rollout", project="infra", include="all")
    assert both["hits"] and [s["id"] for s in both["skills"]] == [skill_id]
    summary = both["skills"][0]
    assert summary["trigger"] and summary["step_count"] == 4 and "steps" not in summary
    only = await call(client, "memory_search", query="worker deploy", include="skills", skill_detail="name_only")
    assert only["hits"] == [] and set(only["skills"][0]) == {"id", "name", "status", "score"}
    full = await call(client, "memory_associate", query="kubectl rollout of the worker", include="all",
                      skill_detail="full")
    assert full["memories"] and len(full["skills"][0]["steps"]) == 4
    assert len(full["skills"][0]["source_ids"]) == 4 and full["skills"][0]["version"] == 1
    skills_only = await call(client, "memory_associate", query="worker rollout", include="skills")
    assert skills_only["memories"] == [] and skills_only["skills"][0]["id"] == skill_id
    unrelated = await call(client, "memory_search", query="postgres vacuum", include="skills")
    assert "skills" not in unrelated
    await call(client, "memory_skill_transition", skill_id=skill_id, status="rejected")
    rejected = await call(client, "memory_search", query="worker deploy", include="skills")
    assert "skills" not in rejected  # rejected and deprecated skills are not offered
    assert "include" in await refused(client, "memory_search", query="x", include="everything")

"""Lifecycle use cases: reinforcement, gc and prune, forget and correct with history, review,
promotion with its vault, decay in ranking, review blending and persistent metrics."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import MemoryService, Settings
from graphmem.errors import ConflictError, InvalidInput, NotFound
from graphmem.store.convert import to_ms
from tests.conftest import ORDERS, WEBHOOK

DAY_MS = 86_400_000


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


def old(service: MemoryService, content: str, days: float, kind: str = "note", **fields: object) -> str:
    """A memory created (and last used) ``days`` ago."""
    return service.store_many([{"content": content, "kind": kind, "created_at": ago(days), **fields}])[0].id


def make(new_store: Callable[[str], str], extractor, name: str = "other.db", **sections: dict) -> MemoryService:
    """Another fresh store on the test's backend, with its own settings sections."""
    return MemoryService(Settings.load(db=new_store(name), environ={}, **sections), extractor=extractor)


def counts(service: MemoryService) -> dict:
    status = service.status()
    return {key: status[key] for key in ("memories", "by_status", "relations", "concepts", "mentions")}


# -- reinforcement -----------------------------------------------------------------------------------
def test_touch_raises_use_count_and_last_used_and_the_boost_is_capped(service):
    memory = old(service, WEBHOOK, days=3)
    report = service.edits.touch([memory])
    item = report.items[0]
    assert item.use_count == 1 and item.strength == 1.0 and item.score > float(item.reasons[0].split(": ")[1])
    for _ in range(15):
        report = service.edits.touch([memory], boost=True)
    assert report.items[0].strength == 2.0 and report.items[0].use_count == 16
    assert service.open([memory]).memories[0].use_count == 16


def test_touch_of_an_unknown_id_changes_nothing(service):
    memory = service.store(WEBHOOK).id
    with pytest.raises(NotFound):
        service.edits.touch([memory, "mem_missing"])
    assert service.open([memory]).memories[0].use_count == 0


# -- gc and prune ----------------------------------------------------------------------------------------
def test_gc_dry_run_lists_faded_memories_and_changes_nothing_then_apply_archives_them(service):
    faded = old(service, WEBHOOK, days=60)
    kept = service.store(ORDERS).id
    decision = old(service, "Use Redis for session storage", days=60, kind="decision")
    before = counts(service)
    dry = service.lifecycle.gc()
    assert dry.dry_run and [item.id for item in dry.items] == [faded] and dry.items[0].score < 0.05
    assert counts(service) == before
    applied = service.lifecycle.gc(dry_run=False)
    assert applied.count == 1 and service.open([faded]).memories[0].status == "archived"
    statuses = {m.id: m.status for m in service.open([kept, decision]).memories}
    assert statuses == {kept: "active", decision: "active"}
    assert faded not in {hit.id for hit in service.search("webhook retries", limit=20).hits}


def test_gc_delete_removes_rows_relations_and_graph_nodes(service):
    faded = old(service, WEBHOOK, days=60)
    service.store(ORDERS)
    service.lifecycle.gc(dry_run=False, mode="delete")
    assert service.open([faded]).not_found == (faded,)
    assert faded not in service.projection.memory_nodes
    assert {h.id for h in service.search("idempotency key").hits} and service.status()["memories"] == 1


def test_gc_respects_its_limit_and_refuses_a_bad_mode(service):
    for n in range(3):
        old(service, f"{WEBHOOK} number {n}", days=70 + n)
    assert service.lifecycle.gc(limit=2).count == 2
    with pytest.raises(InvalidInput, match="mode"):
        service.lifecycle.gc(mode="shred")


def test_prune_dry_run_then_apply_and_protected_kinds_survive(service):
    stale_note = old(service, WEBHOOK, days=100)
    stale_decision = old(service, "Use Redis for session storage", days=100, kind="decision")
    recent = old(service, ORDERS, days=10)
    before = counts(service)
    dry = service.lifecycle.prune("90d")
    assert [item.id for item in dry.items] == [stale_note] and counts(service) == before
    service.lifecycle.prune("90d", dry_run=False)
    statuses = {m.id: m.status for m in service.open([stale_note, stale_decision, recent]).memories}
    assert statuses == {stale_note: "archived", stale_decision: "active", recent: "active"}
    unprotected = service.lifecycle.prune("2w", protect=[], dry_run=False)
    assert {item.id for item in unprotected.items} == {stale_decision}


def test_prune_counts_age_from_the_last_use(service):
    memory = old(service, WEBHOOK, days=100)
    service.edits.touch([memory])
    assert service.lifecycle.prune("90d").items == ()


def test_prune_delete_reaches_archived_memories(service):
    memory = old(service, WEBHOOK, days=200)
    service.lifecycle.prune("6m", dry_run=False)
    assert service.lifecycle.prune("6m", dry_run=False, mode="delete").count == 1
    assert service.open([memory]).not_found == (memory,)


@pytest.mark.parametrize("duration", ["90", "3x", "-2d"])
def test_prune_refuses_a_bad_duration_and_changes_nothing(service, duration):
    old(service, WEBHOOK, days=100)
    before = counts(service)
    with pytest.raises(InvalidInput, match="90d, 2w"):
        service.lifecycle.prune(duration, dry_run=False)
    assert counts(service) == before


# -- forget and restore ----------------------------------------------------------------------------------
def test_forget_hides_a_memory_from_recall_and_as_of_before_the_forget_shows_it(service):
    memory = service.store(WEBHOOK).id
    control = service.store("Webhook retries arrive out of order").id
    before = datetime.now(UTC)
    report = service.edits.forget(memory, reason="obsolete")
    assert report.items[0].status == "forgotten" and report.items[0].valid_to is not None
    assert [h.id for h in service.search("webhook retries").hits] == [control]
    assert [m.id for m in service.associate("webhook retries").memories] == [control]
    assert memory in {h.id for h in service.search("webhook retries", as_of=before.isoformat()).hits}
    later = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    assert memory not in {h.id for h in service.search("webhook retries", as_of=later).hits}


def test_forget_with_a_successor_links_them_and_restore_brings_the_memory_back(service):
    memory = service.store(WEBHOOK).id
    successor = service.store(ORDERS).id
    service.edits.forget(memory, superseded_by=successor)
    assert service.open([memory]).memories[0].superseded_by == successor
    assert [item.id for item in service.history.of(successor).memories] == [memory, successor]
    restored = service.edits.restore(memory).items[0]
    assert restored.status == "active" and restored.valid_to is None
    with pytest.raises(ConflictError):
        service.edits.restore(successor)


def test_forget_with_an_unknown_successor_changes_nothing(service):
    memory = service.store(WEBHOOK).id
    with pytest.raises(NotFound):
        service.edits.forget(memory, superseded_by="mem_nope")
    assert service.open([memory]).memories[0].status == "active"


# -- correction with lineage -------------------------------------------------------------------------------
def test_correct_supersedes_the_original_and_history_shows_both_versions(service):
    original = service.store("Sessions use JWT cookies with a 7-day expiry", kind="decision", project="web",
                             topic_key="web/session-storage").id
    before = datetime.now(UTC).isoformat()
    report = service.edits.correct(original, "Sessions live in Redis with a 30-minute sliding TTL",
                                       reason="JWT cookies could not be revoked")
    new = report.created_id
    assert report.relation_id and new != original
    history = service.history.of(original).memories
    assert [(v.id, v.current) for v in history] == [(original, False), (new, True)]
    assert history[0].superseded_by == new and history[1].parent_id == original
    assert history[1].kind == "decision"
    assert service.resolve(["web/session-storage"]) == {"web/session-storage": new}
    assert [h.id for h in service.search("session cookies expiry redis").hits] == [new]
    assert original in {h.id for h in service.search("JWT cookies", as_of=before).hits}
    relation = service.open([new]).relations[0]
    assert (relation.type, relation.source_id, relation.target_id, relation.status) == (
        "supersedes", new, original, "judged")


def test_a_superseded_version_cannot_be_corrected_again_and_a_repeat_is_refused(service):
    original = service.store(WEBHOOK).id
    new = service.edits.correct(original, ORDERS).created_id
    before = counts(service)
    with pytest.raises(ConflictError, match=new):
        service.edits.correct(original, "Another wording entirely")
    with pytest.raises(ConflictError, match="repeats"):
        service.edits.correct(new, ORDERS)
    with pytest.raises(InvalidInput):
        service.edits.correct(new, "   ")
    assert counts(service) == before


# -- review ------------------------------------------------------------------------------------------------
def test_review_accepts_iso_and_epoch_dates_and_lists_overdue_memories_with_days(service):
    now = service.lifecycle.now_ms()
    three_days_ago = datetime.fromtimestamp((now - 3 * DAY_MS) / 1000, UTC).isoformat()
    iso = service.store(WEBHOOK, review_after=three_days_ago).id
    epoch = service.store(ORDERS, review_after=now - DAY_MS).id
    service.store("Deploy with kubectl rollout", review_after=now + 5 * DAY_MS)
    service.clock.now_ms = lambda: now
    queue = service.lifecycle.review_queue()
    assert [(item.id, item.days_overdue) for item in queue.items] == [(iso, 3.0), (epoch, 1.0)]
    assert queue.total == 2
    with pytest.raises(InvalidInput, match="ISO 8601"):
        service.store("bad date", review_after="next tuesday")


def test_mark_reviewed_clears_or_reschedules_with_a_growing_interval(service):
    now = service.lifecycle.now_ms()
    memory = service.store(WEBHOOK, review_after=now - DAY_MS).id
    service.clock.now_ms = lambda: now
    intervals = []
    for _ in range(3):
        item = service.lifecycle.mark_reviewed(memory, reschedule=True).items[0]
        intervals.append(round((to_ms(datetime.fromisoformat(item.review_after)) - now) / DAY_MS))
    assert intervals == [7, 14, 28]
    assert service.lifecycle.review_queue().items == ()
    cleared = service.lifecycle.mark_reviewed(memory).items[0]
    assert cleared.review_after is None and cleared.use_count == 4
    exact = service.lifecycle.mark_reviewed(memory, review_after="2031-01-01T00:00:00Z").items[0]
    assert exact.review_after.startswith("2031-01-01")


# -- promotion ---------------------------------------------------------------------------------------------
def used_over_days(service: MemoryService, content: str, uses: int = 5) -> str:
    memory = old(service, content, days=3)
    for _ in range(uses):
        service.edits.touch([memory])
    return memory


def test_promotion_criteria_need_repeated_use_over_time_not_recency(service):
    fresh = service.store(ORDERS).id
    burst = service.store("Deploy the billing worker with kubectl rollout").id
    for _ in range(6):
        service.edits.touch([burst])
    earned = used_over_days(service, WEBHOOK)
    auto = service.lifecycle.promote()
    assert auto.dry_run and [item.id for item in auto.items] == [earned] and auto.items[0].eligible
    named = {item.id: item for item in service.lifecycle.promote([fresh, burst]).items}
    assert not named[fresh].eligible and any("used 0 times" in r for r in named[fresh].reasons)
    assert not named[burst].eligible and any("span" in r for r in named[burst].reasons)
    assert service.open([earned]).memories[0].status == "active"


def test_promoted_memories_stay_searchable_on_the_same_score_scale(service):
    earned = used_over_days(service, WEBHOOK)
    service.store("Webhook handlers must return 200 quickly")
    service.lifecycle.promote(dry_run=False)
    hits = {hit.id: hit for hit in service.search("webhook").hits}
    assert hits[earned].status == "promoted" and len(hits) == 2
    forced = service.lifecycle.promote([service.store(ORDERS).id], dry_run=False, force=True).items[0]
    assert forced.status == "promoted" and forced.eligible is False


def test_promotion_writes_markdown_with_frontmatter_into_the_configured_vault_folder(new_store, tmp_path, extractor):
    vault = tmp_path / "vault"
    vault.mkdir()
    service = make(new_store, extractor,
                   lifecycle={"vault_path": str(vault), "vault_folder": "memories/graphmem"})
    earned = used_over_days(service, WEBHOOK, uses=5)
    item = service.lifecycle.promote(dry_run=False, export=True).items[0]
    note = Path(item.vault_path)
    assert note.parent == vault / "memories" / "graphmem" and note.name.endswith(f"{earned}.md")
    text = note.read_text(encoding="utf-8")
    assert text.startswith("---\n") and f'id: "{earned}"' in text and "use_count: 5" in text
    assert "[[idempotency key]]" in text
    assert service.open([earned]).memories[0].meta["vault_path"] == str(note)
    service.close()


@pytest.mark.parametrize("folder", ["../outside", "/tmp/elsewhere", "inside/../../outside"])
def test_a_vault_path_that_escapes_the_vault_is_refused_and_nothing_is_promoted(new_store, tmp_path, extractor, folder):
    vault = tmp_path / "vault"
    vault.mkdir()
    service = make(new_store, extractor, lifecycle={"vault_path": str(vault)})
    earned = used_over_days(service, WEBHOOK)
    with pytest.raises(InvalidInput, match="outside the vault"):
        service.lifecycle.promote(dry_run=False, export=True, folder=folder)
    assert service.open([earned]).memories[0].status == "active"
    assert not (tmp_path / "outside").exists()
    service.close()


def test_a_symlink_inside_the_vault_pointing_outside_is_refused(new_store, tmp_path, extractor):
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    vault.mkdir()
    outside.mkdir()
    (vault / "graphmem").symlink_to(outside, target_is_directory=True)
    service = make(new_store, extractor, lifecycle={"vault_path": str(vault)})
    used_over_days(service, WEBHOOK)
    with pytest.raises(InvalidInput, match="outside the vault"):
        service.lifecycle.promote(dry_run=False, export=True)
    assert list(outside.iterdir()) == []
    service.close()


def test_export_without_a_configured_vault_is_refused(service):
    used_over_days(service, WEBHOOK)
    with pytest.raises(InvalidInput, match="vault_path"):
        service.lifecycle.promote(dry_run=False, export=True)


# -- decay in ranking --------------------------------------------------------------------------------------
def test_the_ranking_weight_puts_a_faded_memory_behind_an_equally_relevant_fresh_one(new_store, extractor):
    texts = ("Webhook retries need an idempotency key", "Webhook retries need a dedupe key")
    plain = make(new_store, extractor, "plain.db")
    weighted = make(new_store, extractor, "weighted.db", decay={"ranking_weight": 1.0})
    orders = {}
    for name, service in (("plain", plain), ("weighted", weighted)):
        faded = old(service, texts[0], days=30)
        fresh = service.store(texts[1]).id
        orders[name] = ([h.id for h in service.search("webhook retries key").hits],
                        [m.id for m in service.associate("webhook retries key").memories], faded, fresh)
        service.close()
    search, associate, faded, fresh = orders["weighted"]
    assert search[0] == fresh and associate[0] == fresh
    plain_search, _, plain_faded, _ = orders["plain"]
    assert plain_search[0] == plain_faded  # without the weight, the older memory wins the tie (lower seq)


def test_search_blends_in_relevant_danger_zone_memories_and_marks_them(new_store, extractor):
    def fill(service: MemoryService) -> str:
        for n in range(4):
            service.store(f"Webhook retries {n} need an idempotency key on every handler")
        return old(service, "An old note about webhook payload signatures and secret rotation", days=10)

    blended = make(new_store, extractor, "blend.db", decay={"review_blend": 0.34})
    fading = fill(blended)
    hits = blended.search("webhook retries idempotency", limit=3).hits
    assert hits[-1].id == fading and hits[-1].review_candidate and 0.15 <= hits[-1].decay_score <= 0.35
    assert not any(hit.review_candidate for hit in hits[:-1])
    assert blended.search("webhook retries idempotency", limit=3, offset=3).hits[0].id != fading
    plain = make(new_store, extractor, "noblend.db", decay={"review_blend": 0.0})
    assert fill(plain) not in {hit.id for hit in plain.search("webhook retries idempotency", limit=3).hits}
    blended.close()
    plain.close()


def test_recall_reinforces_what_it_returns_only_when_configured(new_store, service, extractor):
    memory = service.store(WEBHOOK).id
    service.search("webhook")
    service.associate("webhook")
    assert service.open([memory]).memories[0].use_count == 0
    reinforcing = make(new_store, extractor, "reinforce.db", decay={"reinforce_on_recall": True})
    memory = reinforcing.store(WEBHOOK).id
    reinforcing.search("webhook")
    reinforcing.associate("webhook")
    assert reinforcing.open([memory]).memories[0].use_count == 2
    reinforcing.close()


# -- metrics and export ------------------------------------------------------------------------------------
def test_metrics_persist_across_restarts_and_reset(settings, extractor):
    first = MemoryService(settings, extractor=extractor)
    first.store(WEBHOOK)
    first.search("webhook")
    with pytest.raises(InvalidInput):
        first.search("")
    first.close()
    second = MemoryService(settings, extractor=extractor)
    metrics = {m.operation: m for m in second.lifecycle.metrics_report().metrics}
    assert metrics["search"].calls == 2 and metrics["search"].errors == 1 and metrics["store"].calls == 1
    assert metrics["search"].max_ms >= metrics["search"].p50_ms > 0
    second.lifecycle.metrics_report(reset=True)
    assert second.lifecycle.metrics_report().metrics == ()
    second.close()


def test_saved_prompts_survive_an_export_import_round_trip(new_store, service, extractor):
    service.store(WEBHOOK, project="payments")
    prompt = "Why do webhook handlers need idempotency keys?"
    service.sessions.save_prompt(prompt, project="payments")
    stream = io.StringIO()
    service.export_jsonl(stream)
    target = make(new_store, extractor, "target.db")
    report = target.import_jsonl(stream.getvalue().splitlines())
    assert report.added["prompts"] == 1
    prompts = target.sessions.timeline().timeline[0].prompts
    assert [p.content for p in prompts] == [prompt]
    again = io.StringIO()
    target.export_jsonl(again)
    assert again.getvalue() == stream.getvalue()
    target.close()


def test_force_overrides_the_usage_criteria_but_never_promotes_an_outdated_version(new_store, tmp_path, extractor):
    vault = tmp_path / "vault"
    vault.mkdir()
    service = make(new_store, extractor, lifecycle={"vault_path": str(vault)})
    original = used_over_days(service, WEBHOOK, uses=5)
    newer = service.edits.correct(original, ORDERS).created_id
    duplicate = service.store("Kafka consumers commit offsets after each processed batch").id
    kept = service.store("Kafka consumers commit offsets once every batch is processed").id
    service.relations.relate(duplicate, kept, "duplicate_of")
    report = service.lifecycle.promote([original, duplicate, newer], dry_run=False, force=True, export=True)
    assert report.count == 1 and report.message.startswith("promoted 1 of 3")
    items = {item.id: item for item in report.items}
    assert items[original].status == "active" and items[original].vault_path is None
    assert any(f"superseded by {newer}" in reason for reason in items[original].reasons)
    assert any("duplicate_of" in reason for reason in items[duplicate].reasons)
    assert items[newer].status == "promoted"
    assert [note.name for note in vault.rglob("*.md")] == [Path(items[newer].vault_path).name]
    assert [item.id for item in service.lifecycle.promote(force=True).items] == []  # auto never picks it
    service.close()


def test_one_history_follows_corrections_relations_and_forgets_with_a_successor(service):
    original = service.store("Sessions use JWT cookies with a 7-day expiry", kind="decision").id
    corrected = service.edits.correct(original, "Sessions live in Redis with a 30-minute TTL").created_id
    successor = service.store("Sessions live in Redis with a sliding 30-minute TTL and revocation").id
    service.edits.forget(corrected, superseded_by=successor)
    assert not hasattr(service.lifecycle, "history")  # one history of a memory: service.history
    for ref in (original, corrected, successor):
        history = service.history.of(ref)
        assert [(v.id, v.current) for v in history.memories] == [
            (original, False), (corrected, False), (successor, True)]
        assert history.current_ids == (successor,)
        assert [(e.old_id, e.new_id, e.via) for e in history.events] == [
            (original, corrected, "supersedes"), (corrected, successor, "superseded_by")]
    assert history.memories[1].parent_id == original and history.memories[0].superseded_by == corrected

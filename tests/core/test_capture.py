"""Capture turns a realistic session note into typed observations and says what it skipped and why."""

from __future__ import annotations

from graphmem.core.capture import parse_capture, section_kind

NOTE = """\
# Session 2026-03-01: checkout service

Worked on the webhook retries today. Context for future me.

## Decisions
- Use Redis for session storage instead of JWT cookies: it supports revocation
  and multi-device logout (continuation of the same decision).
- [x] Keep the Stripe webhook secret in Vault
* ok

## Key Learnings
1. Stripe retries webhook deliveries for three days, so handlers need an idempotency key
2) The `orders` table needs a unique index on `idempotency_key`
   - otherwise two retries race and both insert
3. Stripe retries webhook deliveries for three days, so handlers need an idempotency key

## Errors:
- `psycopg.errors.UniqueViolation` on concurrent retries; fixed by ON CONFLICT DO NOTHING

```python
- this bullet is code, not an item
```

## Next steps
- Write the runbook

### observations
+ The staging database is 3x slower than production on cold caches
Some loose paragraph under observations.

## **Patterns**
- Wrap every external call in a timeout
"""


def test_a_realistic_note_becomes_typed_observations_in_order():
    result = parse_capture(NOTE)
    assert [(item.kind, item.line) for item in result.items] == [
        ("decision", 6), ("decision", 8), ("pattern", 12), ("pattern", 13), ("error", 18), ("note", 28),
        ("pattern", 32)]
    assert result.items[0].content.endswith("and multi-device logout (continuation of the same decision).")
    assert result.items[1].content == "Keep the Stripe webhook secret in Vault"
    assert result.items[3].content.endswith("; otherwise two retries race and both insert")
    assert result.sections == ("Decisions", "Key Learnings", "Errors:", "observations", "**Patterns**")


def test_every_skipped_line_has_a_reason():
    reasons = {skip.line: skip.reason for skip in parse_capture(NOTE).skipped}
    assert reasons == {
        3: "not under a capture heading",
        9: "shorter than 5 characters",
        15: "repeats the item on line 12",
        20: "code block (not an item)",
        25: "heading 'Next steps' is not a capture section",
        29: "not a bullet or numbered item",
    }


def test_section_names_are_matched_without_case_colons_or_emphasis():
    assert [section_kind(h) for h in ("DECISIONS", "Key Changes:", "`Errors`", "Known Errors & Fixes",
                                      "Learnings", "Architecture Notes", "Todo")] == [
        "decision", "pattern", "error", "error", "pattern", "architecture", None]


def test_a_bullet_before_any_heading_and_an_empty_note():
    result = parse_capture("- a bullet with no heading above it\n")
    assert result.items == () and result.skipped[0].reason == "no heading above it"
    assert parse_capture("").items == () and parse_capture("").skipped == ()

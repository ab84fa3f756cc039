"""Memories: validation, drafts, the store use cases, edits, topic keys and upserts, capture, time views, and
the steps every write of memories shares (session attach, relation effects on validity)."""

"""Memories: validation, drafts, the store use cases, topic-key upserts, capture and time views."""

"""The lifecycle of memories over time: decay, gc and prune, review, promotion and the vault, metrics, and
reinforcement after recall (the edits of one memory live in ``memories/edits.py``)."""

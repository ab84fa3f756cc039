"""Maintenance: lint finds what breaks the store's invariants and repairs what is safe; redaction rewrites the
secrets an existing store still holds (``graphmem redact``)."""

"""Maintenance: lint finds what breaks the store's invariants and repairs what is safe."""

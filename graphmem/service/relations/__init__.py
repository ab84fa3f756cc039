"""Typed relations between memories, conflict scans and temporal facts."""

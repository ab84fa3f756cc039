"""Persistence: the only package that imports sqlmodel. It returns core values, never rows."""

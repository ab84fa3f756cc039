"""Pydantic output models, one module per feature; they mirror the service's dataclasses."""

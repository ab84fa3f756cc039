"""Alembic's environment: run the revisions on the connection ``migrations.upgrade`` hands over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from graphmem.store import tables  # noqa: F401  (registers every table on SQLModel.metadata)

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=SQLModel.metadata)
with context.begin_transaction():
    context.run_migrations()

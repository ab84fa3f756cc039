"""Schema version 4: the SQLite full-text index carries each memory's project as a token (``scope``).

A project-filtered keyword match then reads only that project's postings, so its cost does not grow
with the other projects in the store. The index is rebuilt from ``memory``. PostgreSQL keeps its
tsvector column and filters on ``project_key`` in the same query: nothing to change there.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

from graphmem.store.fulltext import rebuild_sqlite_index

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    if connection.dialect.name == "sqlite":
        rebuild_sqlite_index(connection)
    op.execute("UPDATE graphmem_meta SET value = '4' WHERE key = 'schema_version'")


def downgrade() -> None:
    raise NotImplementedError("graphmem does not downgrade a store: restore its backup instead")

"""Schema version 3: skills (with their versions), brief counters, and outcome/task_type/tools_used on memories.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

from graphmem.store.learning_store import upgrade_learning

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    upgrade_learning(op.get_bind())
    op.execute("UPDATE graphmem_meta SET value = '3' WHERE key = 'schema_version'")


def downgrade() -> None:
    raise NotImplementedError("graphmem does not downgrade a store: restore its backup instead")

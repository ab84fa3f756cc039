"""Schema version 5: a PostgreSQL store keeps no full-text column or index.

Since the keyword leg moved into the projection (``store/keyword_index.py``), no query of graphmem reads the
generated ``tsvector`` column ``memory.fts`` or its GIN index ``ix_memory_fts``, yet PostgreSQL computed the one
and maintained the other on every insert: 44 µs of the server's CPU per observation, and +12 % ingest wall to
20k without them (docs/benchmarks.md, issue 22). The reference BM25 the benches compare the keyword index with
builds them on its own databases (``fulltext.ensure_reference_index``). SQLite's FTS5 index stays: the lint
checks it and the redaction pass rewrites it, and its trigger costs nothing measurable. A SQLite store only
moves to version 5.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        # Both are catalog changes: dropping a column marks it dropped, it rewrites no row.
        op.execute("DROP INDEX IF EXISTS ix_memory_fts")
        op.execute("ALTER TABLE memory DROP COLUMN IF EXISTS fts")
    op.execute("UPDATE graphmem_meta SET value = '5' WHERE key = 'schema_version'")


def downgrade() -> None:
    raise NotImplementedError("graphmem does not downgrade a store: restore its backup instead")

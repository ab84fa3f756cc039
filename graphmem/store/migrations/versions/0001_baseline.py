"""Baseline: schema version 1, the tables graphmem wrote before it used migrations.

Revision ID: 0001
Revises:
Create Date: 2026-12-01

A frozen copy of version 1's tables (never import ``tables.py`` here: it moves on). Stores of version 1 are
stamped with this revision without running it; it runs only to build a version 1 store from nothing, which
is how the tests write a store of today's schema before migrating it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_SQLITE_FULLTEXT = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5("
    "content, content='memory', content_rowid='seq', tokenize='porter unicode61')",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ai AFTER INSERT ON memory BEGIN "
    "INSERT INTO memory_fts(rowid, content) VALUES (new.seq, new.content); END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ad AFTER DELETE ON memory BEGIN "
    "INSERT INTO memory_fts(memory_fts, rowid, content) VALUES ('delete', old.seq, old.content); END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_au AFTER UPDATE OF content ON memory BEGIN "
    "INSERT INTO memory_fts(memory_fts, rowid, content) VALUES ('delete', old.seq, old.content); "
    "INSERT INTO memory_fts(rowid, content) VALUES (new.seq, new.content); END",
)
_POSTGRES_FULLTEXT = (
    "ALTER TABLE memory ADD COLUMN IF NOT EXISTS fts tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED",
    "CREATE INDEX IF NOT EXISTS ix_memory_fts ON memory USING GIN (fts)",
)


def upgrade() -> None:
    _create_tables()
    for statement in _SQLITE_FULLTEXT if op.get_bind().dialect.name == "sqlite" else _POSTGRES_FULLTEXT:
        op.execute(statement)
    op.execute("INSERT INTO graphmem_meta (key, value) VALUES ('schema_version', '1')")


def downgrade() -> None:
    raise NotImplementedError("graphmem does not downgrade a store: restore its backup instead")


def _create_tables() -> None:
    op.create_table('concept',
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('df', sa.Integer(), nullable=False),
    sa.Column('aliases', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('seq')
    )
    op.create_index(op.f('ix_concept_key'), 'concept', ['key'], unique=True)
    op.create_table('fact',
    sa.Column('id', sa.String(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('predicate', sa.String(), nullable=False),
    sa.Column('object', sa.String(), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('valid_from', sa.BigInteger(), nullable=False),
    sa.Column('valid_to', sa.BigInteger(), nullable=True),
    sa.Column('superseded_by', sa.String(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('source_id', sa.String(), nullable=True),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_fact_object'), 'fact', ['object'], unique=False)
    op.create_index(op.f('ix_fact_subject'), 'fact', ['subject'], unique=False)
    op.create_index('ix_fact_subject_predicate', 'fact', ['subject', 'predicate'], unique=False)
    op.create_table('graphmem_meta',
    sa.Column('key', sa.String(), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('memory',
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('id', sa.String(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('content_hash', sa.String(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('project', sa.String(), nullable=True),
    sa.Column('project_key', sa.String(), nullable=False),
    sa.Column('topic_key', sa.String(), nullable=True),
    sa.Column('tags', sa.JSON(), nullable=False),
    sa.Column('entities', sa.JSON(), nullable=False),
    sa.Column('source', sa.String(), nullable=True),
    sa.Column('context', sa.Text(), nullable=True),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('session_id', sa.String(), nullable=True),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('last_used_at', sa.BigInteger(), nullable=False),
    sa.Column('use_count', sa.Integer(), nullable=False),
    sa.Column('strength', sa.Float(), nullable=False),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('valid_from', sa.BigInteger(), nullable=False),
    sa.Column('valid_to', sa.BigInteger(), nullable=True),
    sa.Column('superseded_by', sa.String(), nullable=True),
    sa.Column('review_after', sa.BigInteger(), nullable=True),
    sa.Column('parent_id', sa.String(), nullable=True),
    sa.Column('concept_count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('seq'),
    sa.UniqueConstraint('project_key', 'content_hash', name='uq_memory_project_hash')
    )
    op.create_index(op.f('ix_memory_id'), 'memory', ['id'], unique=True)
    op.create_index(op.f('ix_memory_kind'), 'memory', ['kind'], unique=False)
    op.create_index('ix_memory_project_status', 'memory', ['project_key', 'status'], unique=False)
    op.create_index(op.f('ix_memory_session_id'), 'memory', ['session_id'], unique=False)
    op.create_index(op.f('ix_memory_topic_key'), 'memory', ['topic_key'], unique=False)
    op.create_table('metric',
    sa.Column('operation', sa.String(), nullable=False),
    sa.Column('calls', sa.Integer(), nullable=False),
    sa.Column('errors', sa.Integer(), nullable=False),
    sa.Column('total_ms', sa.Float(), nullable=False),
    sa.Column('max_ms', sa.Float(), nullable=False),
    sa.Column('buckets', sa.JSON(), nullable=False),
    sa.Column('first_at', sa.BigInteger(), nullable=False),
    sa.Column('last_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('operation')
    )
    op.create_table('prompt',
    sa.Column('id', sa.String(), nullable=False),
    sa.Column('session_id', sa.String(), nullable=True),
    sa.Column('project', sa.String(), nullable=True),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_prompt_session_id'), 'prompt', ['session_id'], unique=False)
    op.create_table('session',
    sa.Column('id', sa.String(), nullable=False),
    sa.Column('project', sa.String(), nullable=True),
    sa.Column('client', sa.String(), nullable=True),
    sa.Column('started_at', sa.BigInteger(), nullable=False),
    sa.Column('last_activity_at', sa.BigInteger(), nullable=False),
    sa.Column('ended_at', sa.BigInteger(), nullable=True),
    sa.Column('timeout_s', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('concept_edge',
    sa.Column('a_seq', sa.Integer(), nullable=False),
    sa.Column('b_seq', sa.Integer(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['a_seq'], ['concept.seq'], ),
    sa.ForeignKeyConstraint(['b_seq'], ['concept.seq'], ),
    sa.PrimaryKeyConstraint('a_seq', 'b_seq')
    )
    op.create_table('mention',
    sa.Column('memory_seq', sa.Integer(), nullable=False),
    sa.Column('concept_seq', sa.Integer(), nullable=False),
    sa.Column('weight', sa.Float(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['concept_seq'], ['concept.seq'], ),
    sa.ForeignKeyConstraint(['memory_seq'], ['memory.seq'], ),
    sa.PrimaryKeyConstraint('memory_seq', 'concept_seq')
    )
    op.create_index(op.f('ix_mention_concept_seq'), 'mention', ['concept_seq'], unique=False)
    op.create_table('relation',
    sa.Column('id', sa.String(), nullable=False),
    sa.Column('source_id', sa.String(), nullable=False),
    sa.Column('target_id', sa.String(), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('evidence', sa.Text(), nullable=True),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('judged_at', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['source_id'], ['memory.id'], ),
    sa.ForeignKeyConstraint(['target_id'], ['memory.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('source_id', 'target_id', 'type', name='uq_relation_triple')
    )
    op.create_index(op.f('ix_relation_source_id'), 'relation', ['source_id'], unique=False)
    op.create_index(op.f('ix_relation_target_id'), 'relation', ['target_id'], unique=False)

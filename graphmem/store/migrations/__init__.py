"""Schema migrations: Alembic revisions that bring an existing store up to this graphmem's schema.

Schema version N is revision ``"000N"`` (``SCHEMA_VERSION`` in ``tables.py``; a test keeps the two in
step). A new store never runs them: ``engine.open_engine`` creates the current tables at once and stamps
:data:`HEAD`. A store at an older version is upgraded on open. Alembic loads only on that path, so opening
a store that is already current costs one query and no Alembic import.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Column, MetaData, PrimaryKeyConstraint, String, Table, inspect
from sqlalchemy.engine import Connection

__all__ = ["HEAD", "stamp_head", "upgrade"]

HEAD = "0005"
SCRIPTS = Path(__file__).resolve().parent

# Alembic's own bookkeeping table, spelled as Alembic creates it, so a new store can be stamped
# without importing Alembic.
_VERSION_TABLE = Table("alembic_version", MetaData(),
                       Column("version_num", String(32), nullable=False),
                       PrimaryKeyConstraint("version_num", name="alembic_version_pkc"))


def stamp_head(connection: Connection) -> None:
    """Record that the store's tables are those of :data:`HEAD` (a store just built by ``create_all``)."""
    _VERSION_TABLE.create(connection, checkfirst=True)
    connection.execute(_VERSION_TABLE.delete())
    connection.execute(_VERSION_TABLE.insert().values(version_num=HEAD))


def upgrade(connection: Connection, schema_version: int) -> None:
    """Run every revision after ``schema_version`` inside the caller's transaction."""
    from alembic import command
    from alembic.config import Config

    if not inspect(connection).has_table(_VERSION_TABLE.name):
        # Stores of schema version 1 were written before graphmem used Alembic: their tables are
        # exactly revision 0001's, so they are stamped with it and upgraded from there.
        _VERSION_TABLE.create(connection)
        connection.execute(_VERSION_TABLE.insert().values(version_num=f"{schema_version:04d}"))
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")

"""Full-text index: SQLite FTS5 or a PostgreSQL tsvector column, both ranked by BM25, behind one query function.

``memory_search`` does not rank with it: the keyword leg reads the projection's keyword index
(``store/keyword_index.py``), the same on both databases. ``rank`` stays as the reference the benches compare the
keyword index with (``scripts/compare_fulltext.py``, ``scripts/bench_keywords.py``).

A SQLite store keeps its FTS5 index (``ensure_index``, part of the schema): the lint checks it and the redaction
pass rewrites it, and its trigger costs the writer nothing measurable. A PostgreSQL store keeps none since schema
version 5 (migration 0005): the generated ``tsvector`` and its GIN index cost the server 44 µs of every insert,
for a query nothing serves. A bench that ranks a PostgreSQL database with :func:`rank` builds them first
(:func:`ensure_reference_index`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import text
from sqlalchemy.engine import Connection

from nlp.query import query_terms

__all__ = ["SQLITE_V3_OBJECTS", "ReferenceIndexMissing", "ensure_index", "ensure_reference_index", "rank",
           "rebuild_sqlite_index", "scope_token"]



# Every memory of a project also carries the project as one token in a second column (``scope``: "p", the
# project key in hex, "x"; hex keeps any name one token, and no stemming rule ends in "x"), so a filtered
# query matches ``scope : "p…x" AND content : (…)``: FTS5 walks the project's postings and seeks past other
# projects' instead of collecting every row of the store that has a query word. A memory without a project
# has an empty scope, so a store that uses no projects ranks exactly as before (BM25's length
# normalization counts every column's tokens). The view is the external content FTS5 reads back.
SCOPE_SQL = "CASE WHEN {row}.project_key = '' THEN '' ELSE 'p' || hex({row}.project_key) || 'x' END"
_SCOPE_NEW, _SCOPE_OLD = SCOPE_SQL.format(row="new"), SCOPE_SQL.format(row="old")

_SQLITE_DDL = (
    f"CREATE VIEW IF NOT EXISTS memory_fts_source AS SELECT seq, content, {SCOPE_SQL.format(row='memory')} AS scope "
    "FROM memory",
    "CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5("
    "content, scope, content='memory_fts_source', content_rowid='seq', tokenize='porter unicode61')",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ai AFTER INSERT ON memory BEGIN "
    f"INSERT INTO memory_fts(rowid, content, scope) VALUES (new.seq, new.content, {_SCOPE_NEW}); END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_ad AFTER DELETE ON memory BEGIN "
    "INSERT INTO memory_fts(memory_fts, rowid, content, scope) "
    f"VALUES ('delete', old.seq, old.content, {_SCOPE_OLD}); END",
    "CREATE TRIGGER IF NOT EXISTS memory_fts_au AFTER UPDATE OF content, project_key ON memory BEGIN "
    "INSERT INTO memory_fts(memory_fts, rowid, content, scope) "
    f"VALUES ('delete', old.seq, old.content, {_SCOPE_OLD}); "
    f"INSERT INTO memory_fts(rowid, content, scope) VALUES (new.seq, new.content, {_SCOPE_NEW}); END",
)

# Schema version 3's index (content only), which migration 0004 replaces.
SQLITE_V3_OBJECTS = (("TRIGGER", "memory_fts_ai"), ("TRIGGER", "memory_fts_ad"), ("TRIGGER", "memory_fts_au"),
                     ("TABLE", "memory_fts"))

_HAS_REFERENCE_INDEX = ("SELECT 1 FROM pg_attribute WHERE attrelid = 'memory'::regclass AND attname = 'fts' "
                        "AND NOT attisdropped")
_POSTGRES_DDL = (
    "ALTER TABLE memory ADD COLUMN IF NOT EXISTS fts tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED",
    "CREATE INDEX IF NOT EXISTS ix_memory_fts ON memory USING GIN (fts)",
)


# BM25 on PostgreSQL, as FTS5 ranks (k1 = 1.2, b = 0.75), over the generated tsvector: ts_rank/ts_rank_cd know neither
# a term's rarity (IDF) nor a document's length against the others', and ranked multi-hop passages at half FTS5's R@5
# (docs/retrieval.md, "SQLite FTS5 and PostgreSQL full text (before the keyword index)"). One pass over the documents
# that match (through the GIN index) gives each query lexeme's term frequency (its positions in the tsvector) and
# document frequency over the whole table, as FTS5's are; a document's length is its number of distinct lexemes, the
# average length that of the ranked documents, and the table's size its largest seq (an index lookup: a count would
# scan the table on every query). Only the query's lexemes of a matching row are unnested: ``setweight`` marks them
# (every generated lexeme has the default weight D) and ``ts_filter`` keeps the marked ones, in C; unnesting the whole
# tsvector made one SQL row per distinct word of every matching document, then dropped all but the query's (measured
# in scripts/bench_keywords.py, same rows and scores).
_POSTGRES_BM25 = """
WITH terms AS (SELECT array_agg(DISTINCT lexeme) AS lexemes FROM unnest(to_tsvector('english', :words))),
matches AS MATERIALIZED (
  SELECT m.seq, m.project_key, length(m.fts)::float8 AS dl, u.lexeme,
         coalesce(array_length(u.positions, 1), 1)::float8 AS tf
  FROM memory m CROSS JOIN terms
  CROSS JOIN LATERAL unnest(ts_filter(setweight(m.fts, 'A', terms.lexemes), '{{a}}')) u
  WHERE m.fts @@ to_tsquery('english', :match)
),
idf AS (
  SELECT lexeme, ln(1 + (greatest(total.n, count(*)) - count(*) + 0.5) / (count(*) + 0.5)) AS weight
  FROM matches CROSS JOIN (SELECT coalesce(max(seq), 0)::float8 AS n FROM memory) total
  GROUP BY lexeme, total.n
),
hits AS (SELECT * FROM matches WHERE true{filters}),
average AS (SELECT greatest(avg(dl), 1) AS avgdl FROM (SELECT DISTINCT seq, dl FROM hits) documents)
SELECT h.seq, sum(i.weight * h.tf * 2.2 / (h.tf + 1.2 * (0.25 + 0.75 * h.dl / a.avgdl))) AS score
FROM hits h JOIN idf i ON i.lexeme = h.lexeme CROSS JOIN average a
GROUP BY h.seq
"""


class ReferenceIndexMissing(LookupError):
    """:func:`rank` on a PostgreSQL database without the reference index (a store keeps none since schema 5)."""


def ensure_index(connection: Connection) -> None:
    """The store's own full-text index, in the caller's transaction (the store's schema is built in one): on
    SQLite the FTS5 table and the triggers that keep it in sync with ``memory``; on PostgreSQL nothing."""
    if connection.dialect.name == "sqlite":
        for statement in _SQLITE_DDL:
            connection.execute(text(statement))


def ensure_reference_index(connection: Connection) -> None:
    """The index :func:`rank` reads, on either database: a bench's, before it ranks a PostgreSQL database (the
    generated ``tsvector`` column and its GIN index, computed for every row already there); the store's own on
    SQLite."""
    if connection.dialect.name == "sqlite":
        ensure_index(connection)
        return
    for statement in _POSTGRES_DDL:
        connection.execute(text(statement))


def scope_token(project_key: str) -> str:
    """The token a memory of ``project_key`` (not empty) carries in the SQLite index's ``scope`` column.

    >>> scope_token("conv-26")
    'p636F6E762D3236x'
    """
    return "p" + project_key.encode("utf-8").hex().upper() + "x"


def rebuild_sqlite_index(connection: Connection) -> None:
    """Replace schema version 3's content-only index by the scoped one and index every memory again."""
    for kind, name in SQLITE_V3_OBJECTS:
        connection.execute(text(f"DROP {kind} IF EXISTS {name}"))
    ensure_index(connection)
    connection.execute(text("INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')"))


def rank(connection: Connection, query: str, limit: int, allowed_seqs: Sequence[int] | None = None,
         excluded_seqs: Sequence[int] | None = None, skip_terms: Collection[str] = (),
         project: str | None = None) -> list[tuple[int, float]]:
    """Memory seqs ranked by BM25 for the OR of the query's terms, best first, with a score > 0.

    ``project`` (a project name) restricts the match itself to that project's rows, so its cost does
    not grow with other projects (the memories without a project, ``""``, are not scoped: pass their
    seqs instead). ``allowed_seqs`` / ``excluded_seqs`` restrict the ranking before
    the cut (filters apply before top-k; the caller passes whichever list is shorter). ``skip_terms``
    are left out of the match, unless that would leave nothing.

    On PostgreSQL it reads the reference index :func:`ensure_reference_index` builds, and raises
    :class:`ReferenceIndexMissing` where there is none (a store's database keeps none since schema 5).
    """
    terms = query_terms(query)
    kept = [term for term in terms if term not in skip_terms]
    terms = kept or terms
    if not terms or (allowed_seqs is not None and not allowed_seqs):
        return []
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        match = "content : (" + " OR ".join('"' + term.replace('"', '""') + '"' for term in terms) + ")"
        if project:
            match = f'scope : "{scope_token(project)}" AND {match}'
        # The scope column weighs 0: scores are the content's BM25.
        sql = "SELECT rowid, -bm25(memory_fts, 1.0, 0.0) AS score FROM memory_fts WHERE memory_fts MATCH :match"
        params: dict[str, object] = {"match": match}
    else:
        _require_reference_index(connection)
        sql = ""  # the filters, then the query around them
        params = {"match": " | ".join(terms), "words": " ".join(terms)}
        if project:  # the collection statistics stay store-wide, as FTS5's bm25() keeps them
            sql += " AND project_key = :project"
            params["project"] = project
    column = "rowid" if sqlite else "seq"
    for name, seqs, operator in (("allowed", allowed_seqs, "IN"), ("excluded", excluded_seqs, "NOT IN")):
        if seqs is None:
            continue
        if sqlite:
            # The unary plus keeps the rowid test out of FTS5's index plan: pushed into FTS5 it ran the MATCH
            # once per allowed rowid (210 ms for one 419-turn project; 2.7 ms as a filter on the matches).
            sql += f" AND +{column} {operator} (SELECT value FROM json_each(:{name}))"
            params[name] = _json_list(seqs)
        else:
            sql += f" AND {'' if operator == 'IN' else 'NOT '}({column} = ANY(:{name}))"
            params[name] = list(seqs)
    if not sqlite:
        sql = _POSTGRES_BM25.format(filters=sql)
    sql += " ORDER BY score DESC LIMIT :limit"
    params["limit"] = limit
    if sqlite:
        # The DB-API cursor (named parameters are sqlite3's own): SQLAlchemy's statement handling cost
        # as much as the full-text match on a one-project filter.
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.execute(sql, params)
            return [(int(seq), float(score)) for seq, score in cursor.fetchall()]
        finally:
            cursor.close()
    return [(int(seq), float(score)) for seq, score in connection.execute(text(sql), params)]


def _require_reference_index(connection: Connection) -> None:
    if connection.execute(text(_HAS_REFERENCE_INDEX)).first() is None:
        raise ReferenceIndexMissing("this PostgreSQL database has no full-text column to rank: a store keeps none "
                                    "since schema version 5; fulltext.ensure_reference_index builds it")


def _json_list(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, map(int, values))) + "]"

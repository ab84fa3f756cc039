"""The README's BM25 baseline: SQLite FTS5 (stdlib sqlite3), porter + unicode61, OR of query terms, bm25().

Title and text are indexed as two FTS5 columns with the default (equal) weights; FTS5's ``bm25()`` adds the
weighted hits of both columns and uses the row's total token count as the document length, so this is BM25
over "title + text" as one field (k1 = 1.2, b = 0.75, FTS5's built-in constants).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

from .data import Passage

# A standard English stopword list (the usual function words of English IR/NLP toolkits), kept here so the
# baseline does not depend on any NLP package.
_STOPWORD_TEXT = """
a about above after again against ain all am an and any are aren aren't as at be because been before
being below between both but by can couldn couldn't d did didn didn't do does doesn doesn't doing
don don't down during each few for from further had hadn hadn't has hasn hasn't have haven haven't
having he her here hers herself him himself his how i if in into is isn isn't it it's its itself
just ll m ma me mightn mightn't more most mustn mustn't my myself needn needn't no nor not now o of
off on once only or other our ours ourselves out over own re s same shan shan't she she's should
should've shouldn shouldn't so some such t than that that'll the their theirs them themselves then
there these they this those through to too under until up ve very was wasn wasn't we were weren
weren't what when where which while who whom why will with won won't wouldn wouldn't y you you'd
you'll you're you've your yours yourself yourselves
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())

# unicode61 token characters are letters and digits (underscore and punctuation separate tokens).
_TOKEN_RE = re.compile(r"[^\W_]+")


def query_tokens(question: str) -> list[str]:
    """Lower-cased non-stopword tokens of ``question``, first occurrence order, no repeats."""
    out: list[str] = []
    seen: set[str] = set()
    for tok in _TOKEN_RE.findall(question.lower()):
        if tok in STOPWORDS or tok in seen:
            continue
        seen.add(tok)
        out.append(tok)
    return out


def fts_query(question: str) -> str:
    """The FTS5 MATCH expression: every non-stopword token as a quoted string, OR-ed. Empty if none."""
    return " OR ".join('"' + tok.replace('"', '""') + '"' for tok in query_tokens(question))


class BM25Baseline:
    """In-memory SQLite FTS5 BM25 retriever over title + text."""

    name = "bm25"

    def __init__(self) -> None:
        self._conn: sqlite3.Connection | None = None
        self._titles: list[str] = []

    def index(self, passages: Sequence[Passage]) -> None:
        self.close()
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE VIRTUAL TABLE docs USING fts5(title, text, tokenize='porter unicode61')")
        conn.executemany(
            "INSERT INTO docs(rowid, title, text) VALUES (?, ?, ?)",
            ((i, p.title, p.text) for i, p in enumerate(passages)),
        )
        conn.commit()
        self._conn = conn
        self._titles = [p.title for p in passages]

    def _ranked_rows(self, expr: str, limit: int) -> list[int]:
        assert self._conn is not None
        rows = self._conn.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?", (expr, limit)
        ).fetchall()
        return [r[0] for r in rows]

    def retrieve(self, question: str, k: int) -> list[str]:
        if self._conn is None:
            raise RuntimeError("BM25Baseline.retrieve called before index()")
        expr = fts_query(question)
        if not expr or k <= 0:
            return []
        # Several passages can share a title; fetch deeper until k distinct titles (or the matches run out).
        limit = k
        while True:
            rowids = self._ranked_rows(expr, limit)
            titles: list[str] = []
            seen: set[str] = set()
            for rid in rowids:
                title = self._titles[rid]
                if title not in seen:
                    seen.add(title)
                    titles.append(title)
            if len(titles) >= k or len(rowids) < limit:
                return titles[:k]
            limit *= 2

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

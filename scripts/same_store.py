"""Whether two trees store the same thing and answer the same searches (issue 22: a single store's CPU).

    python -P scripts/same_store.py --memories 600 --trees /tmp/base .      # each tree in its own process
    python -P scripts/same_store.py --memories 2000 --trees /tmp/base . --json same.json

Each tree, on ``PYTHONPATH`` in a process of its own, stores ``bench_mcp.passages(N)`` into a fresh SQLite store,
one ``MemoryService.store`` call each: every 7th in project ``p1``, every 5th with tags and entities, every 3rd in a
named session (as an MCP connection's stores are), every 11th with a secret that is redacted, and every 50th stored
twice (a duplicate). The first half is followed into the
projection after each store (an idle server's pattern), the second half back to back (the queue is applied whole,
by the write that overfills it or by a read), with a search after every 97th store. Then 200 searches, each
without a filter and in ``p1``.

The rows are hashed table by table, generated ids and times left out (a memory by its ``seq``, its session by the
order the sessions started; a session's span as whether it covers its memories' times): ``memory``, ``concept``,
``mention``, ``concept_edge``, ``session``; and the searches' hits (each hit's ``seq``, content and exact score,
``repr``). Exit status 1 when the trees differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent

__all__ = ["main"]

_MEMORY_COLUMNS = ("seq, content, content_hash, kind, project, project_key, topic_key, tags, entities, source, "
                   "context, meta, use_count, strength, status, valid_to, superseded_by, review_after, parent_id, "
                   "concept_count, outcome, task_type, tools_used, session_id")


def _digest(rows: Any) -> str:
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def measure(memories: int) -> dict[str, Any]:
    """Store and search with the tree this process imports; the hashes."""
    sys.path.insert(0, str(_HERE))
    from bench_mcp import passages
    from sqlalchemy import text

    from graphmem import MemoryService, Settings

    with tempfile.TemporaryDirectory() as scratch:
        service = MemoryService(Settings.load(environ={}, db=f"{scratch}/store.db"))
        texts = passages(memories)
        for number, passage in enumerate(texts):
            content = passage
            fields: dict[str, Any] = {}
            if number % 7 == 0:
                fields["project"] = "p1"
            if number % 5 == 0:
                fields["tags"], fields["entities"] = [f"t{number % 3}"], [f"Entity {number % 4}"]
            if number % 3 == 0:
                fields["session_id"] = "ses_connection"  # as an MCP connection names its session on every store
            if number % 11 == 0:
                content += " The key is sk-ant-api03-" + "a1B2c3D4" * 6 + " ok."
            service.store(content, **fields)
            if number % 50 == 0:
                service.store(content, **fields)
            if number < memories // 2:
                service.uow.fresh()
            if number % 97 == 0:
                service.search(content.split(":")[0])
        queries = [" ".join(t.split(":", 1)[0].split()[:3]) for t in texts[:: max(1, memories // 200)]][:200]
        with service.uow.engine.connect() as connection:
            seq_of = dict(connection.execute(text("SELECT id, seq FROM memory")).all())
        hits = [[(seq_of[hit.id], hit.content, repr(hit.score)) for hit in service.search(query, project=project).hits]
                for query in queries for project in (None, "p1")]
        with service.uow.engine.connect() as connection:
            def rows(sql: str) -> list[tuple[Any, ...]]:
                return [tuple(row) for row in connection.execute(text(sql))]

            sessions = {session_id: order for order, (session_id,) in
                        enumerate(rows("SELECT id FROM session ORDER BY started_at, id"))}
            found = {
                "memory": _digest([(*row[:-1], sessions.get(row[-1])) for row in
                                   rows(f"SELECT {_MEMORY_COLUMNS} FROM memory ORDER BY seq")]),
                "concept": _digest(rows("SELECT * FROM concept ORDER BY seq")),
                "mention": _digest(rows("SELECT * FROM mention ORDER BY memory_seq, concept_seq")),
                "concept_edge": _digest(rows("SELECT * FROM concept_edge ORDER BY a_seq, b_seq")),
                # a session's span against its memories' times (the times themselves are the clock's): a named
                # session starts at its first memory's time; the live session a store claimed starts at that
                # store's write, a moment after its memory's time was taken (the same millisecond or later)
                "session": _digest(rows(
                    "SELECT s.project, s.client, s.ended_at IS NULL, s.timeout_s, s.started_at >= min(m.created_at), "
                    "s.id LIKE 'ses_connection' AND s.started_at = min(m.created_at), "
                    "s.last_activity_at >= max(m.created_at), count(m.seq) FROM session s "
                    "LEFT JOIN memory m ON m.session_id = s.id GROUP BY s.id ORDER BY s.started_at, s.id")),
                "session_rows": rows("SELECT s.id LIKE 'ses_connection', s.project, s.started_at - min(m.created_at), "
                                     "s.last_activity_at - max(m.created_at), count(m.seq) FROM session s "
                                     "LEFT JOIN memory m ON m.session_id = s.id GROUP BY s.id ORDER BY s.started_at"),
                "rows": {table: rows(f"SELECT count(*) FROM {table}")[0][0]
                         for table in ("memory", "concept", "mention", "concept_edge", "session")},
                "searches": _digest(hits),
                "hits": sum(map(len, hits)),
            }
        service.close()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=600)
    parser.add_argument("--trees", nargs=2, metavar=("BASE", "BRANCH"), help="two source trees to compare")
    parser.add_argument("--json", help="write both trees' hashes here")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: the tree on PYTHONPATH
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.memories)))
        return 0
    if not args.trees:
        parser.error("--trees BASE BRANCH")
    found = {}
    for tree in args.trees:
        environ = {key: value for key, value in os.environ.items() if not key.startswith("GRAPHMEM_")}
        run = subprocess.run([sys.executable, "-P", __file__, "--one", "--memories", str(args.memories)],
                             env=environ | {"PYTHONPATH": str(Path(tree).resolve())}, capture_output=True,
                             text=True, check=True)
        found[tree] = json.loads(run.stdout.splitlines()[-1])
        print(tree, found[tree])
    base, branch = found.values()
    differ = sorted(key for key in base if base[key] != branch[key] and key != "session_rows")  # rows: to read
    print("identical" if not differ else f"DIFFERENT: {', '.join(differ)}")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

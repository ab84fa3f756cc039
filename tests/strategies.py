"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import hashlib

from hypothesis import strategies as st

__all__ = ["content_spellings", "export_files", "private_blocks", "small_graphs"]


@st.composite
def small_graphs(draw: st.DrawFn, max_nodes: int = 8) -> tuple[int, list[tuple[int, int, float]], dict[int, float]]:
    """(n, weighted edges, seed weights) for a small random directed graph."""
    n = draw(st.integers(min_value=2, max_value=max_nodes))
    node = st.integers(min_value=0, max_value=n - 1)
    weight = st.floats(min_value=0.05, max_value=5.0, allow_nan=False, allow_infinity=False)
    edges = draw(st.lists(st.tuples(node, node, weight), min_size=1, max_size=4 * n))
    seeds = draw(st.dictionaries(node, st.floats(min_value=0.1, max_value=3.0), min_size=1, max_size=3))
    return n, edges, seeds


_WORDS = ("redis", "session", "storage", "webhook", "retry", "idempotency", "key", "cache", "deploy",
          "worker", "index", "rollback", "migration", "token", "queue", "lag", "ttl", "v2", "api", "order")
_SPACES = st.sampled_from([" ", "  ", "\t", "\n", " \n\t "])


def _respell_char(char: str, form: str) -> str:
    if form == "upper":
        return char.upper()
    if form == "fullwidth" and char.isascii() and char.isalnum():
        return chr(ord(char) + 0xFEE0)  # U+FF10..FF5A: NFKC maps full-width forms back to ASCII
    return char


def _respell(draw: st.DrawFn, word: str) -> str:
    """The same word under case changes and NFKC-equivalent forms (full-width letters, the "fi" ligature)."""
    chars = word.replace("fi", "\ufb01") if draw(st.booleans()) else word
    forms = st.sampled_from(("lower", "upper", "fullwidth"))
    return "".join(_respell_char(char, draw(forms)) for char in chars)


@st.composite
def content_spellings(draw: st.DrawFn, max_distinct: int = 4,
                      max_copies: int = 3) -> tuple[list[str], list[int]]:
    """(contents, group): several spellings of a few distinct texts, shuffled; ``group[i]`` says which
    text ``contents[i]`` spells. Spellings differ in case, whitespace and NFKC-equivalent characters only."""
    texts = draw(st.lists(st.lists(st.sampled_from(_WORDS), min_size=2, max_size=5).map(" ".join),
                          min_size=1, max_size=max_distinct, unique=True))
    spelled: list[tuple[str, int]] = []
    for group, text in enumerate(texts):
        for _ in range(draw(st.integers(min_value=1, max_value=max_copies))):
            words = [_respell(draw, word) for word in text.split()]
            body = "".join(word + draw(_SPACES) for word in words[:-1]) + words[-1]
            padding = draw(st.sampled_from(["", " ", "\n"])), draw(st.sampled_from(["", "  "]))
            spelled.append((padding[0] + body + padding[1], group))
    order = draw(st.permutations(range(len(spelled))))
    return [spelled[i][0] for i in order], [spelled[i][1] for i in order]


# -- graphmem export files (tests/store/test_transfer_roundtrip.py) ----------------------------------
_MS = st.integers(min_value=1_600_000_000_000, max_value=1_900_000_000_000)
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=24)
_OPTIONAL_TEXT = st.none() | _TEXT
_CONCEPT_KEYS = ("redis", "cache", "session storage", "webhook", "retry", "idempotency key",
                 "kubectl rollout", "api", "queue", "token", "jürgen müller", "東京")
_META = st.dictionaries(st.sampled_from(["a", "b", "source", "ünï"]),
                        st.none() | st.booleans() | st.integers(-1000, 1000) | _TEXT, max_size=3)
_PROJECT = st.none() | st.sampled_from(["web", "api"])
_KINDS = ("note", "decision", "error", "pattern", "architecture", "summary", "solution", "prompt")
_RELATION_TYPES = ("supersedes", "contradicts", "supports", "related", "duplicate_of", "scoped")


def _identifiers(prefix: str, count: int) -> st.SearchStrategy[list[str]]:
    body = st.text("0123456789abcdefghjkmnpqrstvwxyz", min_size=20, max_size=20)
    return st.lists(body.map(lambda text: f"{prefix}_{text}"), min_size=count, max_size=count, unique=True)


@st.composite
def export_files(draw: st.DrawFn, max_memories: int = 6) -> list[dict[str, object]]:
    """The records of a graphmem JSONL export (no header): concepts, memories with inline mentions,
    co-occurrence edges, relations and sessions, with every field drawn and the format's constraints
    kept (unique ids, unique content per project, relation triples unique, ends of edges known)."""
    keys = draw(st.lists(st.sampled_from(_CONCEPT_KEYS), unique=True, max_size=6))
    session_ids = draw(_identifiers("ses", draw(st.integers(0, 2))))
    sessions = [_session(draw, session_id) for session_id in session_ids]
    ids = draw(_identifiers("mem", draw(st.integers(1, max_memories))))
    memories = [_memory(draw, number, ids, keys, [s["id"] for s in sessions]) for number in range(len(ids))]
    pairs = {tuple(sorted(pair)) for pair in draw(st.lists(st.tuples(*[st.sampled_from(keys)] * 2)))
             if pair[0] != pair[1]} if keys else set()
    edges = [{"type": "concept_edge", "a": a, "b": b, "count": draw(st.integers(1, 50))}
             for a, b in sorted(pairs)]
    concepts = [{"type": "concept", "key": key, "kind": draw(st.sampled_from(["term", "phrase", "entity"])),
                 "aliases": draw(st.lists(_TEXT, max_size=2, unique=True))} for key in keys]
    return [*concepts, *memories, *edges, *_relations(draw, ids), *sessions]


def _session(draw: st.DrawFn, session_id: str) -> dict[str, object]:
    return {"type": "session", "id": session_id, "project": draw(_PROJECT), "client": draw(_OPTIONAL_TEXT),
            "started_at": draw(_MS), "last_activity_at": draw(_MS), "ended_at": draw(st.none() | _MS),
            "timeout_s": draw(st.integers(60, 86_400))}


def _memory(draw: st.DrawFn, number: int, ids: list[str], keys: list[str],
            sessions: list[str]) -> dict[str, object]:
    content = f"{draw(_TEXT)} #{number}"  # unique, so no two memories deduplicate
    valid_from = draw(_MS)
    mentions = sorted([key, draw(st.floats(0.01, 5.0)), draw(st.integers(1, 9))]
                      for key in (draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []))
    return {
        "type": "memory", "id": ids[number], "content": content,
        "content_hash": hashlib.sha256(content.encode()).hexdigest(), "kind": draw(st.sampled_from(_KINDS)),
        "project": draw(_PROJECT), "topic_key": draw(_OPTIONAL_TEXT),
        "tags": draw(st.lists(_TEXT, max_size=3, unique=True)),
        "entities": draw(st.lists(_TEXT, max_size=2, unique=True)),
        "source": draw(_OPTIONAL_TEXT), "context": draw(_OPTIONAL_TEXT), "meta": draw(_META),
        "session_id": draw(st.none() | st.sampled_from(sessions)) if sessions else None,
        "created_at": draw(_MS), "last_used_at": draw(_MS), "use_count": draw(st.integers(0, 1000)),
        "strength": draw(st.floats(0.0, 2.0)),
        "status": draw(st.sampled_from(["active", "promoted", "archived", "forgotten"])),
        "valid_from": valid_from,
        "valid_to": draw(st.none() | st.integers(valid_from + 1, valid_from + 10**10)),
        "superseded_by": draw(st.none() | st.sampled_from(ids)), "review_after": draw(st.none() | _MS),
        "parent_id": draw(st.none() | st.sampled_from(ids)), "mentions": mentions,
        "outcome": draw(st.none() | st.sampled_from(["success", "failure", "partial", "unknown"])),
        "task_type": draw(_OPTIONAL_TEXT), "tools_used": draw(st.lists(_TEXT, max_size=3, unique=True)),
    }


def _relations(draw: st.DrawFn, ids: list[str]) -> list[dict[str, object]]:
    ends = st.sampled_from(ids)
    triples = draw(st.lists(st.tuples(ends, ends, st.sampled_from(_RELATION_TYPES)), max_size=5, unique=True))
    triples = [t for t in triples if t[0] != t[1]]
    relation_ids = draw(_identifiers("rel", len(triples)))
    return [{"type": "relation", "id": relation_id, "source_id": source, "target_id": target,
             "relation_type": kind, "confidence": draw(st.floats(0.0, 1.0)),
             "status": draw(st.sampled_from(["pending", "judged", "ignored"])),
             "reason": draw(_OPTIONAL_TEXT),
             "evidence": draw(_OPTIONAL_TEXT), "meta": draw(_META), "created_at": draw(_MS),
             "judged_at": draw(st.none() | _MS)}
            for relation_id, (source, target, kind) in zip(relation_ids, triples, strict=True)]


_INVISIBLES = st.sampled_from(["", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"])
_OPENERS = st.sampled_from(["<", "&lt;", "&LT;", "&#60;", "&#x3c;", "\uff1c", "&amp;lt;"])
_CLOSERS = st.sampled_from([">", "&gt;", "&#62;", "&#x3E;", "\uff1e", "&amp;gt;"])
_GAPS = st.sampled_from(["", " ", "  ", "\t", "\u200b", " \u200b"])


@st.composite
def _tag_name(draw: st.DrawFn) -> str:
    """``private`` in mixed case, fullwidth letters and zero-width characters between letters."""
    letters = []
    for plain in "private":
        form = draw(st.sampled_from(["lower", "upper", "fullwidth", "fullwidth-upper"]))
        base = plain.upper() if form.endswith("upper") else plain
        if form.startswith("fullwidth"):
            base = chr(ord(base) - (0x41 if base.isupper() else 0x61) + (0xFF21 if base.isupper() else 0xFF41))
        letters.append(base)
    return "".join(letter + (draw(_INVISIBLES) if i < 6 else "") for i, letter in enumerate(letters))


@st.composite
def private_blocks(draw: st.DrawFn, secret: str, *, closed: bool = True) -> str:
    """A private block around ``secret`` in one of the spellings clients produce."""
    opener, closer = draw(_OPENERS), draw(_CLOSERS)
    attributes = draw(st.sampled_from(["", ' reason="k"', " reason='credentials' level=2", " x"]))
    head = f"{opener}{draw(_GAPS)}{draw(_tag_name())}{attributes}{draw(_GAPS)}{closer}"
    if not closed:
        return f"{head}{secret}"
    slash = draw(st.sampled_from(["/", "\uff0f"])) if closer == "\uff1e" else "/"
    tail = f"{draw(_OPENERS)}{draw(_GAPS)}{slash}{draw(_GAPS)}{draw(_tag_name())}{draw(_GAPS)}{draw(_CLOSERS)}"
    return f"{head}{secret}{tail}"

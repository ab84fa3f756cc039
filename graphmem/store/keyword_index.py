"""The keyword index: BM25 over term × memory postings inside the projection, with a top-k cut.

The keyword leg of search used to rank with the database's full text (SQLite FTS5 ``bm25()``, an exact BM25
SQL on PostgreSQL). Both scored every row that matched any query term, so their cost grew with the store,
and the two databases ranked apart. This index is part of the projection instead: built from the memory rows,
followed through the same writes (:meth:`GraphProjection.apply_batch`), written to and read from the projection
snapshot, so both databases rank identically and the server's own CPU does the work.

- **Terms** are FTS5's ``porter unicode61``: lower-cased runs of letters and digits (``unicode61`` splits at
  everything else, underscores included) with accents removed, then the original Porter stemmer (PyStemmer's
  ``porter``, the Snowball port of Porter's 1980 algorithm), which FTS5 skips for tokens under 3 or over 64
  characters, as here.
- **Postings**: per term, the memory nodes that hold it (int32, ascending) and the term's count there (uint16,
  saturating), as one CSR over terms; new memories go to a pending list merged in when it grows (an insert by
  position, no sort: new memories have higher node numbers than every indexed one). Per memory its token
  count, per term its document frequency.
- **Scoring** is FTS5's ``bm25()`` (k1 = 1.2, b = 0.75, IDF ``ln((N - n + 0.5) / (n + 0.5))`` floored at 1e-6,
  the collection statistics over every memory of the store, whatever the filter) and a query word stemmed to
  the same term as another counts twice, as FTS5 counts two phrases.
- **The top-k cut** (MaxScore): terms are read rarest first; a memory none of the terms read so far holds can
  gain at most the sum of the rest's upper bounds (IDF × (k1 + 1)). Once the k-th best score reached so far is
  at least that sum, no other memory can enter the top k, and the remaining (common, long) terms are only
  looked up for the candidates already held, by binary search in their postings, not read whole.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
import Stemmer

from graphmem.core.capacity import grown
from graphmem.store.packed_names import PackedIndex, PackedStrings
from nlp.normalize import fold_accents

__all__ = ["KeywordIndex", "index_terms"]

K1, B = 1.2, 0.75
_MIN_IDF = 1e-6  # FTS5's floor for a term in more than half the rows
_TOKEN = re.compile(r"[^\W_]+")
_STEM_MIN, _STEM_MAX = 3, 64  # FTS5's porter leaves shorter and longer tokens as they are
_TF_MAX = np.iinfo(np.uint16).max
_PENDING_MERGE = 1 << 16  # pending postings read by a linear scan before they are merged in
_ADD_CHUNK = 20_000  # memories tokenized at a time
_SEARCH_FACTOR = 16  # a filter this many times smaller than a posting list is intersected by binary search

IntArray = npt.NDArray[np.int64]


class _Stems:
    """Token → stem, with a bounded cache (tokens repeat: most of a text's tokens were seen before).

    Thread-safe: the HTTP server searches from several threads. A full cache is replaced, not cleared, so a
    call never looks up a token another call's replacement dropped; PyStemmer's stemmer is not thread-safe,
    so stemming holds a lock.
    """

    def __init__(self, max_cached: int = 500_000) -> None:
        self._stemmer = Stemmer.Stemmer("porter")
        self._cache: dict[str, str] = {}
        self._max = max_cached
        self._lock = threading.Lock()

    def __call__(self, tokens: Iterable[str], cache: dict[str, str] | None = None) -> dict[str, str]:
        """Each token's stem; ``cache``: a cache of the caller's own (one load's) instead of the process-wide one."""
        own = cache is not None
        cache = cache if cache is not None else self._cache
        found: dict[str, str] = {}
        missing: list[str] = []
        for token in set(tokens):
            stem = cache.get(token)
            if stem is None:
                missing.append(token)
            else:
                found[token] = stem
        if missing:
            with self._lock:
                stemmed = self._stemmer.stemWords(missing)
            if len(cache) + len(missing) > self._max:
                if own:
                    cache.clear()  # the caller's, used by this thread only
                else:
                    cache = self._cache = {}
            for token, stem in zip(missing, stemmed, strict=True):
                found[token] = cache[token] = stem if _STEM_MIN <= len(token) <= _STEM_MAX else token
        return found


_stems = _Stems()


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold_accents(text.lower()))


def index_terms(text: str) -> list[str]:
    """The terms a text is indexed under, in order, repeats kept (``porter unicode61``).

    >>> index_terms("Running the Café's connections_2")
    ['run', 'the', 'cafe', 's', 'connect', '2']
    """
    tokens = _tokens(text)
    stems = _stems(tokens)
    return [stems[token] for token in tokens]


class KeywordIndex:
    """Term × memory postings of one projection, ranked by BM25 with a top-k cut."""

    def __init__(self) -> None:
        self.vocabulary = PackedIndex()  # term → id, ids in insertion order (a snapshot's packed: packed_names.py)
        self._df = np.zeros(0, dtype=np.int32)  # by term id (with headroom)
        self._indptr = np.zeros(1, dtype=np.int64)  # CSR over the merged terms
        self._docs = np.zeros(0, dtype=np.int32)
        self._tf = np.zeros(0, dtype=np.uint16)
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (terms, docs, tf) not merged yet
        self._pending_size = 0
        self._length = np.zeros(0, dtype=np.int32)  # tokens per memory node
        self._top = -1  # the highest node indexed
        self._ordered = True  # every pending posting's node is above the merged ones'
        self.documents = 0
        self.tokens = 0

    @property
    def postings(self) -> int:
        return int(self._docs.size) + self._pending_size

    # -- following the rows ---------------------------------------------------------------------
    def add(self, nodes: Sequence[int], texts: Sequence[str], *, load: bool = False) -> None:
        """Index new memories (their node numbers and texts). ``load``: a projection's load, whose tokens are
        stemmed through a cache of its own, dropped after it: kept in the process-wide cache, the tokens of five
        9,091-memory projects a partitioned server loaded held 8 MiB (docs/benchmarks.md, "The pool at 1M,
        again"), where a query's few tokens are what the cache is for."""
        stems: dict[str, str] | None = {} if load else None
        for start in range(0, len(nodes), _ADD_CHUNK):  # bounded scratch when a whole store loads
            self._add(nodes[start : start + _ADD_CHUNK], texts[start : start + _ADD_CHUNK], stems)

    def _add(self, nodes: Sequence[int], texts: Sequence[str], stems: dict[str, str] | None = None) -> None:
        token_lists = [_tokens(text) for text in texts]
        lengths = np.fromiter((len(tokens) for tokens in token_lists), dtype=np.int64, count=len(token_lists))
        flat = [token for tokens in token_lists for token in tokens]
        ids = self._term_ids(flat, stems)
        node_array = np.asarray(nodes, dtype=np.int64)
        self._grow_length(int(node_array.max()) + 1)
        self._length[node_array] = np.minimum(lengths, np.iinfo(np.int32).max)
        self.documents += len(nodes)
        self.tokens += int(lengths.sum())
        if int(node_array.min()) <= self._top:
            self._ordered = False
        self._top = max(self._top, int(node_array.max()))
        if not flat:
            return
        terms = np.fromiter(map(ids.__getitem__, flat), dtype=np.int64, count=len(flat))
        position = np.repeat(np.arange(len(nodes), dtype=np.int64), lengths)
        width = max(len(self.vocabulary), 1)
        pairs, counts = np.unique(position * width + terms, return_counts=True)
        term_ids = pairs % width
        self._count_documents(term_ids, single=len(nodes) == 1)
        self._pending.append((term_ids.astype(np.int32), node_array[pairs // width].astype(np.int32),
                              np.minimum(counts, _TF_MAX).astype(np.uint16)))
        self._pending_size += int(pairs.size)
        if self._pending_size > max(_PENDING_MERGE, self._docs.size // 4):
            self.merge()

    def _count_documents(self, term_ids: np.ndarray, *, single: bool) -> None:
        """Add one to each term's document frequency per document it was added for (``term_ids``: one entry per
        (document, term) pair). A ``bincount`` over the whole vocabulary cost every store O(vocabulary): 10 µs at
        15k terms, 1.6 ms at 1M; one document's terms are distinct, and a few documents' are counted by sorting."""
        size = len(self.vocabulary)
        if single:
            self._df[term_ids] += 1
        elif term_ids.size * 8 < size:
            terms, counts = np.unique(term_ids, return_counts=True)
            self._df[terms] += counts.astype(np.int32)
        else:
            self._df[:size] += np.bincount(term_ids, minlength=size).astype(np.int32)

    def _term_ids(self, tokens: list[str], cache: dict[str, str] | None = None) -> dict[str, int]:
        stems = _stems(tokens, cache)
        vocabulary = self.vocabulary
        ids = {token: vocabulary.setdefault(stem, len(vocabulary)) for token, stem in stems.items()}
        if len(vocabulary) > self._df.size:
            resized = np.zeros(grown(len(vocabulary), self._df.size), dtype=np.int32)
            resized[: self._df.size] = self._df
            self._df = resized
        return ids

    def _grow_length(self, size: int) -> None:
        if size > self._length.size:
            resized = np.zeros(grown(size, self._length.size), dtype=np.int32)
            resized[: self._length.size] = self._length
            self._length = resized

    def merge(self) -> None:
        """Fold the pending postings into the CSR."""
        if not self._pending:
            return
        terms = np.concatenate([chunk[0] for chunk in self._pending])
        docs = np.concatenate([chunk[1] for chunk in self._pending])
        tf = np.concatenate([chunk[2] for chunk in self._pending])
        self._pending, self._pending_size = [], 0
        n_terms = len(self.vocabulary)
        indptr = np.empty(n_terms + 1, dtype=np.int64)
        indptr[: self._indptr.size] = self._indptr
        indptr[self._indptr.size :] = self._indptr[-1]
        if not self._ordered:  # a node indexed out of order (never from the projection): sort everything
            old_terms = np.repeat(np.arange(self._indptr.size - 1, dtype=np.int32), np.diff(self._indptr))
            terms, docs = np.concatenate([old_terms, terms]), np.concatenate([self._docs, docs])
            tf = np.concatenate([self._tf, tf])
            self._docs, self._tf = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint16)
            indptr[:] = 0
            self._ordered = True
        order = np.lexsort((docs, terms))
        terms, docs, tf = terms[order], docs[order], tf[order]
        # Each new posting goes at the end of its term's block (equal positions keep their order).
        at = indptr[terms.astype(np.int64) + 1]
        self._docs = np.insert(self._docs, at, docs)
        self._tf = np.insert(self._tf, at, tf)
        indptr[1:] += np.cumsum(np.bincount(terms, minlength=n_terms))
        self._indptr = indptr

    # -- snapshot ----------------------------------------------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        self.merge()
        text, starts, keys, slots, _ = self.vocabulary.own_state(dense=True)  # terms: letters and digits, no NUL
        return {"keyword_terms_text": text, "keyword_terms_starts": starts, "keyword_terms_keys": keys,
                "keyword_terms_slots": slots,
                "keyword_indptr": self._indptr, "keyword_docs": self._docs, "keyword_tf": self._tf,
                "keyword_df": self._df[: len(self.vocabulary)], "keyword_length": self._length[: self._top + 1],
                "keyword_totals": np.array([self.documents, self.tokens, self._top], dtype=np.int64)}

    @classmethod
    def from_state(cls, arrays: dict[str, np.ndarray]) -> KeywordIndex:
        index = cls()
        if "keyword_terms_keys" in arrays:  # the vocabulary as saved: no dict of its terms is built
            terms = PackedStrings.packed(arrays["keyword_terms_text"], arrays["keyword_terms_starts"])
            index.vocabulary = PackedIndex.packed(terms, arrays["keyword_terms_keys"], arrays["keyword_terms_slots"])
        else:  # a format-5 or 6 snapshot: the terms one per line
            text = arrays["keyword_vocabulary"].tobytes().decode()
            listed = text.split("\n") if text else []
            index.vocabulary = PackedIndex(dict(zip(listed, range(len(listed)), strict=True)))
        # The postings are only ever replaced (a merge builds new arrays), never written in place, so they are
        # taken as they are; the per-term and per-node counts grow in place, so they are copied.
        index._indptr = arrays["keyword_indptr"].astype(np.int64, copy=False)
        index._docs = arrays["keyword_docs"].astype(np.int32, copy=False)
        index._tf = arrays["keyword_tf"].astype(np.uint16, copy=False)
        index._df = arrays["keyword_df"].astype(np.int32)
        index._length = arrays["keyword_length"].astype(np.int32)
        index.documents, index.tokens, index._top = (int(v) for v in arrays["keyword_totals"])
        return index

    def nbytes(self) -> int:
        """Bytes of the arrays (the vocabulary dict not counted)."""
        return int(self._indptr.nbytes + self._docs.nbytes + self._tf.nbytes + self._df.nbytes + self._length.nbytes
                   + sum(a.nbytes for chunk in self._pending for a in chunk))

    # -- ranking -----------------------------------------------------------------------------------
    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        docs, tf = self._docs, self._tf
        if term + 1 < self._indptr.size:
            start, stop = int(self._indptr[term]), int(self._indptr[term + 1])
            docs, tf = docs[start:stop], tf[start:stop]
        else:
            docs, tf = docs[:0], tf[:0]
        if self._pending:
            terms, pending_docs, pending_tf = self._pending[0]
            held = terms == term
            if held.any():
                docs, tf = np.concatenate([docs, pending_docs[held]]), np.concatenate([tf, pending_tf[held]])
        return docs, tf

    def query_weights(self, words: Iterable[str]) -> dict[int, int]:
        """Term id → how many of the query words (each a phrase to FTS5) stem to it; unknown terms dropped."""
        weights: dict[int, int] = {}
        for word in words:
            for term in index_terms(word):
                term_id = self.vocabulary.get(term)
                if term_id is not None:
                    weights[term_id] = weights.get(term_id, 0) + 1
        return weights

    def rank(self, words: Sequence[str], limit: int, allowed: npt.NDArray[np.bool_] | None = None,
             admitted: npt.NDArray[np.int64] | None = None) -> list[tuple[int, float]]:
        """The ``limit`` best memory nodes by BM25 for the OR of ``words`` within ``allowed`` (a mask over
        nodes; None: every memory), best first (equal scores by node), each with its score (> 0). ``admitted``:
        the nodes ``allowed`` admits, ascending, when the caller holds them (else counted here, a pass over
        every node: 0.2 ms at 1M memories)."""
        weights = self.query_weights(words)
        if not weights or limit <= 0 or self.documents == 0:
            return []
        if self._pending_size > _PENDING_MERGE:
            self.merge()
        elif len(self._pending) > 1:  # one pending chunk to scan per term
            chunks = self._pending
            self._pending = [(np.concatenate([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks]),
                              np.concatenate([c[2] for c in chunks]))]
        ids = np.fromiter(weights.keys(), dtype=np.int64, count=len(weights))
        multiplicity = np.fromiter(weights.values(), dtype=np.float64, count=len(weights))
        n = float(self.documents)
        df = self._df[ids].astype(np.float64)
        idf = multiplicity * np.maximum(np.log((n - df + 0.5) / (df + 0.5)), _MIN_IDF)
        order = np.argsort(df, kind="stable")  # rarest first
        bound = idf[order] * (K1 + 1.0)
        rest = np.concatenate([np.cumsum(bound[::-1])[::-1][1:], [0.0]])  # what the terms after each can add
        scope = _Scope(allowed, self._top + 1, admitted)  # every posting names a node up to _top
        if scope.empty:
            return []
        average = max(self.tokens / n, 1e-9)

        def contribution(which: int, tf: np.ndarray, docs: np.ndarray) -> npt.NDArray[np.float64]:
            f = tf.astype(np.float64)
            dl = self._length[docs].astype(np.float64)
            part: npt.NDArray[np.float64] = idf[which] * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * dl / average))
            return part

        cand: np.ndarray = np.zeros(0, dtype=np.int64)
        scores: np.ndarray = np.zeros(0, dtype=np.float64)
        pruned = False
        for step, which in enumerate(order.tolist()):
            docs, tf = self._postings(int(ids[which]))
            if pruned:  # only the candidates held can still reach the top k: look them up
                at = np.minimum(np.searchsorted(docs, cand), max(docs.size - 1, 0))
                hit = docs[at] == cand if docs.size else np.zeros(cand.size, dtype=bool)
                scores[hit] += contribution(which, tf[at[hit]], cand[hit])
            else:
                docs, tf = scope.within(docs, tf)
                cand, scores = _merged(cand, scores, docs.astype(np.int64), contribution(which, tf, docs))
            if cand.size >= limit and step + 1 < order.size:
                kth = float(np.partition(scores, cand.size - limit)[cand.size - limit])
                if kth > rest[step]:
                    pruned = True  # no memory outside ``cand`` can reach the top k, nor tie with it
                    alive = scores + rest[step] >= kth
                    cand, scores = cand[alive], scores[alive]
        return _best(cand, scores, limit)


class _Scope:
    """The filter of one ranking: a node mask, read per posting, or the node list, searched in a long posting
    list when the filter is much shorter."""

    def __init__(self, allowed: npt.NDArray[np.bool_] | None, size: int,
                 admitted: npt.NDArray[np.int64] | None = None) -> None:
        self.mask = allowed
        self.count = 0
        self._nodes: np.ndarray | None = None
        if allowed is not None:
            self.mask = allowed[:size] if allowed.size >= size else np.concatenate(
                [allowed, np.zeros(size - allowed.size, dtype=bool)])
            if admitted is None:
                self.count = int(np.count_nonzero(self.mask))
            else:  # the mask's nodes below ``size``, as the caller holds them: no pass over the mask
                self._nodes = admitted[: int(np.searchsorted(admitted, size))]
                self.count = int(self._nodes.size)

    @property
    def empty(self) -> bool:
        return self.mask is not None and self.count == 0

    def within(self, docs: np.ndarray, tf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.mask is None or docs.size == 0:
            return docs, tf
        if self.count * _SEARCH_FACTOR < docs.size:
            if self._nodes is None:
                self._nodes = np.flatnonzero(self.mask)
            at = np.minimum(np.searchsorted(docs, self._nodes), docs.size - 1)
            at = at[docs[at] == self._nodes]
            return docs[at], tf[at]
        keep = self.mask[docs]
        return docs[keep], tf[keep]


def _merged(cand: np.ndarray, scores: np.ndarray, docs: np.ndarray,
            parts: np.ndarray) -> tuple[np.ndarray, npt.NDArray[np.float64]]:
    """The union of two node lists, each score the sum of the node's entries (``scores`` first, then ``parts``).

    ``cand`` is ascending and a posting list nearly so, so a stable sort of the two is a linear merge of runs
    (timsort), where ``np.unique`` sorted them from scratch: at 1M memories a common term's postings are 10x
    longer, and that sort was the largest cost of the keyword leg. Each node's entries are summed in the order
    given, as ``np.bincount`` over ``np.unique``'s inverse summed them: the same floats.
    """
    if cand.size == 0 and (docs.size < 2 or bool((docs[1:] > docs[:-1]).all())):
        # The first term's postings, ascending and distinct: each sum is one entry (0.0 + part, as bincount adds)
        return docs, parts + 0.0
    nodes = np.concatenate([cand, docs])
    if nodes.size == 0:
        return nodes, np.zeros(0)
    order = np.argsort(nodes, kind="stable")
    nodes = nodes[order]
    first = np.concatenate(([True], nodes[1:] != nodes[:-1]))
    # bincount adds in the order given, which the stable sort kept: each sum is added as before, left to right
    summed = np.bincount(np.cumsum(first) - 1, weights=np.concatenate([scores, parts])[order])
    return nodes[first], summed.astype(np.float64, copy=False)


def _best(cand: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """The first ``limit`` by score, then node (``cand`` ascending): ties at the cut keep the lowest nodes, so
    the ranking is the exhaustive one's whatever the cut read."""
    if cand.size > limit:
        kth = np.partition(scores, cand.size - limit)[cand.size - limit]
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)[: limit - above.size]
        keep = np.concatenate([above, tied])
        cand, scores = cand[keep], scores[keep]
    best = np.lexsort((cand, -scores))
    return list(zip(cand[best].tolist(), scores[best].tolist(), strict=True))

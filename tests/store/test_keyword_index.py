"""The projection's keyword index: FTS5's ``bm25()`` ranking, with a top-k cut that changes nothing."""

from __future__ import annotations

import random
import sqlite3

import numpy as np
import pytest

from graphmem.store import keyword_index
from graphmem.store.keyword_index import KeywordIndex, index_terms

WORDS = [f"w{i}" for i in range(400)] + ["running", "runs", "connection", "connected", "connects", "happy",
                                         "happiness", "Café", "cafe", "the", "a", "of", "generously", "general", "is"]


def _corpus(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(WORDS))]  # Zipf-like: a few words in most texts
    return [" ".join(rng.choices(WORDS, weights=weights, k=rng.randint(1, 30))) for _ in range(count)]


def _queries(seed: int, count: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(WORDS, rng.randint(1, 5)) for _ in range(count)]


def _fts5(texts: list[str]) -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE f USING fts5(content, tokenize='porter unicode61')")
    connection.executemany("INSERT INTO f(rowid, content) VALUES (?, ?)", list(enumerate(texts)))
    return connection


def _index(texts: list[str], batch: int = 0) -> KeywordIndex:
    index = KeywordIndex()
    step = batch or len(texts)
    for start in range(0, len(texts), step):
        index.add(list(range(start, min(start + step, len(texts)))), texts[start : start + step])
    return index


def _scores(ranking: list[tuple[int, float]]) -> list[float]:
    return [round(score, 9) for _, score in ranking]


def test_terms_are_fts5s_porter_unicode61():
    texts = ["Running connections, generously", "happiness at the Café_Bar is", "ab abc x2 ponies ties caresses"]
    connection = _fts5(texts)
    connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, row)")
    assert {term for (term,) in connection.execute("SELECT term FROM v")} == {
        term for text in texts for term in index_terms(text)}


def test_scores_equal_fts5_bm25_with_and_without_a_filter():
    texts = _corpus(1, 1500)
    connection, index = _fts5(texts), _index(texts)
    mask = np.zeros(len(texts), dtype=bool)
    mask[::3] = True
    for words in _queries(2, 150):
        match = " OR ".join(f'"{word}"' for word in words)
        rows = connection.execute("SELECT rowid, -bm25(f) AS s FROM f WHERE f MATCH ? ORDER BY s DESC",
                                  [match]).fetchall()
        assert _scores(index.rank(words, 20)) == _scores(rows[:20]), words
        assert _scores(index.rank(words, 20, mask)) == _scores([r for r in rows if r[0] % 3 == 0][:20]), words


def test_the_top_k_cut_returns_the_exhaustive_top_k(monkeypatch):
    texts = _corpus(3, 3000)
    index = _index(texts)
    cut = 0
    merged = keyword_index._merged

    def counting(*args, **kwargs):  # every term read whole goes through one merge
        nonlocal reads
        reads += 1
        return merged(*args, **kwargs)

    monkeypatch.setattr(keyword_index, "_merged", counting)
    for words in _queries(4, 200):
        reads = 0
        every = index.rank(words, len(texts))  # k above the candidates: nothing is cut
        whole = reads
        reads = 0
        assert index.rank(words, 10) == every[:10], words  # ties at the cut too: the lowest nodes
        cut += reads < whole
    assert cut > 20  # the cut did skip reading common terms whole (28 of these 200 queries)
def test_built_in_batches_with_merges_ranks_as_built_at_once(monkeypatch):
    monkeypatch.setattr(keyword_index, "_PENDING_MERGE", 50)  # merge often, and rank with postings pending
    texts = _corpus(5, 800)
    once, batched = _index(texts), _index(texts, batch=37)
    assert batched.postings == once.postings
    for words in _queries(6, 60):
        assert batched.rank(words, 15) == once.rank(words, 15)


def test_a_snapshot_round_trip_ranks_the_same_and_keeps_following():
    texts = _corpus(7, 600)
    index = _index(texts[:500])
    restored = KeywordIndex.from_state(index.state())
    for follower in (index, restored):
        follower.add(list(range(500, 600)), texts[500:])
    for words in _queries(8, 40):
        assert restored.rank(words, 10) == index.rank(words, 10)


def test_terms_added_after_a_restore_are_saved_and_a_vocabulary_of_one_term_a_line_still_loads():
    texts = [*_corpus(9, 300), "zebra flamingo déjà", "flamingos ünïcode"]
    index = _index(texts[:300])
    restored = KeywordIndex.from_state(index.state())
    restored.add([300, 301], texts[300:])  # new terms: in the vocabulary's dict, after the packed ones
    assert "flamingo" in restored.vocabulary.added and "w1" not in restored.vocabulary.added
    again = KeywordIndex.from_state(restored.state())
    assert not again.vocabulary.added and dict(again.vocabulary) == dict(restored.vocabulary)
    assert {node for node, _ in again.rank(["flamingo"], 5)} == {300, 301}
    state = index.state()  # as format 6 saved it: the terms one per line, no keys
    terms = list(index.vocabulary)
    old = {name: value for name, value in state.items() if not name.startswith("keyword_terms_")}
    old["keyword_vocabulary"] = np.frombuffer("\n".join(terms).encode(), dtype=np.uint8)
    from_old = KeywordIndex.from_state(old)
    assert dict(from_old.vocabulary) == dict(index.vocabulary)
    for words in _queries(10, 20):
        assert from_old.rank(words, 10) == index.rank(words, 10)


def test_no_terms_an_empty_filter_and_unknown_words_rank_nothing():
    index = _index(["alpha beta", "beta gamma"])
    assert index.rank([], 10) == [] and index.rank(["zeta"], 10) == [] and KeywordIndex().rank(["alpha"], 5) == []
    assert index.rank(["beta"], 10, np.zeros(2, dtype=bool)) == []
    assert [node for node, _ in index.rank(["alpha", "gamma"], 10, np.array([False, True]))] == [1]


@pytest.mark.parametrize("text", ["", "   ", "___", "!!!"])
def test_a_text_without_tokens_still_counts_as_a_document(text):
    index = _index([text, "alpha"])
    assert index.documents == 2 and [node for node, _ in index.rank(["alpha"], 5)] == [1]


def test_a_full_stem_cache_is_replaced_mid_text_without_losing_a_token(monkeypatch):
    # A store past the cache's size (about 950k memories of the scale bench) crashed a write here: the cache was
    # cleared while the text's already-cached tokens were still to be read back from it.
    stems = keyword_index._Stems(max_cached=3)
    assert stems(["retries", "webhooks"]) == {"retries": "retri", "webhooks": "webhook"}
    assert stems(["retries", "webhooks", "deliveries", "handlers"]) == {
        "retries": "retri", "webhooks": "webhook", "deliveries": "deliveri", "handlers": "handler"}
    monkeypatch.setattr(keyword_index, "_stems", stems)
    index = KeywordIndex()
    index.add([0, 1], ["retries webhooks", "deliveries handlers and more words"])
    index.add([2], ["retries of webhook deliveries"])
    assert {node for node, _ in index.rank(["webhook", "retries"], 3)} == {0, 2}


def test_a_load_ranks_as_a_follow_and_leaves_the_process_wide_stem_cache_as_it_was(monkeypatch):
    stems = keyword_index._Stems(max_cached=50)  # a load's own cache is bounded too: this one fills twice
    monkeypatch.setattr(keyword_index, "_stems", stems)
    texts = _corpus(9, 300)
    loaded, followed = KeywordIndex(), KeywordIndex()
    loaded.add(list(range(len(texts))), texts, load=True)
    assert stems._cache == {}
    followed.add(list(range(len(texts))), texts)
    assert stems._cache  # a write's tokens do go through it
    for words in _queries(10, 40):
        assert loaded.rank(words, 10) == followed.rank(words, 10)


def test_stems_from_many_threads_at_once_are_all_right():
    import threading

    stems = keyword_index._Stems(max_cached=50)
    words = [f"running{n}" for n in range(400)] + ["retries", "deliveries"]
    wrong: list[str] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(200):
            sample = rng.sample(words, 20)
            got = stems(sample)
            if set(got) != set(sample) or got.get("retries", "retri") != "retri":
                wrong.append(str(sample))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_merging_a_term_gives_the_sums_of_a_sort_from_scratch():
    """The rank's merge of a term's postings into the candidates (a linear merge of two sorted runs) gives the
    nodes and the very floats of ``np.unique`` + ``np.bincount``, duplicates and unsorted pending postings too."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        cand = np.unique(rng.integers(0, 5000, rng.integers(0, 400)))
        docs = rng.integers(0, 5000, rng.integers(0, 400))  # a pending chunk may follow out of order
        if rng.random() < 0.5:
            docs = np.unique(docs)
        scores, parts = rng.random(cand.size) * 7, rng.random(docs.size) * 3
        nodes, summed = keyword_index._merged(cand, scores, docs, parts)
        expected, inverse = np.unique(np.concatenate([cand, docs]), return_inverse=True)
        sums = np.bincount(inverse, weights=np.concatenate([scores, parts]), minlength=expected.size)
        assert nodes.tolist() == expected.tolist()
        assert summed.tolist() == sums.tolist()  # bit for bit: the ranking's scores are unchanged


def test_a_filter_given_as_its_nodes_ranks_as_its_mask():
    """The caller's list of the filter's nodes (the projection keeps it with the mask) stands in for counting the
    mask: the same ranking, for filters small and large, and nodes past the last posting."""
    index = _index(_corpus(7, 600))
    rng = np.random.default_rng(7)
    for share in (0.002, 0.05, 0.5, 1.0):
        mask = rng.random(700) < share  # 100 nodes past the index's last posting
        nodes = np.flatnonzero(mask)
        for words in _queries(8, 40):
            assert index.rank(words, 10, mask, nodes) == index.rank(words, 10, mask), words


@pytest.mark.parametrize("batch", [1, 3, 40, 0])
def test_document_frequencies_count_each_document_once_however_the_texts_are_added(batch):
    """One text at a time (a single store's follow), a few, or many at once (a bulk follow, a load): each term's
    document frequency is the number of texts it appears in, and the ranking is the same."""
    texts = _corpus(11, 300)
    index = _index(texts, batch)
    expected = {}
    for text in texts:
        for term in set(index_terms(text)):
            expected[term] = expected.get(term, 0) + 1
    vocabulary = index.vocabulary
    assert {term: int(index._df[vocabulary[term]]) for term in expected} == expected
    assert int(index._df[len(vocabulary):].sum()) == 0
    whole = _index(texts)
    for query in _queries(12, 30):
        assert index.rank(query, 10) == whole.rank(query, 10)

"""The compact tokenizer (nlp/bpe.py) gives the Rust tokenizer's token ids, so the embedder's vectors, exactly."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from nlp import embedding
from nlp.bpe import CompactBPE

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"


@pytest.fixture(scope="module")
def path() -> Path:
    return embedding._verified(embedding.package_dir(), *embedding._TOKENIZER)


@pytest.fixture(scope="module")
def tokenizers(path: Path) -> tuple[CompactBPE, Tokenizer]:
    rust = Tokenizer.from_file(str(path))
    rust.no_padding()
    rust.no_truncation()
    return CompactBPE.from_file(path)[0], rust


def _strings(value: object, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            _strings(item, found)
    elif isinstance(value, list):
        for item in value:
            _strings(item, found)


def _texts(folder: Path) -> set[str]:
    """Every string of the folder's JSON and JSON-lines files, and every line of its other files."""
    found: set[str] = set()
    for file in sorted(folder.rglob("*")):
        if not file.is_file():
            continue
        raw = file.read_text(encoding="utf-8", errors="replace")
        if file.suffix in (".json", ".jsonl"):
            try:
                _strings(json.loads(raw), found)
            except json.JSONDecodeError:  # JSON lines
                for line in raw.splitlines():
                    _strings(json.loads(line), found)
        else:
            found.update(raw.splitlines())
    return found


def _assert_same(tokenizers: tuple[CompactBPE, Tokenizer], texts: list[str]) -> None:
    compact, rust = tokenizers
    expected = [encoding.ids for encoding in rust.encode_batch(texts, add_special_tokens=False)]
    differing = [text for text, ids in zip(texts, expected, strict=True) if compact.ids(text) != ids]
    assert differing == []


def test_every_text_of_the_repository_data_tokenizes_as_the_rust_tokenizer_does(tokenizers):
    texts = sorted(_texts(ROOT / "data"))
    assert len(texts) > 1000
    _assert_same(tokenizers, texts)


@pytest.mark.skipif(not EVAL.is_dir(), reason="the evaluation sets (../shared/eval) are not beside the repository")
def test_every_text_of_the_evaluation_sets_tokenizes_as_the_rust_tokenizer_does(tokenizers):
    texts = sorted(_texts(EVAL))
    assert len(texts) > 10_000  # MADial, LoCoMo, MuSiQue, HotpotQA: 18k strings, 3.4M characters
    _assert_same(tokenizers, texts)


EDGES = ["", " ", "  ", "a", " a", "a ", "  a  b ", "\t\n\r", "hello<s>world", "<s>", " <s> ", "a</s>", "<unk>x",
         "x <unk>", "<<s>>", "</s><s>", "<s", "</s", "<unk", "<0x41>", "\u2581", "a\u2581b", "\u2581\u2581x",
         "é ü ß ø", "😀 🚀 👩‍👩‍👧", "\x00\x01\x7f", "日本語のテキスト", "한국어", "ñandú", "e\u0301", "ﬁ",
         "Idempotency-Key: POST /payments → 409", "src/app/main.py:42", "(2023-12-25)", "aaaaaaaaaaaaaaaa",
         "the the the the", "What did Caroline research?", "x" * 5000, "word " * 600]


def test_edge_cases_and_random_texts_tokenize_as_the_rust_tokenizer_does(tokenizers):
    alphabet = "abcdeéz  ▁<>/s0123456789.,-'\n\t😀日ß\u0301"
    generator = random.Random(26)
    fuzzed = ["".join(generator.choice(alphabet) for _ in range(generator.randint(0, 60))) for _ in range(3000)]
    _assert_same(tokenizers, EDGES + fuzzed)


def test_a_word_tokenized_again_comes_from_its_cache_the_same(tokenizers):
    compact, rust = tokenizers
    text = "the deploy rolled back, the deploy rolled forward"
    first = compact.ids(text)
    assert compact.ids(text) == first == rust.encode(text, add_special_tokens=False).ids


def test_caches_that_fill_and_empty_give_the_same_ids(tokenizers, monkeypatch):
    """The word cache's two generations and the bounded pair cache: tokenizing through many emptyings (tiny
    bounds) gives the Rust tokenizer's ids, a word in use survives its generation's turn, and the pair cache
    never holds more than its bound."""
    from nlp import bpe

    path_compact, rust = tokenizers
    compact = CompactBPE(path_compact._pieces, path_compact._bytes, path_compact._keys, path_compact._values,
                         path_compact._specials)
    monkeypatch.setattr(bpe, "_CACHED_WORDS", 8)
    monkeypatch.setattr(bpe, "_CACHED_PAIRS", 16)
    generator = random.Random(7)
    words = ["deploy", "rollback", "Ontario", "naïve", "東京", "payments", "timed", "out", "webhook", "x1"]
    for _ in range(300):
        text = " ".join(generator.choice(words) + generator.choice(["", "s", "ed", "ing"]) for _ in range(5))
        assert compact.ids(text) == rust.encode(text, add_special_tokens=False).ids
        assert len(compact._pairs) <= 16
        assert len(compact._cache) <= 8 and len(compact._older) <= 8
    compact.ids("deploy")
    for word in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"):
        compact.ids(word)
        compact.ids("deploy")  # in use: moved back into the newer generation before its own is dropped
    assert "\u2581deploy" in compact._cache or "\u2581deploy" in compact._older


def test_a_file_of_another_shape_is_refused(path, tmp_path):
    config = json.loads(path.read_text(encoding="utf-8"))
    config["pre_tokenizer"] = {"type": "Whitespace"}
    other = tmp_path / "tokenizer.json"
    other.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ValueError, match=r"not the byte-fallback BPE"):
        CompactBPE.from_file(other)


def test_the_embedder_gives_the_same_vectors_from_either_tokenizer():
    embedder = embedding.load_embedder()
    texts = sorted(_texts(ROOT / "data"))[:400]
    few = np.vstack([embedder.embed([text]) for text in texts])  # each alone: the compact tokenizer
    many = embedder.embed(texts)  # one batch of 400 texts: more than _FEW_CHARACTERS, the Rust tokenizer
    assert sum(map(len, texts)) > embedding._FEW_CHARACTERS
    np.testing.assert_array_equal(few, many)


def test_a_serving_process_that_stores_and_searches_never_loads_the_rust_tokenizer(tmp_path):
    script = f"""
import sys
from graphmem import MemoryService, Settings
service = MemoryService(Settings.load(environ={{}}, db={str(tmp_path / "store.db")!r}))
service.store("The deploy rolled back at noon because the payments service timed out", project="p01")
hits = service.search("why did the deploy roll back", project="p01").hits
assert hits, "the stored memory is found"
print("tokenizers" in sys.modules)
service.close()
"""
    done = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True, check=True,
                          cwd=ROOT, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_the_pieces_with_a_letter_are_the_ones_the_rust_vocabulary_names(path, tokenizers):
    _compact, rust = tokenizers
    expected = np.zeros(len(embedding.load_embedder().table), dtype=bool)
    for token, index in rust.get_vocab().items():
        if index < len(expected) and any(char.isalpha() for char in token.lstrip("\u2581")):
            expected[index] = True
    np.testing.assert_array_equal(embedding.load_embedder().meaningful, expected)
    assert 20_000 < expected.sum() < 32_000

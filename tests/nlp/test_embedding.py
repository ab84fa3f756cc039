"""The static embedding model loads offline from the installed package, pinned by hash, and carries meaning."""

from __future__ import annotations

import numpy as np
import pytest

from nlp import embedding
from nlp.embedding import EmbeddingUnavailable, load_embedder


def test_synonyms_are_closer_than_unrelated_words():
    embedder = load_embedder()
    nervous, anxious, invoice = embedder.embed(["nervous", "anxious", "invoice"])
    assert nervous @ anxious > nervous @ invoice + 0.2
    party = embedder.embed_one("New Year's Eve party")
    assert party @ embedder.embed_one("Christmas party") > party @ embedder.embed_one("a failing unit test")


def test_vectors_are_unit_length_and_empty_text_is_zero():
    vectors = load_embedder().embed(["Roll back a bad release", ""])
    assert np.isclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)
    assert not vectors[1].any()


def test_a_model_file_that_differs_from_its_pin_is_refused(tmp_path, monkeypatch):
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "l2_supercat_256.safetensors").write_bytes(b"not the pinned weights")
    monkeypatch.setattr(embedding, "package_dir", lambda: tmp_path)
    with pytest.raises(EmbeddingUnavailable, match="expected the pinned"):
        embedding._load()


def test_a_missing_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(embedding.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EmbeddingUnavailable, match="pip install wordllama"):
        embedding.package_dir()


def test_a_background_load_that_fails_gives_zero_vectors_and_says_why_once(monkeypatch):
    def refuse() -> None:
        raise EmbeddingUnavailable("model file missing: test")

    monkeypatch.setattr(embedding, "load_embedder", refuse)
    warnings: list[str] = []
    loader = embedding.BackgroundEmbedder(warnings.append)
    vectors = loader.embed(["nervous", "anxious"])
    assert vectors.shape == (2, embedding.DIMENSIONS) and not vectors.any()
    assert loader.ready() and warnings == ["graphmem: semantic recall is off: model file missing: test"]


def test_the_background_loader_embeds_like_the_model():
    loader = embedding.BackgroundEmbedder(print)
    np.testing.assert_array_equal(loader.embed(["roll back"]), load_embedder().embed(["roll back"]))



def test_the_tokenizer_without_its_word_cache_gives_the_tokens_a_cached_one_gives():
    from tokenizers import Tokenizer

    cached = Tokenizer.from_file(str(embedding._verified(embedding.package_dir(), *embedding._TOKENIZER)))
    texts = ["The deploy rolled back at noon", "the deploy rolled back at noon", "Café au lait, s'il vous plaît"]
    for text in texts * 2:  # the second pass reads the cached tokenizer's cache
        assert load_embedder().tokenizer.encode(text, add_special_tokens=False).ids == cached.encode(
            text, add_special_tokens=False).ids


def test_a_loader_not_started_loads_on_its_first_embed_and_texts_wait_until_then():
    loader = embedding.BackgroundEmbedder(print, start=False)
    assert not loader.ready()  # not loading: new texts wait (semantic_index defers them) and nothing loads
    assert loader._thread.ident is None  # no thread started: the process never waits for one at exit
    np.testing.assert_array_equal(loader.embed(["roll back"]), load_embedder().embed(["roll back"]))
    assert loader.ready()

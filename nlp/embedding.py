"""Static text embeddings: meaning on a CPU in microseconds, with nothing downloaded.

The vectors are WordLlama's ``l2_supercat`` token table (32k Llama-2 sub-word tokens × 256 dimensions, a
16 MB safetensors file) shipped inside the ``wordllama`` wheel on PyPI. A text's vector is the mean of its
word tokens' vectors (tokens with a letter), L2-normalised, so cosine is a dot product. Only the two data
files are read here (the package's own loader would reach for the network when a file is missing), both pinned
by SHA-256, so a changed wheel fails loudly instead of silently changing every ranking: the table mapped from its
safetensors file, and the tokenizer file twice over, by ``nlp/bpe.py`` (the same token ids in pure Python, a few
hundred KiB: queries and single stores) and by ``tokenizers`` (Rust, 24 MiB of RSS with its import, loaded by a
process's first large batch: a project's texts, a bulk import, a long document). Licence and size:
docs/retrieval.md ("The semantic signal").

Measured (docs/retrieval.md): 14,700 texts/s in batches and 0.07 ms for one text on one core.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nlp.bpe import CompactBPE
from nlp.heap import release_free_heap

__all__ = ["DIMENSIONS", "BackgroundEmbedder", "EmbeddingUnavailable", "StaticEmbedder", "load_embedder",
           "package_dir"]

Vectors = npt.NDArray[np.float32]

_WEIGHTS = ("weights/l2_supercat_256.safetensors",
            "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5")
_TOKENIZER = ("tokenizers/l2_supercat_tokenizer_config.json",
              "93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68")
_TENSOR = "embedding.weight"
DIMENSIONS = 256  # of the pinned table
_BATCH = 512  # texts per tokenizer call: long enough to amortise the call, short enough to bound padding
_MAX_TOKENS = 2048  # a 50,000-character memory is cut here: its mean is settled long before
# Texts of at most this many characters in all are tokenized in Python (nlp/bpe.py): a query, a stored memory
# with its concepts' names. More take the Rust tokenizer.
_FEW_CHARACTERS = 4096


class EmbeddingUnavailable(RuntimeError):
    """The model data is not installed, or does not match its pinned hash."""


class StaticEmbedder:
    """Mean-pooled static token embeddings (float32 vectors, unit length; zeros for a text with no tokens).

    Examples
    --------
    >>> embedder = load_embedder()
    >>> vectors = embedder.embed(["I feel nervous", "I feel anxious", "the invoice total"])
    >>> bool(vectors[0] @ vectors[1] > vectors[0] @ vectors[2])
    True
    """

    def __init__(self, table: npt.NDArray[np.floating[Any]], tokenizer: Any = None, *,
                 compact: CompactBPE | None = None, letters: bytearray | None = None,
                 load_tokenizer: Callable[[], Any] | None = None) -> None:
        """``tokenizer`` is the Rust one (``tokenizers.Tokenizer``), or None with ``load_tokenizer`` to load it
        on the first batch too large for ``compact``, the same tokenizer in Python (``nlp/bpe.py``), which
        then tokenizes the rest; ``letters`` marks the pieces with a letter (needed without ``tokenizer``)."""
        # Kept as shipped (float16: 16 MB, mapped from the file by the loader; a float32 copy held 32 MB in every
        # server process); a text's tokens are averaged in float32, so the vectors are the ones a float32 table
        # gives.
        # A plain array over the same memory: indexing a np.memmap goes through its Python __getitem__ and
        # __array_finalize__, ~15 µs of each text's pooling (a store's follow pools a dozen texts).
        self.table = np.asarray(table) if table.flags.c_contiguous else np.ascontiguousarray(table)
        if tokenizer is None and (load_tokenizer is None or compact is None or letters is None):
            raise ValueError("a tokenizer, or the compact one, its letters and a loader for the Rust one")
        self._tokenizer = tokenizer
        self._load_tokenizer = load_tokenizer
        self._loading = threading.Lock()
        self.compact = compact
        self.dimensions = int(self.table.shape[1])
        # Digits and punctuation carry no meaning in a static table, and every memory has some: the
        # "(2023-12-25)" of a dated memory is twelve tokens. Pooling only tokens with a letter lifted
        # cosine-alone R@5 from 0.507 to 0.548 on the conversation-context set, and no set lost.
        self.meaningful = np.zeros(len(self.table), dtype=bool)
        if letters is not None:
            marked = np.frombuffer(bytes(letters[:len(self.table)]), dtype=np.uint8).astype(bool)
            self.meaningful[:len(marked)] = marked
        else:
            for token, index in tokenizer.get_vocab().items():
                if index < len(self.table) and any(ch.isalpha() for ch in token.lstrip("\u2581")):
                    self.meaningful[index] = True

    @property
    def tokenizer(self) -> Any:
        """The Rust tokenizer (loaded now if it has not been)."""
        if self._tokenizer is None:
            with self._loading:
                if self._tokenizer is None:
                    assert self._load_tokenizer is not None
                    self._tokenizer = self._load_tokenizer()
        return self._tokenizer

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids, without special tokens added: the compact tokenizer's for a few short texts
        (``_FEW_CHARACTERS`` in all), the Rust one's for more (the same ids; about three times faster on
        new words, so a batch of a project's texts or a long document takes it, loaded then)."""
        if self.compact is not None and sum(map(len, texts)) <= _FEW_CHARACTERS:
            return [self.compact.ids(text) for text in texts]
        return [encoding.ids for encoding in self.tokenizer.encode_batch(texts, add_special_tokens=False)]

    def embed(self, texts: list[str]) -> Vectors:
        """One unit vector per text (rows of zeros for texts without a token)."""
        result = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(texts), _BATCH):
            for offset, token_ids in enumerate(self.token_ids(texts[start:start + _BATCH])):
                ids = np.asarray(token_ids[:_MAX_TOKENS], dtype=np.int64)
                words = ids[self.meaningful[ids]]
                ids = words if words.size else ids
                if ids.size:  # the mean, as ndarray.mean computes it (float32 sum, divided), without its wrapper
                    result[start + offset] = np.add.reduce(self.table[ids].astype(np.float32), axis=0) / np.float32(
                        ids.size)
        norms = np.linalg.norm(result, axis=1, keepdims=True)
        np.divide(result, norms, out=result, where=norms > 0)
        return result

    def embed_one(self, text: str) -> Vectors:
        """The unit vector of one text."""
        vector: Vectors = self.embed([text])[0]
        return vector

    def ready(self) -> bool:
        return True


class BackgroundEmbedder:
    """The embedder, loaded on a thread so that opening a store never waits the 0.3 s it takes.

    ``embed`` waits for the load. If the load fails (a file that no longer matches its pin), every vector
    is zero, so the semantic leg finds nothing and recall is the keyword and graph ranking; ``problem``
    says why, and the warning is printed once.

    With ``start=False`` the load begins on the first :meth:`embed` instead: a command that
    never embeds (``graphmem show``, ``stats``, ``sessions``, ``export``) never pays for the model (0.35 s of
    CPU under load, and an exit that waited for the thread; docs/benchmarks.md, section 7a).
    """

    dimensions = DIMENSIONS

    def __init__(self, warn: Any, *, start: bool = True) -> None:
        self._loaded: StaticEmbedder | None = None
        self.problem: str | None = None
        self._warn = warn
        # Not a daemon: a daemon thread killed at exit inside the tokenizer's native code aborts the process
        # ("FATAL: exception not rethrown"), so a process that ends within the 0.3 s waits for the load.
        self._thread = threading.Thread(target=self._load, name="graphmem-embedder", daemon=False)
        self._starting = threading.Lock()
        if start:
            self.start()

    def start(self) -> None:
        """Begin the load, unless it has begun."""
        with self._starting:
            if self._thread.ident is None:
                self._thread.start()

    def _load(self) -> None:
        try:
            self._loaded = load_embedder()
        except EmbeddingUnavailable as missing:
            self.problem = str(missing)

    def ready(self) -> bool:
        """Whether the model has loaded (or failed to). Before the load has begun, no: new texts wait, and the
        first read of a vector (:meth:`embed`) begins the load and embeds them."""
        return self._thread.ident is not None and not self._thread.is_alive()

    def embed(self, texts: list[str]) -> Vectors:
        self.start()
        self._thread.join()
        if self._loaded is None:
            self._warn(f"graphmem: semantic recall is off: {self.problem}")
            return np.zeros((len(texts), self.dimensions), dtype=np.float32)
        return self._loaded.embed(texts)


_LOCK = threading.Lock()
_LOADED: dict[str, StaticEmbedder] = {}


def load_embedder() -> StaticEmbedder:
    """The process's embedder, loaded once from the installed ``wordllama`` package's data files.

    Raises :class:`EmbeddingUnavailable` when the package is missing or a file's hash differs.
    """
    with _LOCK:
        if "default" not in _LOADED:
            _LOADED["default"] = _load()
        return _LOADED["default"]


def package_dir() -> Path:
    spec = importlib.util.find_spec("wordllama")  # locate without importing it (it pulls in requests)
    if spec is None or spec.origin is None:
        raise EmbeddingUnavailable("the semantic signal needs the 'wordllama' package: pip install wordllama")
    return Path(spec.origin).parent


def _verified(root: Path, relative: str, digest: str) -> Path:
    path = root / relative
    if not path.is_file():
        raise EmbeddingUnavailable(f"model file missing: {path}")
    hasher = hashlib.sha256()
    with path.open("rb") as stream:  # a block at a time: the whole file read at once was 16 MB of scratch
        for block in iter(lambda: stream.read(1 << 20), b""):
            hasher.update(block)
    if (actual := hasher.hexdigest()) != digest:
        raise EmbeddingUnavailable(f"model file {path} has SHA-256 {actual}, expected the pinned {digest}")
    return path


_SAFETENSORS_DTYPES = {"F16": "<f2", "F32": "<f4"}


def _mapped_tensor(path: Path, name: str) -> npt.NDArray[np.floating[Any]]:
    """One tensor of a safetensors file, mapped read-only rather than read: a page of the table is read into the
    process when a text first uses one of its rows. The scale bench's texts use 1,080 of the 32,000 tokens, 801 of
    the table's 4,000 pages (3 of its 16 MiB; docs/benchmarks.md, "The pool at 1M, again"); the mapped pages are
    the page cache's, shared by every server process on the machine.

    The format: an 8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and byte
    range after the header, then the bytes."""
    with path.open("rb") as stream:
        (length,) = struct.unpack("<Q", stream.read(8))
        header = json.loads(stream.read(length))
    entry = header[name]
    start, stop = entry["data_offsets"]
    dtype = np.dtype(_SAFETENSORS_DTYPES[entry["dtype"]])
    shape = tuple(entry["shape"])
    if stop - start != dtype.itemsize * int(np.prod(shape)):
        raise EmbeddingUnavailable(f"model file {path}: tensor {name} is not {shape} of {dtype}")
    return np.memmap(path, dtype=dtype, mode="r", offset=8 + length + start, shape=shape)


def _load() -> StaticEmbedder:
    root = package_dir()
    table = _mapped_tensor(_verified(root, *_WEIGHTS), _TENSOR)
    path = _verified(root, *_TOKENIZER)
    try:
        compact, letters = CompactBPE.from_file(path)
    except ValueError:  # not the file's shape it reproduces (cannot happen with the pinned file): Rust alone
        return StaticEmbedder(table, _rust_tokenizer(path))
    release_free_heap()  # the JSON's parse: 10 MiB freed, kept resident until trimmed
    return StaticEmbedder(table, compact=compact, letters=letters, load_tokenizer=lambda: _rust_tokenizer(path))


def _rust_tokenizer(path: Path) -> Any:
    """HF ``tokenizers``' BPE of the file: 24 MiB of RSS with its import, loaded by a process's first large
    batch (or by a file the compact tokenizer does not reproduce)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    _without_word_cache(tokenizer)
    return tokenizer


def _without_word_cache(tokenizer: Any) -> None:
    """Turn off the BPE model's cache of tokenized words.

    This tokenizer has no pre-tokenizer that splits at spaces, so each "word" it caches is a whole text,
    and a memory's text is almost never tokenized twice. Embedding the texts of eight 9,091-memory projects
    (issue 26: a partitioned server loading projects from their rows) grew the process by 136 MiB with the
    cache, 27 MiB without (78 and 23 with ``TOKENIZERS_PARALLELISM=false``), and took no longer. Turning it off
    changes no token, so no vector. Older ``tokenizers`` releases have no ``_resize_cache``: they keep
    their cache.
    """
    resize = getattr(tokenizer.model, "_resize_cache", None)
    if resize is not None:
        resize(0)

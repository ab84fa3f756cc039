"""The public entry point: :class:`ConceptExtractor` turns text into concept mentions."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlp.normalize import normalize_key
from nlp.salience import aggregate_mentions
from nlp.types import ParsedObservation

# spaCy and every module built on it load with the first pipeline, not with ``import nlp``: the CLI's
# --help and the MCP server's start (``initialize``) never parse, and spaCy's import is over a second.
if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

    from nlp.doc_view import DocView
    from nlp.matchers import MultiTokenMatcher
    from nlp.token_info import TokenInfoCache

__all__ = ["BLANK_MODEL", "ConceptExtractor", "normalize_key"]

BLANK_MODEL = "blank"


# spaCy keeps every string it has seen (its vocabulary's strings and lexemes), and the token cache every word:
# a server that parses for months would grow without end (0.7 KB per parse of new text, measured over 60,000
# scale-bench texts). A pipeline that has taken in this many new strings is replaced by a fresh one (about 0.3 s
# for blank; the same text parses the same with either).
_MAX_NEW_STRINGS = 50_000


@dataclass(frozen=True, slots=True)
class _Pipeline:
    nlp: Language
    matcher: MultiTokenMatcher
    tokens: TokenInfoCache
    is_trained: bool
    base_strings: int  # the vocabulary's strings when it was built

    def grown(self) -> bool:
        """Whether the vocabulary has taken in more than ``_MAX_NEW_STRINGS`` strings since it was built."""
        return len(self.nlp.vocab.strings) - self.base_strings > _MAX_NEW_STRINGS


_PIPELINES: dict[str, _Pipeline] = {}
_PIPELINES_LOCK = threading.Lock()


def _pipeline(model: str, stale: _Pipeline | None = None) -> _Pipeline:
    """Return the process-wide pipeline for ``model``, building it on first use (about 0.3 s for blank), and
    again when ``stale`` is still the shared one and has grown (another extractor may have replaced it)."""
    with _PIPELINES_LOCK:
        current = _PIPELINES.get(model)
        if current is None or (current is stale and current.grown()):
            _PIPELINES[model] = current = _build_pipeline(model)
        return current


def _build_pipeline(model: str) -> _Pipeline:
    import spacy

    from nlp.heap import release_free_heap
    from nlp.lexicon import get_lexicon
    from nlp.matchers import LEXEME_ATTRIBUTES, MultiTokenMatcher
    from nlp.token_info import TokenInfoCache
    from nlp.tokenizer import install_code_tokenizer

    if model == BLANK_MODEL:
        nlp = spacy.blank("en")
        _compute_only(nlp, LEXEME_ATTRIBUTES)
    elif spacy.util.is_package(model) or Path(model).is_dir():
        # Lemmas come from our lexicon for every pipeline, so keys do not change when a model is configured.
        nlp = spacy.load(model, exclude=["lemmatizer"])
    else:
        raise ValueError(
            f"spaCy pipeline {model!r} is not installed. Install it (python -m spacy download {model}) "
            f"or use model={BLANK_MODEL!r}, which needs no download."
        )
    install_code_tokenizer(nlp)
    lexicon = get_lexicon()
    matcher = MultiTokenMatcher(nlp.vocab, lexicon.stop_words)
    built = _Pipeline(nlp, matcher, TokenInfoCache(lexicon), is_trained=bool(nlp.pipe_names),
                      base_strings=len(nlp.vocab.strings))
    release_free_heap()  # the lemma tables' JSON and the pipeline's scratch (nlp/heap.py)
    return built


def _compute_only(nlp: Language, attributes: frozenset[str]) -> None:
    """Compute only ``attributes`` for each new lexeme of a blank pipeline (in place).

    spaCy computes two dozen attributes for every word it has not seen (shape, prefix, suffix, norm, like_num,
    is_currency, ...: Python functions, three of them adding strings to the vocabulary). A blank pipeline has no
    component that reads them, and graphmem reads a token's text only, except the matchers' patterns: a text of
    new words tokenized 0.15-0.2 ms faster (0.7 ms a 480-character passage, docs/benchmarks.md), with the same
    parse. A trained pipeline keeps them all: its models read them."""
    from spacy.attrs import IDS

    wanted = {IDS[name] for name in attributes}
    vocab: Any = nlp.vocab  # spaCy's stub for Vocab leaves out lex_attr_getters
    vocab.lex_attr_getters = {attr: getter for attr, getter in vocab.lex_attr_getters.items() if attr in wanted}


class ConceptExtractor:
    """Extract concept mentions from text.

    Parameters
    ----------
    model : str
        ``"blank"`` (default) uses ``spacy.blank("en")`` with graphmem's rules and needs no download. Any
        other value names an installed spaCy pipeline (e.g. ``"en_core_web_sm"``), whose noun chunks and
        entities are added to the rule-based concepts.
    max_phrase_words : int
        Longest multi-word phrase concept.

    Raises
    ------
    ValueError
        If ``model`` is not installed, or ``max_phrase_words`` is below 2.

    Notes
    -----
    The spaCy pipeline is loaded once per process and shared by all extractors of the same model. Parsing is
    safe from several threads: spaCy's tokenizer and matcher run under the GIL, and our own shared state is
    caches of deterministic values, where a lost race only recomputes an entry. ``model`` may also be the path
    of a saved pipeline directory.

    Examples
    --------
    >>> extractor = ConceptExtractor()
    >>> parsed = extractor.parse("Every webhook handler needs an idempotency key.")
    >>> [m.key for m in parsed.mentions if m.kind == "phrase"]
    ['webhook handler', 'idempotency key']
    >>> extractor.parse("Run npm run build:worker first.").keys()[:3]
    ('npm run build:worker', 'npm', 'build:worker')
    """

    def __init__(self, model: str = BLANK_MODEL, *, max_phrase_words: int = 4) -> None:
        if max_phrase_words < 2:
            raise ValueError(f"max_phrase_words must be at least 2, not {max_phrase_words}")
        self.model = model
        self.max_phrase_words = max_phrase_words
        self._loaded: _Pipeline | None = None
        if model != BLANK_MODEL:
            self._loaded = _pipeline(model)  # a named model is checked (installed?) when configured

    def _current(self) -> _Pipeline:
        """The pipeline one call uses from its start to its end: the shared one, built on first use (a blank one
        in about 0.3 s plus spaCy's import) and replaced once its vocabulary has grown (``_MAX_NEW_STRINGS``)."""
        loaded = self._loaded
        if loaded is None or loaded.grown():
            self._loaded = loaded = _pipeline(self.model, stale=loaded)
        return loaded

    def parse(self, text: str) -> ParsedObservation:
        """Extract the concepts of one text.

        Parameters
        ----------
        text : str
            An observation or passage; any language or script (non-English text gets the generic rules).

        Returns
        -------
        ParsedObservation
        """
        pipeline = self._current()
        return self._observation(pipeline, pipeline.nlp(text), text)

    def parse_many(self, texts: Iterable[str], batch_size: int = 256) -> list[ParsedObservation]:
        """Extract the concepts of many texts, streaming them through ``nlp.pipe``.

        Parameters
        ----------
        texts : iterable of str
            The texts, in order.
        batch_size : int
            Texts per spaCy batch.

        Returns
        -------
        list of ParsedObservation
            One per text, in input order.
        """
        texts = list(texts)
        pipeline = self._current()
        docs = pipeline.nlp.pipe(texts, batch_size=batch_size)
        return [self._observation(pipeline, doc, text) for doc, text in zip(docs, texts, strict=True)]

    def query_keys(self, text: str) -> list[tuple[str, tuple[str, ...]]]:
        """Return each query concept with the keys to try for it, best first.

        Parameters
        ----------
        text : str
            A search query.

        Returns
        -------
        list of (str, tuple of str)
            ``(key, fallbacks)`` for every concept except identifier parts (they appear among the fallbacks of
            their identifier). ``fallbacks`` starts with ``key``, then its surface/lemma variants, then parts
            (a phrase's head first). Look each up in the vocabulary dict: matches are whole keys by
            construction.

        Examples
        --------
        >>> dict(ConceptExtractor().query_keys("build_worker webhooks"))["build worker"]
        ('build worker', 'build_worker', 'build', 'worker')
        """
        pipeline = self._current()
        return self._query_keys(pipeline, self._observation(pipeline, pipeline.nlp(text), text))

    def query_parse(self, text: str, max_n: int = 4) -> tuple[list[tuple[str, tuple[str, ...]]], list[str]]:
        """:meth:`query_keys` and :meth:`candidate_ngrams` of one query from one parse (recall needs both).

        >>> keys, ngrams = ConceptExtractor().query_parse("build_worker webhooks", max_n=2)
        >>> keys == ConceptExtractor().query_keys("build_worker webhooks")
        True
        >>> ngrams == ConceptExtractor().candidate_ngrams("build_worker webhooks", max_n=2)
        True
        """
        from nlp.query import word_ngrams

        if max_n < 1:
            raise ValueError(f"max_n must be at least 1, not {max_n}")
        pipeline = self._current()
        doc = pipeline.nlp(text)
        view = self._view(pipeline, doc, text)
        return self._query_keys(pipeline, self._observation(pipeline, doc, text, view)), word_ngrams(view, max_n)

    @staticmethod
    def _query_keys(pipeline: _Pipeline, parsed: ParsedObservation) -> list[tuple[str, tuple[str, ...]]]:
        parts = {mention.key: mention.parts for mention in parsed.mentions}
        from nlp.query import fallback_keys

        word_key = pipeline.tokens.word_key
        # The phrase spelled by an identifier ("user id" of getUserById) is already its fallback.
        identifier_spans = {(m.start, m.end) for m in parsed.mentions if m.kind == "identifier"}
        return [
            (mention.key, fallback_keys(mention, lambda key: parts.get(key, ()), word_key))
            for mention in parsed.mentions
            if mention.kind != "part"
            and not (mention.kind == "phrase" and (mention.start, mention.end) in identifier_spans)
        ]

    def word_key(self, word: str) -> str:
        """The concept key of one word: its normalized lookup lemma.

        >>> ConceptExtractor().word_key("Webhooks")
        'webhook'
        """
        return self._current().tokens.word_key(word.lower())

    def candidate_ngrams(self, text: str, max_n: int = 4) -> list[str]:
        """Return every normalized word n-gram of ``text`` up to ``max_n`` words, identifiers whole.

        Each n-gram is given in lemma form and in surface form, so a caller can find known multi-word concepts
        ("webhook handler", "university of michigan") in a query by dict lookup.

        Examples
        --------
        >>> ConceptExtractor().candidate_ngrams("Webhook handlers in src/app.py", max_n=2)
        ['webhook', 'webhook handler', 'webhook handlers', 'handler', 'handlers', 'src/app.py']
        """
        from nlp.query import word_ngrams

        if max_n < 1:
            raise ValueError(f"max_n must be at least 1, not {max_n}")
        pipeline = self._current()
        return word_ngrams(self._view(pipeline, pipeline.nlp(text), text), max_n)

    @staticmethod
    def _view(pipeline: _Pipeline, doc: Doc, text: str) -> DocView:
        from nlp.doc_view import build_doc_view
        from nlp.model_spans import model_sentence_starts

        starts = model_sentence_starts(doc) if pipeline.is_trained else frozenset()
        return build_doc_view(doc, text, pipeline.tokens, starts)

    def _observation(self, pipeline: _Pipeline, doc: Doc, text: str,
                     view: DocView | None = None) -> ParsedObservation:
        from nlp.candidates import find_occurrences
        from nlp.model_spans import model_names, model_phrases

        if view is None:
            view = self._view(pipeline, doc, text)
        extra_phrases, extra_names = [], []
        if pipeline.is_trained:
            extra_phrases = model_phrases(doc, view)
            extra_names = model_names(doc, view)
        occurrences = find_occurrences(
            view,
            pipeline.matcher(doc, view.infos),
            max_phrase_words=self.max_phrase_words,
            model_phrases=extra_phrases,
            model_names=extra_names,
        )
        merged = aggregate_mentions(occurrences, view.sentences.count)
        return ParsedObservation(text, merged.mentions, view.sentences.count, merged.sentence_keys)

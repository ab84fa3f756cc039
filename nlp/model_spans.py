"""Extra candidates from a trained spaCy pipeline: noun chunks, entities and sentence boundaries.

These only add to the rule-based candidates, so configuring a model can find more concepts but never loses the
identifiers, lemmas and keys the rules produce.
"""

from __future__ import annotations

from spacy.tokens import Doc

from nlp.doc_view import DocView
from nlp.identifiers import TokenClass
from nlp.names import NameSpan

__all__ = ["model_names", "model_phrases", "model_sentence_starts"]

# Numeric entity labels name amounts and dates, which are not concepts to recall by.
_NUMERIC_LABELS = frozenset({"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"})


def model_sentence_starts(doc: Doc) -> frozenset[int]:
    """Return the sentence starts set by a parser or senter, or an empty set for the blank pipeline."""
    if not doc.has_annotation("SENT_START"):
        return frozenset()
    return frozenset(token.i for token in doc if token.is_sent_start)


def model_phrases(doc: Doc, view: DocView) -> list[tuple[int, ...]]:
    """Return noun chunks as runs of content-word indices ("the new session cache" -> session, cache).

    Only the trailing run of content words of a chunk is kept, so determiners and stopwords never enter a key.
    """
    if not doc.has_annotation("DEP"):
        return []
    phrases = []
    for chunk in doc.noun_chunks:
        words: list[int] = []
        for index in range(chunk.start, chunk.end):
            words = [*words, index] if view.is_word(index) else []
        if len(words) >= 2:
            phrases.append(tuple(words))
    return phrases


def model_names(doc: Doc, view: DocView) -> list[NameSpan]:
    """Return non-numeric entities as name spans, trimmed to their content words and identifiers."""
    names = []
    for entity in doc.ents:
        if entity.label_ in _NUMERIC_LABELS:
            continue
        words = tuple(
            index
            for index in range(entity.start, entity.end)
            if view.infos[index].is_content or view.infos[index].cls is TokenClass.IDENTIFIER
        )
        if words:
            names.append(NameSpan(words[0], words[-1], words, is_title=False))
    return names

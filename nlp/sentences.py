"""Rule-based sentence boundaries over classified tokens.

The blank pipeline has no parser, and spaCy's ``sentencizer`` does not split at line breaks, while
observations are often bullet lists and passages start with a title line. We split after sentence-final
punctuation and at every line break, in the same pass that the extractor already makes over the tokens. A
trained pipeline's own boundaries are honoured as well.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from nlp.token_info import CONTENT, SENTENCE_END, TokenInfo

__all__ = ["Sentences", "split_sentences"]


class Sentences(NamedTuple):
    """Sentence index per token and the first non-punctuation token of each sentence."""

    ids: list[int]
    first_tokens: list[int]

    @property  # shadows tuple.count on purpose: a Sentences is read by field, never searched as a tuple
    def count(self) -> int:  # type: ignore[override]
        """Number of sentences with at least one word, number or identifier."""
        return len(self.first_tokens)


def split_sentences(infos: Sequence[TokenInfo], model_starts: Collection[int] = ()) -> Sentences:
    """Assign each token a sentence index.

    Parameters
    ----------
    infos : sequence of TokenInfo
        The classified tokens of one Doc.
    model_starts : collection of int
        Token indices a trained parser marked as sentence starts; empty for the blank pipeline.

    Returns
    -------
    Sentences
        Sentence ids are consecutive from 0; a sentence is only opened by a token that is not whitespace or
        punctuation, so leading bullets and stray punctuation never create empty sentences.
    """
    ids: list[int] = []
    first_tokens: list[int] = []
    current = -1
    pending_break = True  # the first content token opens sentence 0
    for index, info in enumerate(infos):
        boundary = info.boundary
        if model_starts and index in model_starts:
            pending_break = True
        if boundary != CONTENT:
            # Punctuation never opens a sentence, so a closing quote after "." stays with the sentence it
            # ends.
            pending_break = pending_break or boundary == SENTENCE_END
            ids.append(max(current, 0))
            continue
        if pending_break:
            first_tokens.append(index)
            current += 1
            pending_break = False
        ids.append(current)
    return Sentences(ids, first_tokens)

"""A flat, per-Doc view of the token facts the candidate rules read.

Reading token attributes through spaCy's Python API costs a fraction of a microsecond each; the rules look at
each token several times, so we pull everything into plain lists once (one ``to_array`` call) and work on
those.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from operator import attrgetter

from spacy.attrs import IDX, ORTH
from spacy.tokens import Doc

from nlp.sentences import Sentences, split_sentences
from nlp.token_info import TokenInfo, TokenInfoCache

__all__ = ["DocView", "build_doc_view"]

_KEY = attrgetter("key")


@dataclass(slots=True)
class DocView:
    """Token facts of one Doc as parallel lists indexed by token position.

    Attributes
    ----------
    text : str
        The Doc text.
    infos : list of TokenInfo
        Cached facts per token.
    starts : list of int
        Character offset of each token.
    sentences : Sentences
        Sentence index per token.
    blocked : set of int
        Tokens inside a multi-token identifier (a command or status code); phrases and names do not cross
        them.
    term_keys : list of str
        The key each token contributes: a word's lemma (its lower-cased form inside a name), an identifier's
        key.
    """

    text: str
    infos: list[TokenInfo]
    starts: list[int]
    sentences: Sentences
    blocked: set[int] = field(default_factory=set)
    term_keys: list[str] = field(default_factory=list)

    def end(self, index: int) -> int:
        """Character offset just after token ``index``."""
        return self.starts[index] + len(self.infos[index].text)

    def surface(self, first: int, last: int) -> str:
        """Text from token ``first`` through token ``last`` (inclusive)."""
        return self.text[self.starts[first] : self.end(last)]

    def is_word(self, index: int) -> bool:
        """Whether token ``index`` is a content word outside any multi-token identifier."""
        return self.infos[index].is_content and index not in self.blocked

    def same_sentence(self, first: int, second: int) -> bool:
        """Whether two tokens are in the same sentence."""
        return self.sentences.ids[first] == self.sentences.ids[second]

    def is_sentence_start(self, index: int) -> bool:
        """Whether token ``index`` is the first word, number or identifier of its sentence."""
        return self.sentences.first_tokens[self.sentences.ids[index]] == index

    def joined_by_hyphen(self, index: int) -> bool:
        """Whether token ``index`` is a hyphen written inside a word ("real-time")."""
        return (
            self.infos[index].text == "-"
            and 0 < index < len(self.infos) - 1
            and self.starts[index - 1] + len(self.infos[index - 1].text) == self.starts[index]
            and self.starts[index + 1] == self.starts[index] + 1
        )


def build_doc_view(doc: Doc, text: str, cache: TokenInfoCache, model_starts: Collection[int] = ()) -> DocView:
    """Collect the token facts of ``doc`` into a :class:`DocView`.

    Parameters
    ----------
    doc : spacy.tokens.Doc
        A tokenized Doc.
    text : str
        The text ``doc`` was made from (``Doc.text`` rebuilds it token by token, which is slow).
    cache : TokenInfoCache
        Facts per distinct token string.
    model_starts : collection of int
        Sentence starts set by a trained parser, if any.
    """
    if len(doc) == 0:
        return DocView(text, [], [], Sentences([], []))
    orths, starts = doc.to_array([ORTH, IDX]).T.tolist()
    infos = cache.get_all(orths, doc.vocab.strings)
    view = DocView(
        text=text,
        infos=infos,
        starts=starts,
        sentences=split_sentences(infos, model_starts),
    )
    view.term_keys = list(map(_KEY, infos))
    return view

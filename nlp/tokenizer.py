"""A code-aware tokenizer: spaCy's English rules, plus identifiers kept whole.

spaCy's default English tokenizer cuts "src/app/main.py" at every slash, "Idempotency-Key" at the hyphen and
"@scope/pkg" after the sigil. We keep every other English rule (prefixes, suffixes, infixes, special cases
such as "don't" or "e.g.") and add a ``token_match`` that fires before affix splitting, so an identifier
survives whole while the punctuation around it ("(main.py)," or "main.py.") is still split off.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.util import compile_infix_regex

from nlp.identifiers import IDENTIFIER_RE

__all__ = ["RunSafeTokenizer", "install_code_tokenizer"]

# Identifier sigils that spaCy also treats as prefixes ("#", "$", "..", "~", "<", ">").
_SIGIL_START = frozenset("#$.~<>=^-@/\\")
_TRAILING_PUNCT = ".,;:!?)]}'\"…"

PrefixSearch = Callable[[str], "re.Match[str] | None"]


def _sigil_aware(prefix_search: PrefixSearch) -> PrefixSearch:
    """Wrap spaCy's prefix search so a sigil that starts an identifier is not split off.

    spaCy strips a prefix and a suffix in the same step, so in "#123," or "../a/b.txt," the sigil would be cut
    before ``token_match`` sees "#123". Only strings starting with a sigil pay for the extra check, and the
    tokenizer caches each distinct string, so this runs once per new chunk of text.
    """

    def search(string: str) -> re.Match[str] | None:
        if string[:1] in _SIGIL_START and IDENTIFIER_RE.fullmatch(string.rstrip(_TRAILING_PUNCT)):
            return None
        return prefix_search(string)

    return search


# spaCy strips one prefix (or suffix) per turn of its affix loop, and each turn slices, hashes and matches the
# rest of the chunk again, so a run of n prefix characters costs O(n²): measured on this tokenizer, 2,000 `$`
# took 1.5 s and 8,000 took 43 s; `(`, `#`, `)`, `_`, `'`, `<` and `*` behave alike. Runs this long are never
# words, so they are cut out of the text and become one token per character, as spaCy would make them.
_PUNCT_RUN = re.compile(r"(?:[^\w\s]|_){32,}")


class RunSafeTokenizer:
    """The code-aware tokenizer, linear in punctuation runs; otherwise exactly spaCy's ``Tokenizer``.

    Text with no run of 32 or more punctuation characters (every real note we have seen) goes straight to the
    inner tokenizer. Other text is tokenized piece by piece around the runs, and the pieces are joined with
    ``Doc.from_docs``, which keeps each token's attributes and the text character for character.
    """

    def __init__(self, inner: Tokenizer) -> None:
        self.inner = inner
        self.vocab = inner.vocab

    def __call__(self, text: str) -> Doc:
        if _PUNCT_RUN.search(text) is None:
            doc: Doc = self.inner(text)
            return doc
        return Doc.from_docs(list(self._pieces(text)), ensure_whitespace=False)

    def _pieces(self, text: str) -> Iterator[Doc]:
        position = 0
        for run in _PUNCT_RUN.finditer(text):
            if run.start() > position:
                yield self.inner(text[position:run.start()])
            spaced = run.end() < len(text) and text[run.end()] == " "  # the run's token carries the space
            yield Doc(self.vocab, words=list(run.group(0)), spaces=[False] * (len(run.group(0)) - 1) + [spaced])
            position = run.end() + spaced
        if position < len(text):
            yield self.inner(text[position:])

    def __getattr__(self, name: str) -> object:  # rules, prefix_search, to_bytes…: the inner tokenizer's
        return getattr(self.inner, name)


def install_code_tokenizer(nlp: Language) -> None:
    """Replace ``nlp.tokenizer`` with the code-aware tokenizer (in place).

    Parameters
    ----------
    nlp : spacy.language.Language
        A blank or trained English pipeline. Trained components see the same tokens as in training except that
        identifiers arrive whole, which they treat like any other unseen word.

    Examples
    --------
    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> install_code_tokenizer(nlp)
    >>> [t.text for t in nlp("see (src/app/main.py), Idempotency-Key and @scope/pkg.")]
    ['see', '(', 'src/app/main.py', ')', ',', 'Idempotency-Key', 'and', '@scope/pkg', '.']
    """
    previous: Tokenizer = nlp.tokenizer
    # spaCy splits apostrophe-less spellings of contractions ("id" → "i" "d", "cant" → "ca" "nt"):
    # right for chat, wrong for technical notes where "id" is a column. Keep only rules that carry
    # punctuation ("don't", "e.g.") or do not split.
    rules = {text: tokens for text, tokens in previous.rules.items() if len(tokens) == 1 or not text.isalpha()}
    # A call such as ``stripe_events(id`` or ``refund(order_id,`` splits at the parenthesis, so the
    # name and its first argument each stay whole.
    # Code also nests names in brackets, quotes and template braces: partition_cols=['event_date'],
    # /v1/similar/{productId}.
    infixes = compile_infix_regex([
        *(nlp.Defaults.infixes or ()),
        r"(?<=[A-Za-z0-9_])\((?=[A-Za-z0-9_])",
        r"(?<=\w)=(?=[\[('\"])",
        r"(?<=[\[(])['\"](?=\w)",
        r"(?<=\w)['\"](?=[\])])",
        r"(?<=[\w/])\{|\{(?=\w)",
        r"(?<=\w)\}",
    ])
    nlp.tokenizer = RunSafeTokenizer(Tokenizer(
        nlp.vocab,
        rules=rules,
        prefix_search=_sigil_aware(previous.prefix_search),
        suffix_search=previous.suffix_search,
        infix_finditer=infixes.finditer,
        token_match=IDENTIFIER_RE.fullmatch,
        url_match=previous.url_match,
    ))

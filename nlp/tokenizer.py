"""A code-aware tokenizer: spaCy's English rules, plus identifiers kept whole.

spaCy's default English tokenizer cuts "src/app/main.py" at every slash, "Idempotency-Key" at the hyphen and
"@scope/pkg" after the sigil. We keep every other English rule (prefixes, suffixes, infixes, special cases
such as "don't" or "e.g.") and add a ``token_match`` that fires before affix splitting, so an identifier
survives whole while the punctuation around it ("(main.py)," or "main.py.") is still split off.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex

from nlp.identifiers import IDENTIFIER_RE

__all__ = ["install_code_tokenizer"]

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
    nlp.tokenizer = Tokenizer(
        nlp.vocab,
        rules=rules,
        prefix_search=_sigil_aware(previous.prefix_search),
        suffix_search=previous.suffix_search,
        infix_finditer=infixes.finditer,
        token_match=IDENTIFIER_RE.fullmatch,
        url_match=previous.url_match,
    )

"""``<private>…</private>`` blocks are never stored, however the tag is spelled.

A client, an editor or a copy-paste can change the spelling of a tag without changing what the
writer meant: ``<private >``, ``<private reason="k">``, ``< private>``, HTML-escaped
``&lt;private&gt;``, fullwidth ``＜ｐｒｉｖａｔｅ＞`` and tags split by zero-width characters all
mean "do not keep this". Every variant is first rewritten to the canonical tag, then blocks are
removed from the inside out; an unclosed tag hides everything after it, so a missing close tag
cannot leak the secret it was meant to hide.
"""

from __future__ import annotations

import re

__all__ = ["strip_private"]

_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
_GAP = rf"[\s{_INVISIBLE}]*"  # spaces and invisible characters a tag may carry
_SPLIT = rf"[{_INVISIBLE}]*"  # only invisible characters may split the word itself


def _letter(char: str) -> str:
    fullwidth = chr(ord(char.upper()) - 0x41 + 0xFF21) + chr(ord(char) - 0x61 + 0xFF41)
    return f"[{char}{fullwidth}]"


_NAME = _SPLIT.join(_letter(char) for char in "private")
_OPEN = r"(?:<|&(?:amp;)?lt;?|&#0*60;|&#x0*3c;|\uff1c|\ufe64|\u2039|\u3008)"
_CLOSE = r"(?:>|&(?:amp;)?gt;?|&#0*62;|&#x0*3e;|\uff1e|\ufe65|\u203a|\u3009)"
_SLASH = r"(?:/|\uff0f|&#0*47;|&#x0*2f;)"
# Attributes run to the closing bracket; they never span another tag or a line.
_ATTRIBUTES = rf"(?:[\s{_INVISIBLE}][^<>\uff1c\uff1e\n]*?)?"
# An opening tag is its head (bracket and name) then its tail (attributes and closing bracket). They are
# matched apart, so that a head whose tail was not found lets the heads after it skip the same search.
_OPEN_HEAD = re.compile(rf"{_OPEN}{_GAP}{_NAME}", re.IGNORECASE)
_OPEN_TAIL = re.compile(rf"{_ATTRIBUTES}{_GAP}{_CLOSE}", re.IGNORECASE)
_ATTRIBUTE_START = re.compile(rf"[\s{_INVISIBLE}]")
_ATTRIBUTE_END = re.compile(r"[<>\uff1c\uff1e\n]")  # what attributes cannot contain
_CLOSE_TAG = re.compile(rf"{_OPEN}{_GAP}{_SLASH}{_GAP}{_NAME}{_GAP}{_CLOSE}", re.IGNORECASE)


def strip_private(text: str) -> str:
    """Remove private blocks, nested ones whole; an unclosed tag hides the rest.

    >>> strip_private("a <private>b <private>c</private> d</private> e <private>f")
    'a  e '
    >>> strip_private('x &lt;private reason="k"&gt;y&lt;/private&gt; z ＜ｐｒｉｖａｔｅ＞w')
    'x  z '
    >>> strip_private("p<pri\\u200bvate>q</ private >r")
    'pr'
    """
    opening, closing = _markers(text)
    marked = _CLOSE_TAG.sub(closing, _mark_opening_tags(text, opening))
    if marked == text:
        return text
    block = re.compile(rf"{opening}[^{opening}]*?{closing}")  # innermost block: no opening tag inside
    previous = None
    while previous != marked:
        previous, marked = marked, block.sub("", marked)
    head, _, _ = marked.partition(opening)  # an unclosed tag hides everything after it
    return head.replace(closing, "")  # a stray closing tag is dropped


def _mark_opening_tags(text: str, opening: str) -> str:
    """Every opening tag (head, attributes, closing bracket) replaced by ``opening``, in linear time.

    One regex for the whole tag searched the rest of the line again from every head whose closing
    bracket never came (``&lt;private `` repeated over 48,000 characters took 78 s). Here, when the
    search from one head failed, every later head before the character that ended it (``<``, ``>``,
    a fullwidth bracket or a new line) fails too, because its search is part of the one that failed.

    >>> _mark_opening_tags("a <private x>b &lt;private c", "@")
    'a @b &lt;private c'
    """
    pieces: list[str] = []
    kept = 0  # text[:kept] is in pieces
    dead_until = -1  # heads ending before this have no tail
    for head in _OPEN_HEAD.finditer(text):
        start, end = head.span()
        if start < kept or end < dead_until:
            continue
        tail = _OPEN_TAIL.match(text, end)
        if tail is None:
            if _ATTRIBUTE_START.match(text, end):  # attributes were searched up to the line's end
                barrier = _ATTRIBUTE_END.search(text, end + 1)
                dead_until = len(text) if barrier is None else barrier.start()
            continue
        pieces += [text[kept:start], opening]
        kept = tail.end()
    return "".join(pieces) + text[kept:]


def _markers(text: str) -> tuple[str, str]:
    """Two private-use characters the text does not contain, to mark tags while blocks come off."""
    free = (chr(code) for code in range(0xE000, 0xF8FF) if chr(code) not in text)
    return next(free), next(free)

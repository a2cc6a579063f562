"""Right-to-left answers: a block whose text starts in Hebrew, Arabic or another right-to-left
script reads right to left, its citations after its words and punctuation on the left, its cards
opening leftwards and reading right to left.

Each top-level block (a paragraph, a list, a quote, a table, the notes section) whose text holds a
right-to-left character gets ``dir="auto"`` on its blocks: the browser gives each the direction of
its first strong character, so a Hebrew paragraph in an English answer, or an English one in an
Arabic answer, each read their own way (CSS's ``unicode-bidi: plaintext`` would reorder the text but
leave ``direction``, which cards and alignment follow, as the page's). The choice is made per
block, not per answer: a block's markup depends on its own text only, so a stream that renders an
answer block by block writes what ``render()`` writes. A block with no right-to-left character
keeps the page's direction, which ``dir="auto"`` gave it too.

Bidirectional controls the model writes cannot move a citation: in a block holding one, the text
before each citation is closed off (:mod:`citerender.plugin.bidi_guard`)."""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt

from ..lazy_re import lazy_compile
from .bidi_guard import guard_citations

__all__ = ["add_direction_rule"]

#: strong right-to-left characters: Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, and
#: their presentation forms
RTL = lazy_compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def has_rtl(text: str) -> bool:
    """Does ``text`` hold a strong right-to-left character (:data:`RTL`)? The class is compiled on
    first need (~0.4 ms, once a process), then searched in C: a pass over the text in Python (or
    ``max(text)``, which makes an object of every character) costs each paragraph more."""
    return not text.isascii() and RTL.search(text) is not None


_BLOCKS = frozenset(
    {"paragraph_open", "heading_open", "list_item_open", "blockquote_open", "th_open", "td_open", "table_open"}
)


def add_direction_rule(md: MarkdownIt) -> None:
    """The direction rule, then the bidi guard (a rule of its own: a host may replace the first)."""
    md.core.ruler.push("citerender_direction", _direction)
    md.core.ruler.push("citerender_bidi_guard", guard_citations)


def _direction(state: Any) -> None:
    """Core rule: ``dir="auto"`` on the blocks of each top-level block holding right-to-left text."""
    if state.src.isascii():
        return
    tokens = state.tokens
    depth, start, rtl = 0, 0, False
    for i, tok in enumerate(tokens):
        if depth == 0:
            start, rtl = i, False
        if not rtl and tok.type == "inline" and has_rtl(tok.content):
            rtl = True
        depth += tok.nesting
        if depth <= 0:
            depth = 0
            if rtl:
                for t in tokens[start : i + 1]:
                    if t.type in _BLOCKS and t.attrGet("dir") is None:
                        t.attrSet("dir", "auto")

"""Right-to-left answers: each top-level block whose text holds a right-to-left character gets
``dir="auto"`` on its blocks, so each reads in the direction of its first strong character, cards
and alignment included. The choice is per block (its markup depends on its own text only, so a
stream writes what ``render()`` writes). Bidirectional controls are :mod:`.bidi_guard`'s."""

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
    """Does ``text`` hold a strong right-to-left character (:data:`RTL`)? (One C search.)"""
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

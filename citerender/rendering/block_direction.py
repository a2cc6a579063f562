"""Right-to-left text, decided block by block: each top-level block (a paragraph, a list, a quote,
a table, the notes section) whose text holds a right-to-left character gets ``dir="auto"`` on its
blocks, so the browser gives each the direction of its first strong character.

The choice is made per block, not per answer: a block's markup then depends on its own text only,
so a stream that renders an answer block by block writes what ``render()`` writes (a choice made
for the whole answer changed blocks already shown when a Hebrew paragraph came last). A block with
no right-to-left character keeps the page's direction, which is what ``dir="auto"`` gave it too.
This replaces the plugin's ``citerender_direction`` rule (:func:`use_block_direction`).
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from markdown_it import MarkdownIt

__all__ = ["block_direction", "use_block_direction"]

#: strong right-to-left characters: Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, and
#: their presentation forms
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_BLOCKS = frozenset(
    {"paragraph_open", "heading_open", "list_item_open", "blockquote_open", "th_open", "td_open", "table_open"}
)


def use_block_direction(md: MarkdownIt) -> None:
    """Put :func:`block_direction` in place of the plugin's rule (a parser without it is left as it is)."""
    with contextlib.suppress(KeyError):
        md.core.ruler.at("citerender_direction", block_direction)


def block_direction(state: Any) -> None:
    """Core rule: ``dir="auto"`` on the blocks of each top-level block holding right-to-left text."""
    tokens = state.tokens
    depth, start, rtl = 0, 0, False
    for i, tok in enumerate(tokens):
        if depth == 0:
            start, rtl = i, False
        if not rtl and tok.type == "inline" and not tok.content.isascii() and _RTL.search(tok.content):
            rtl = True
        depth += tok.nesting
        if depth <= 0:
            depth = 0
            if rtl:
                for t in tokens[start : i + 1]:
                    if t.type in _BLOCKS and t.attrGet("dir") is None:
                        t.attrSet("dir", "auto")

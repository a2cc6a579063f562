"""Right-to-left answers: a block whose text starts in Hebrew, Arabic or another right-to-left
script reads right to left, its citations after its words and punctuation on the left, its cards
opening leftwards and reading right to left.

Each block of an answer that holds right-to-left text gets ``dir="auto"``: the browser gives it the
direction of its first strong character, so a Hebrew paragraph in an English answer, or an English
one in an Arabic answer, each read their own way (CSS's ``unicode-bidi: plaintext`` would reorder
the text but leave ``direction``, which cards and alignment follow, as the page's). Answers with no
right-to-left character are left as they are.

Bidirectional controls the model writes cannot move a citation: in a block holding one, the text
before each citation is closed off (:mod:`citerender.plugin.bidi_guard`)."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt

from .bidi_guard import guard_citations

__all__ = ["add_direction_rule"]

#: strong right-to-left characters: Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, and
#: their presentation forms
RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_BLOCKS = frozenset(
    {"paragraph_open", "heading_open", "list_item_open", "blockquote_open", "th_open", "td_open", "table_open"}
)


def add_direction_rule(md: MarkdownIt) -> None:
    """The direction rule, then the bidi guard (a rule of its own: a host may replace the first)."""
    md.core.ruler.push("citerender_direction", _direction)
    md.core.ruler.push("citerender_bidi_guard", guard_citations)


def _direction(state: Any) -> None:
    if state.src.isascii() or not RTL.search(state.src):  # the regex tries every position
        return
    for tok in state.tokens:
        if tok.type in _BLOCKS and tok.attrGet("dir") is None:
            tok.attrSet("dir", "auto")

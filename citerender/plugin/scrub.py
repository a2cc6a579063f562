"""Marks where no citation may stand — raw HTML, link attributes — removed and reported, with
what they mean (an entity's name) kept as text. Code is ``code``'s: only invisible characters go."""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..syntax.escapes import printable
from ..syntax.format import CitationFormat
from ..syntax.marks import apply_marks
from ..syntax.residue import PCT_RESIDUE
from ..syntax.scanner import scan
from .locate import Locator
from .options import PluginOptions
from .state import CitationState

__all__ = ["scrub_attr", "scrub_html_block", "scrub_html_inline"]

_FENCE_LINE = re.compile(r" {0,3}(?:`{3,}|~{3,})")


def scrub_html_block(text: str, st: CitationState, loc: Locator, block: Token, opts: PluginOptions) -> str:
    """Remove every mark from a raw HTML block, keeping what it means as text."""
    if not opts.needs_attention(text):
        return text
    marks = scan(text, fmt=opts.fmt)
    for mk in marks:
        off, end = loc.span(block, text, mk.start, mk.raw)
        if st.spans is not None:
            st.spans.append((off, end, mk.text))
        st.report("CR311", f"marker {printable(mk.raw)} removed from raw HTML", off)
    return apply_marks(text, marks) if marks else text


def scrub_html_inline(
    text: str, st: CitationState, loc: Locator, block: Token, content: str, fmt: CitationFormat, cursor: list[int]
) -> str:
    """Remove every mark from inline raw HTML found in ``content`` from ``cursor``."""
    marks = scan(text, fmt=fmt)
    if not marks:
        return text
    start = content.find(text, cursor[0])  # the HTML itself, after what was already placed
    start = cursor[0] if start == -1 else start
    for mk in marks:
        pos = content.find(mk.raw, max(start, cursor[0]))
        if pos == -1:
            pos = max(content.find(mk.raw), 0)
        cursor[0] = pos + len(mk.raw)
        off, end = loc.span(block, content, pos, mk.raw)
        if st.spans is not None:
            st.spans.append((off, end, mk.text))
        st.report("CR311", f"marker {printable(mk.raw)} removed from raw HTML", off)
    return apply_marks(text, marks)


def scrub_attr(value: str, fmt: CitationFormat) -> str:
    value = PCT_RESIDUE.sub("", value)
    if any(c in value for c in fmt.marker_chars) or "\\u" in value.lower() or "&#" in value:
        value = apply_marks(value, scan(value, fmt=fmt))
        value = "".join(c for c in value if c not in fmt.marker_chars)
    return value

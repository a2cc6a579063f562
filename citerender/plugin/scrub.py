"""Marks where no citation may stand — code, raw HTML, link attributes — removed and reported.

Inside code only the marks go; what they mean (an entity's name) stays as text.
"""

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

__all__ = ["scrub_attr", "scrub_block", "scrub_inline"]

_FENCE_LINE = re.compile(r" {0,3}(?:`{3,}|~{3,})")


def scrub_block(
    text: str, st: CitationState, loc: Locator, block: Token, code: str, opts: PluginOptions, *, header: bool = False
) -> str:
    """Remove every mark from code or raw HTML, keeping what it means as text."""
    if not opts.needs_attention(text):
        return text
    marks = scan(text, fmt=opts.fmt)
    if not marks:
        return text
    place = "code" if code == "CR302" else "raw HTML"
    for mk in marks:
        off, end = loc.span(block, text, mk.start, mk.raw, header=header)
        if st.spans is not None:
            st.spans.append((off, end, mk.text))
        line, _ = st.line_col(off)
        if block.type == "fence" and _FENCE_LINE.match(st.line_text(line)):
            st.report("CR304", f"marker {printable(mk.raw)} on a code-fence line removed", off)
        else:
            st.report(code, f"marker {printable(mk.raw)} removed from {place}", off)
    return apply_marks(text, marks)


def scrub_inline(
    text: str,
    st: CitationState,
    loc: Locator,
    block: Token,
    content: str,
    fmt: CitationFormat,
    code: str,
    cursor: list[int],
) -> str:
    marks = scan(text, fmt=fmt)
    if not marks:
        return text
    place = "code" if code == "CR302" else "raw HTML"
    start = content.find(text, cursor[0])  # the code span itself, after what was already placed
    start = cursor[0] if start == -1 else start
    for mk in marks:
        pos = content.find(mk.raw, max(start, cursor[0]))
        if pos == -1:
            pos = max(content.find(mk.raw), 0)
        cursor[0] = pos + len(mk.raw)
        off, end = loc.span(block, content, pos, mk.raw)
        if st.spans is not None:
            st.spans.append((off, end, mk.text))
        st.report(code, f"marker {printable(mk.raw)} removed from {place}", off)
    return apply_marks(text, marks)


def scrub_attr(value: str, fmt: CitationFormat) -> str:
    value = PCT_RESIDUE.sub("", value)
    if any(c in value for c in fmt.marker_chars) or "\\u" in value.lower() or "&#" in value:
        value = apply_marks(value, scan(value, fmt=fmt))
        value = "".join(c for c in value if c not in fmt.marker_chars)
    return value

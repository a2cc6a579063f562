"""The ``citerender_scrub`` core rule: marks where no citation may stand — code, math, raw HTML,
link and image attributes — removed and reported, with what they mean (an entity's name) kept as
text. Code is ``code``'s business: only invisible characters and copy residue go. The first link
of the chain (see ``core``): what the citation rule reads after it is text."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..syntax.escapes import printable
from ..syntax.format import CitationFormat
from ..syntax.marks import apply_marks
from ..syntax.residue import PCT_RESIDUE
from ..syntax.scanner import scan
from .code import scrub_code, scrub_code_span, scrub_math
from .locate import Locator, locator
from .options import PluginOptions
from .state import CitationState, citation_state

__all__ = ["scrub_attr", "scrub_html_block", "scrub_html_inline", "scrub_rule"]

_FENCE_LINE = re.compile(r" {0,3}(?:`{3,}|~{3,})")
_MATH_BLOCKS = ("math_block", "math_block_label")
_MATH_INLINE = ("math_inline", "math_inline_double")


def scrub_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule (see the module docstring); an answer without any mark or residue is not walked."""
    if not opts.needs_attention(state.src):
        return
    st = citation_state(state.env, opts.registry)
    loc = locator(st, state.src)
    residue = not opts.options.keep_code_residue
    # a reference definition's title or URL holding a mark: every block that may use it is read
    refs = state.env.get("references") or {}
    linked = any(opts.needs_attention(f"{r.get('title') or ''} {r.get('href') or ''}") for r in refs.values())
    for tok in state.tokens:
        if tok.type == "html_block":
            tok.content = scrub_html_block(tok.content, st, loc, tok, opts)
        elif tok.type in ("fence", "code_block"):
            scrub_code(tok, st, loc, opts.fmt, residue)
        elif tok.type in _MATH_BLOCKS:
            scrub_math(tok, st, opts.fmt, partial(loc.offset, tok, tok.content, None, ""))
        elif (
            tok.type == "inline"
            and tok.children
            and (opts.needs_attention(tok.content) or (linked and "[" in tok.content))
        ):
            _scrub_inline(tok, tok.children, st, loc, opts, [0])


def _scrub_inline(
    block: Token, children: list[Token], st: CitationState, loc: Locator, opts: PluginOptions, cursor: list[int]
) -> None:
    """An inline block's code spans, formulas, raw HTML and link attributes (an image's alt text too)."""
    content, fmt = block.content, opts.fmt
    for tok in children:
        t = tok.type
        if t == "code_inline":
            scrub_code_span(tok, st, loc, block, content, cursor, fmt, not opts.options.keep_code_residue)
        elif t in _MATH_INLINE:
            scrub_math(tok, st, fmt, partial(loc.offset, block, content, None, ""))
        elif t == "html_inline":
            tok.content = scrub_html_inline(tok.content, st, loc, block, content, fmt, cursor)
        elif t in ("link_open", "image"):
            _scrub_attributes(tok, st, partial(loc.offset, block, content, None, ""), fmt)
            if tok.children:
                _scrub_inline(block, tok.children, st, loc, opts, cursor)


def _scrub_attributes(tok: Token, st: CitationState, offset: Callable[[], int], fmt: CitationFormat) -> None:
    for name in ("href", "src", "title"):
        val = tok.attrs.get(name)
        if isinstance(val, str):
            clean = scrub_attr(val, fmt)
            if clean != val:
                st.report("CR311", f"marker removed from a link {name}", offset())
                if name == "title":
                    tok.attrs[name] = clean
                else:  # LinkPolicy refuses these; never turn a cleaned URL into a link
                    del tok.attrs[name]


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

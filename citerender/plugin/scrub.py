"""The ``citerender_scrub`` core rule, the chain's first: marks where no citation may stand (code,
math, raw HTML, link and image attributes) removed and reported, what they mean kept as text."""

from __future__ import annotations

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

_MATH_BLOCKS = ("math_block", "math_block_label")
_MATH_INLINE = ("math_inline", "math_inline_double")
#: the block and inline tokens this rule reads (any other is passed over at once)
_READ = frozenset({"html_block", "fence", "code_block", "inline", *_MATH_BLOCKS})
_READ_INLINE = frozenset({"code_inline", "html_inline", "link_open", "image", *_MATH_INLINE})


def _removed(st: CitationState, span: tuple[int, int], text: str, message: str) -> None:
    """CR311 at ``span``, which the exports replace with ``text``."""
    if st.spans is not None:
        st.spans.append((*span, text))
    st.report("CR311", message, span[0])


def scrub_rule(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule (see the module docstring); an answer without any mark or residue is not walked."""
    if not opts.needs_attention(state.src):
        return
    st = citation_state(state.env, opts.registry)
    loc = locator(st, state.src)
    residue = not opts.options.keep_code_residue
    # a reference definition's title or URL holding a mark: every block that may use it is read
    refs = state.env.get("references") or {}
    defined = {
        v
        for r in refs.values()
        for v in (r.get("title"), r.get("href"))
        if isinstance(v, str) and opts.needs_attention(v)
    }
    linked = bool(defined)
    if linked:
        _scrub_definitions(state, st, loc, opts)
    for tok in state.tokens:
        if tok.type not in _READ:
            continue
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
            _scrub_inline(tok, tok.children, st, loc, opts, [0], defined)


def _scrub_inline(
    block: Token,
    children: list[Token],
    st: CitationState,
    loc: Locator,
    opts: PluginOptions,
    cursor: list[int],
    defined: set[str],
) -> None:
    """An inline block's code spans, formulas, raw HTML and link attributes (an image's alt text too)."""
    content, fmt = block.content, opts.fmt
    for tok in children:
        t = tok.type
        if t not in _READ_INLINE:  # text, citations, emphasis …: most of a paragraph
            continue
        if t == "code_inline":
            scrub_code_span(tok, st, loc, block, content, cursor, fmt, not opts.options.keep_code_residue)
        elif t in _MATH_INLINE:
            scrub_math(tok, st, fmt, partial(loc.offset, block, content, None, ""))
        elif t == "html_inline":
            tok.content = scrub_html_inline(tok.content, st, loc, block, content, fmt, cursor)
        elif t in ("link_open", "image"):
            _scrub_attributes(tok, st, loc, block, cursor, fmt, defined)
            if tok.children:
                _scrub_inline(block, tok.children, st, loc, opts, cursor, defined)


def _scrub_attributes(
    tok: Token, st: CitationState, loc: Locator, block: Token, cursor: list[int], fmt: CitationFormat, defined: set[str]
) -> None:
    """Marks in a link's or image's URL and title, removed and reported where the block writes them
    (one a reference definition holds, ``defined``, was reported there; any other at the block)."""
    content = block.content
    for name in ("href", "src", "title"):
        val = tok.attrs.get(name)
        if not isinstance(val, str):
            continue
        clean = scrub_attr(val, fmt)
        if clean == val:
            continue
        found = False
        at = content.find(val, cursor[0])  # the value as written (no escapes in it): its marks are at their offsets
        for mk in scan(val, fmt=fmt):
            pos = at + mk.start if at != -1 else content.find(mk.raw, cursor[0])
            if pos == -1:
                continue
            found, cursor[0] = True, pos + len(mk.raw)
            _removed(st, loc.span(block, content, pos, mk.raw), "", f"marker removed from a link {name}")
        if not found and val not in defined:
            st.report("CR311", f"marker removed from a link {name}", loc.offset(block, content, None, ""))
        if name == "title":
            tok.attrs[name] = clean
        else:  # LinkPolicy refuses these; never turn a cleaned URL into a link
            del tok.attrs[name]


#: block tokens that hold other blocks: their lines are no block's own
_CONTAINERS = frozenset(
    {
        "blockquote_open",
        "bullet_list_open",
        "ordered_list_open",
        "list_item_open",
        "footnote_block_open",
        "footnote_open",
    }
)


def _scrub_definitions(state: StateCore, st: CitationState, loc: Locator, opts: PluginOptions) -> None:
    """Marks in reference definitions (``[r]: url "title"``), which no token holds: the lines no
    leaf block covers are read, each mark reported and, for the exports, removed."""
    covered: set[int] = set()
    for tok in state.tokens:
        if tok.map is not None and tok.nesting != -1 and tok.type not in _CONTAINERS:
            covered.update(range(tok.map[0], tok.map[1]))
    lines = state.src.split("\n")
    first = 0
    while first < len(lines):
        if first in covered or not opts.needs_attention(lines[first]):
            first += 1
            continue
        last = first
        while last + 1 < len(lines) and last + 1 not in covered and lines[last + 1].strip():
            last += 1
        text = "\n".join(lines[first : last + 1])
        for mk in scan(text, fmt=opts.fmt):
            where = loc.span((first, False), text, mk.start, mk.raw)
            _removed(st, where, "", f"marker {printable(mk.raw)} removed from a reference definition")
        first = last + 1


def scrub_html_block(text: str, st: CitationState, loc: Locator, block: Token, opts: PluginOptions) -> str:
    """Remove every mark from a raw HTML block, keeping what it means as text."""
    if not opts.needs_attention(text):
        return text
    marks = scan(text, fmt=opts.fmt)
    for mk in marks:
        _removed(
            st, loc.span(block, text, mk.start, mk.raw), mk.text, f"marker {printable(mk.raw)} removed from raw HTML"
        )
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
        _removed(
            st, loc.span(block, content, pos, mk.raw), mk.text, f"marker {printable(mk.raw)} removed from raw HTML"
        )
    return apply_marks(text, marks)


def scrub_attr(value: str, fmt: CitationFormat) -> str:
    """An attribute's value without marks (what each means kept), residue or marker characters."""
    value = PCT_RESIDUE.sub("", value)
    if any(c in value for c in fmt.marker_chars) or "\\u" in value.lower() or "&#" in value:
        value = apply_marks(value, scan(value, fmt=fmt))
        value = "".join(c for c in value if c not in fmt.marker_chars)
    return value

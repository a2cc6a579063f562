"""Markdown as models write it (the ``full`` preset): task lists, bare URLs, footnotes, math,
highlighted code and heading anchors, all rendered server-side with no script and no request.

The model's own footnotes (``[^1]``) are a series apart from citations: notes i, ii, iii under
"Notes", sources [1], [2] under "Sources", so ``[1]`` never means two things on one page.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from types import SimpleNamespace
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Scanned
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_inline_dollar
from mdit_py_plugins.footnote import footnote_plugin

from ..lazy_re import lazy_compile
from ..options import id_stem
from ..plugin.flanking import state_class

__all__ = [
    "add_cjk_emphasis",
    "add_features",
    "cjk_state_class",
    "generated_highlight_css",
    "has_cjk",
    "highlight",
    "is_cjk",
    "roman",
]

_MAY_LINK = re.compile(r"//|@|www\.", re.IGNORECASE)


def add_features(md: MarkdownIt, id_prefix: str) -> None:
    """Everything of the full preset but heading anchors (added after the citation rules)."""
    md.options["linkify"] = True
    md.enable("linkify")
    _gfm_autolinks(md)
    md.options["highlight"] = highlight
    md.core.ruler.after("inline", "github-tasklists", _tasklists)
    md.use(footnote_plugin, inline=False)
    _footnote_rules(md, id_prefix)
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, allow_labels=False, renderer=_math_html)
    rules = md.inline.ruler  # dollarmath's own inline rule, wrapped: a formula never spans a citation
    rules.at("math_inline", _without_citations(math_inline_dollar(False, False, False), "$"))
    rules.before("escape", "math_brackets", _without_citations(_math_brackets, "\\"))
    md.block.ruler.before("paragraph", "math_brackets_block", _math_brackets_block)


def _math_html(tex: str, options: dict[str, Any] | None = None) -> str:
    """A formula as MathML (:mod:`.mathml`, loaded with the first formula)."""
    from .mathml import math_html

    return math_html(tex, options)


def _tasklists(state: StateCore) -> None:
    """mdit-py-plugins' task lists (``- [ ] todo``), its rule loaded when a paragraph starts with
    ``[``: its module imports ``uuid`` and ``platform``, a tenth of a render's imports."""
    for t in state.tokens:
        if t.type == "inline" and t.content.startswith("["):
            _tasklists_rule()(state)
            return


@cache
def _tasklists_rule() -> Callable[[StateCore], None]:
    """The plugin's rule, as it registers it on a core chain (one of its own here)."""
    from markdown_it.parser_core import ParserCore
    from mdit_py_plugins.tasklists import tasklists_plugin

    core = ParserCore()
    tasklists_plugin(SimpleNamespace(core=core), label=True)  # type: ignore[arg-type]  # the plugin reads md.core only
    return next(r.fn for r in core.ruler.__rules__ if r.name == "github-tasklists")


def _gfm_autolinks(md: MarkdownIt) -> None:
    """Bare URLs as GitHub links them: with a scheme, ``www.`` or an e-mail address, not any word
    with a dot (linkify-it's fuzzy links make ``README.md`` a link to Moldova)."""
    linkify = md.linkify
    if linkify is None:  # pragma: no cover - linkify-it-py is a dependency
        return
    found, pretest, test = linkify.match, linkify.pretest, linkify.test

    def match(text: str) -> Any:
        links = [m for m in found(text) or [] if m.schema or m.raw.lower().startswith("www.")]
        return links or None

    # what is kept holds ``//``, ``@`` or ``www.``: text without any skips linkify-it's tests
    linkify.match = match
    linkify.pretest = lambda text: _MAY_LINK.search(text) is not None and pretest(text)
    linkify.test = lambda text: _MAY_LINK.search(text) is not None and test(text)


# ---------------------------------------------------------------------- CJK emphasis

#: CJK characters as the CommonMark CJK-friendly draft (github.com/tats-u/markdown-cjk-friendly) counts
#: them: Hangul, kana, Bopomofo, Han, CJK symbols and punctuation, enclosed, compatibility and
#: full-width forms; looked up by bisection (a character class of them is slow to compile)
_CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x2FF0, 0x303F), (0x3041, 0x33FF), (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFE10, 0xFE1F),
    (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x1B000, 0x1B16F), (0x20000, 0x3134F),
)  # fmt: skip
_CJK_STARTS = tuple(a for a, _ in _CJK_RANGES)
#: what may be CJK: Hangul jamo and every character from U+2E80 on but the private-use area
#: (where the citation markers are); cheap to compile, searched in C
_MAYBE_CJK = lazy_compile("[\u1100-\u11ff\u2e80-\udfff\uf900-\U0010ffff]")
#: variation selectors: one after a Han character (an IVS) leaves that character what counts
_VS = lazy_compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def is_cjk(ch: str) -> bool:
    """Is the character ``ch`` CJK (see :data:`_CJK_RANGES`)?"""
    code = ord(ch)
    k = bisect_right(_CJK_STARTS, code) - 1
    return k >= 0 and code <= _CJK_RANGES[k][1]


def has_cjk(src: str) -> bool:
    """Does ``src`` hold a CJK character? Only the characters that may be one are looked at, each
    found in C: no pass over the text in Python."""
    if src.isascii():
        return False
    m = _MAYBE_CJK.search(src)
    while m is not None:
        if is_cjk(m.group()):
            return True
        m = _MAYBE_CJK.search(src, m.end())
    return False


def add_cjk_emphasis(md: MarkdownIt, markers: frozenset[str]) -> None:
    """Emphasis beside CJK text as ChatGPT shows it (``**삼성전자(005930)**는`` is bold), by the
    CJK-friendly draft's rule: a run punctuation would block flanks a CJK character beside it.
    Installed after the citation plugin, whose marker rule (``markers``) it keeps; text without
    CJK is parsed as before. (``mdit-py-cjk-friendly`` needs markdown-it-py below 4.)"""
    inline, before = md.inline, md.inline.parse
    cls = cjk_state_class(markers)

    def parse(src: str, md: MarkdownIt, env: Any, tokens: list[Token]) -> list[Token]:
        if not has_cjk(src):
            return before(src, md, env, tokens)
        state = cls(src, md, env, tokens)  # markdown-it's ParserInline.parse, with the CJK state
        inline.tokenize(state)
        for rule in inline.ruler2.getRules(""):
            rule(state)
        return state.tokens

    inline.parse = parse  # type: ignore[method-assign]


def _cjk_before(src: str, start: int) -> bool:
    """Is the character before ``start`` CJK (a variation selector: the one before it)?"""
    if start > 1 and _VS.match(src, start - 1):
        start -= 1
    return start > 0 and is_cjk(src[start - 1])


@lru_cache(maxsize=16)
def cjk_state_class(markers: frozenset[str]) -> type[StateInline]:
    """A ``StateInline`` whose ``scanDelims`` follows the CJK-friendly rule beside CJK text and
    the citation marker rule beside ``markers`` (none: CommonMark's rule elsewhere)."""
    base = state_class(markers) if markers else StateInline

    def punct(ch: str) -> bool:
        return ch in markers or isMdAsciiPunct(ord(ch)) or isPunctChar(ch)

    def scanDelims(self: StateInline, start: int, canSplitWord: bool) -> Scanned:
        scanned = base.scanDelims(self, start, canSplitWord)
        src, end = self.src, start + scanned.length
        nxt = src[end] if end < self.posMax else " "
        last_cjk, next_cjk = _cjk_before(src, start), is_cjk(nxt)
        if not (last_cjk or next_cjk):
            return scanned
        last = src[start - 1] if start > 0 else " "
        last_ws, next_ws = isWhiteSpace(ord(last)), isWhiteSpace(ord(nxt))
        last_p, next_p = punct(last), punct(nxt)
        left = not next_ws and (not next_p or last_ws or last_p or last_cjk)
        right = not last_ws and (not last_p or next_ws or next_p or next_cjk)
        can_open = left and (canSplitWord or not right or last_p)
        can_close = right and (canSplitWord or not left or next_p)
        return Scanned(can_open, can_close, scanned.length)

    return type("CJKStateInline", (base,), {"scanDelims": scanDelims})


# ---------------------------------------------------------------------- footnotes


def roman(n: int) -> str:
    """``n`` in lower-case Roman numerals (the notes' series)."""
    out = []
    for value, sym in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                       (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
        count, n = divmod(n, value)
        out.append(sym * count)
    return "".join(out)


#: the notes' markup by token type: ``{note}`` is a note's id, ``{back}`` its reference's in the
#: text, ``{n}`` its number
_NOTE_MARKUP = {
    "footnote_ref": (
        '<sup class="citerender-note-ref" id="{back}"><a href="#{note}" '
        'role="doc-noteref" aria-label="Note {n}">{n}</a></sup>'
    ),
    "footnote_block_open": (
        '<section class="citerender-notes" role="doc-endnotes" aria-label="Notes">\n'
        '<h2 class="citerender-notes-heading">Notes</h2>\n<ol class="citerender-notes-list" type="i">\n'
    ),
    "footnote_block_close": "</ol>\n</section>\n",
    "footnote_open": '<li id="{note}" class="citerender-note">',
    "footnote_anchor": (
        ' <a href="#{back}" class="citerender-note-back" role="doc-backlink" '
        'aria-label="Back to note {n} in the text"><span aria-hidden="true">\u21a9</span></a>'
    ),
}


def _footnote_rules(md: MarkdownIt, id_prefix: str) -> None:
    """The notes' render rules (:data:`_NOTE_MARKUP`), their ids under the page's ``id_prefix``."""
    prefix = id_stem(id_prefix)

    def rule(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        tok = tokens[idx]
        if tok.type.startswith("footnote_block"):
            return _NOTE_MARKUP[tok.type]
        s = tok.meta.get("subId", -1)
        note = f"{prefix}note-{tok.meta['id'] + 1}"
        back = f"{note}-ref" + (f"-{s}" if isinstance(s, int) and s > 0 else "")
        return _NOTE_MARKUP[tok.type].format(note=note, back=back, n=roman(tok.meta["id"] + 1))

    for kind in _NOTE_MARKUP:
        md.add_render_rule(kind, rule)


# what only a citation holds: a formula never spans one (``$5 … $10`` around a marker stays text)
_CITATION_INSIDE = lazy_compile(r"[\ue200-\ue206\u3010]|turn\d+[a-z]+\d+|contentReference\[")
InlineRule = Callable[[StateInline, bool], bool]


def _without_citations(rule: InlineRule, first: str) -> InlineRule:
    """``rule`` (an inline math rule, whose formulas start with ``first``), refusing a formula
    that would hold a citation: math must not change how markers are read."""

    def wrapped(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if state.src[start] != first or not rule(state, True):
            return False
        end, state.pos = state.pos, start
        if _CITATION_INSIDE.search(state.src, start, end):
            return False
        return rule(state, silent)

    return wrapped


def _looks_like_math(tex: str) -> bool:
    """``\\[1\\]`` is an escaped bracket in Markdown; ``\\[ x^2 \\]`` is display math."""
    return bool(tex.strip()) and re.search(r"[\\^_=+{}<>]|[A-Za-z]\s*[-*/]", tex) is not None


def _math_brackets(state: StateInline, silent: bool) -> bool:
    r"""ChatGPT's inline ``\(x\)`` and ``\[x\]`` (display), read before ``\(`` is an escape."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in "([":
        return False
    close = "\\)" if src[pos + 1] == "(" else "\\]"
    end = src.find(close, pos + 2, state.posMax)
    if end == -1:
        return False
    tex = src[pos + 2 : end]
    if not tex.strip() or (close == "\\]" and not _looks_like_math(tex)):
        return False
    if not silent:
        tok = state.push("math_inline" if close == "\\)" else "math_inline_double", "math", 0)
        tok.content = tex
        tok.markup = src[pos : pos + 2]
    state.pos = end + 2
    return True


def _math_brackets_block(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
    r"""A display formula between ``\[`` and ``\]`` lines (ChatGPT's block math)."""
    if state.is_code_block(startLine):
        return False
    start = state.bMarks[startLine] + state.tShift[startLine]
    first = state.src[start : state.eMarks[startLine]]
    if not first.startswith("\\["):
        return False
    body, line = first[2:], startLine
    lines: list[str] = []
    while not body.rstrip().endswith("\\]"):
        lines.append(body)
        line += 1
        if line >= endLine or state.isEmpty(line):
            return False
        body = state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]
    tex = "\n".join([*lines, body.rstrip()[:-2]])
    if not _looks_like_math(tex):
        return False
    if silent:
        return True
    tok = state.push("math_block", "math", 0)
    tok.block = True
    tok.content = tex
    tok.markup = "\\["
    tok.map = [startLine, line + 1]
    state.line = line + 1
    return True


# ---------------------------------------------------------------------- code


def highlight(code: str, lang: str, attrs: str) -> str:
    """Pygments spans for a fence with a known language (``""``: markdown-it escapes it)."""
    from pygments import highlight as pyg_highlight

    if not lang or len(code) > 200_000:
        return ""
    lexer = _lexer(lang.lower()[:40])
    return str(pyg_highlight(code, lexer, _formatter())) if lexer is not None else ""


@lru_cache(maxsize=256)
def _lexer(name: str) -> Any:
    """The lexer for a fence's language, looked up once. Only Pygments' own lexers: an unknown
    name would otherwise load every installed plugin's entry point, on every render."""
    from pygments.lexers import get_lexer_by_name

    return get_lexer_by_name(name, stripnl=False, ensurenl=False) if name in _builtin_aliases() else None


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset[str]:
    from pygments.lexers import get_all_lexers

    return frozenset(alias for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases)


@lru_cache(maxsize=1)
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True, classprefix="crh-")


def generated_highlight_css(*, dark: bool = True) -> str:
    """Highlighting colours for citerender's code blocks: Pygments' ``xcode`` and, for themes that
    go dark, ``lightbulb`` (each token at least 4.5:1 on its background), as written to
    ``themes/_code.css`` and ``_code-dark.css`` (:func:`citerender.rendering.themes.code_css`)."""
    from pygments.formatters import HtmlFormatter

    scope = ".citerender-page pre"
    parts = [
        "/* code highlighting (Pygments) */",
        _only_tokens(HtmlFormatter(classprefix="crh-", style="xcode").get_style_defs(scope)),
    ]
    if dark:
        night = HtmlFormatter(classprefix="crh-", style="lightbulb").get_style_defs(scope)
        parts += ["@media (prefers-color-scheme: dark) {", _only_tokens(night), "}"]
    return "\n".join(parts)


def _only_tokens(css: str) -> str:
    """Pygments' token rules, without its rules for the block itself (the theme styles that)."""
    return "\n".join(line for line in css.splitlines() if " .crh-" in line)

"""The plugin's parsing rules.

* core ``citerender_escapes`` (after ``normalize``): literal escapes become the characters;
* inline ``citation``: a marker, read atomically, becomes a ``citation`` token (entities text,
  highlight marks ``citation_highlight_*``); the ``text`` rule hands it the markers it stops at;
* inline ``citation_backslash`` (before ``escape``): a backslash never swallows a marker;
* a marker inside a link destination or a URL is removed and reported.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from ..errors import CiterenderError
from ..syntax.escapes import normalize_escapes, printable
from ..syntax.marks import URL_CUT
from ..syntax.scanner import Scanner
from ..syntax.types import Mark, MarkKind
from .links import in_destination, in_url
from .options import PluginOptions
from .state import CitationState, citation_state

__all__ = [
    "MAX_MARKERS",
    "add_terminators",
    "backslash_rule",
    "citation_inline",
    "count_marks",
    "escapes_rule",
    "text_or_citation",
]

#: The most markers one answer may hold (see SECURITY.md).
MAX_MARKERS = 100_000


def count_marks(st: CitationState, n: int = 1) -> None:
    """Count ``n`` more markers read; past :data:`MAX_MARKERS` the answer is refused."""
    st.marks += n
    if st.marks > MAX_MARKERS:
        raise CiterenderError(f"answer has more than {MAX_MARKERS:,} markers", hint="split the answer")


def add_terminators(md: MarkdownIt, chars: str) -> None:
    """Make the ``text`` rule stop at ``chars``: all but the last join markdown-it's set first, so
    ``add_terminator_char`` compiles its stop class once, not once a character."""
    inline = md.inline
    new = [ch for ch in sorted(set(chars)) if inline.terminator_re.search(ch) is None]
    extra = getattr(inline, "_extra_terminator_chars", None)
    if isinstance(extra, set) and new:
        extra.update(new[:-1])
        new = new[-1:]
    for ch in new:  # (another markdown-it keeping no such set: one at a time)
        inline.add_terminator_char(ch)


def escapes_rule(state: StateCore, *, opts: PluginOptions) -> None:
    st = citation_state(state.env, opts.registry)
    norm, omap = normalize_escapes(state.src)
    st.begin(state.src, omap)
    state.src = norm


def text_or_citation(
    text: Callable[[StateInline, bool], bool], opts: PluginOptions
) -> Callable[[StateInline, bool], bool]:
    """markdown-it's ``text`` rule, reading a marker where the text stops at one (no other rule
    starts at a marker character): one rule call a marker, not one to each inline rule first."""
    triggers = opts.triggers

    def rule(state: StateInline, silent: bool) -> bool:
        if state.src[state.pos] in triggers:
            return citation_inline(state, silent, opts=opts)
        return text(state, silent)

    return rule


#: the most well-formed markers a parser keeps parsed (a parse depends on the marker's text only)
MAX_PARSED_MARKS = 8192


#: the token a mark becomes (any other kind: ``citation_dropped``)
_TOKEN_TYPES = {
    MarkKind.CITATION: "citation",
    MarkKind.HIGHLIGHT_OPEN: "citation_highlight_open",
    MarkKind.HIGHLIGHT_CLOSE: "citation_highlight_close",
}


def citation_inline(state: StateInline, silent: bool, *, opts: PluginOptions) -> bool:
    """Inline rule: read the marker starting at ``state.pos`` as one atomic token."""
    src = state.src
    if src[state.pos] not in opts.triggers:
        return False
    st = citation_state(state.env, opts.registry)
    pos = state.pos
    mk = None
    well_formed = opts.canonical.match(src, pos, state.posMax)
    parsed = opts.parsed_marks
    if well_formed is not None:  # a well-formed marker seen before (in any answer) is parsed once
        mk = parsed.get(well_formed.group(0))
    if mk is None:
        mk = _scan(state, st, opts, well_formed is not None)
        if mk is None:
            return False
    end = pos + len(mk.raw)  # a Mark from ``parsed`` holds the offsets of its first occurrence
    where = None
    if in_destination(src, pos):  # the would-be link is refused (LinkPolicy): its URL stays text
        where = "a link destination; the link"
    elif in_url(src, pos, end, opts.marker_end):  # a bare URL or an autolink cut in two
        where = "a URL; the URL"
    if where is not None:  # the exports keep the URL unlinked too (``URL_CUT``), then drop it
        notes = (("CR311", f"marker {printable(mk.raw)} removed from {where} is shown as text"),)
        kept = tuple(n for n in mk.notes if n[0] != "CR311") if mk.kind is MarkKind.DROPPED else ()
        mk = Mark(MarkKind.DROPPED, pos, end, mk.raw, text=URL_CUT, notes=kept + notes)
    if not silent:
        count_marks(st)
        if mk.kind is MarkKind.TEXT or (mk.kind is MarkKind.CITATION and mk.text):  # the text, then the mark
            state.push("text", "", 0).content = mk.text
            kind = "citation" if mk.kind is MarkKind.CITATION else "citation_dropped"
            state.push(kind, "", 0).meta = {"mark": st.add_mark(mk), "offset": pos}
        else:
            meta = {"mark": st.add_mark(mk), "offset": pos}
            if where is not None:
                meta["in_url"] = True  # the linkify rules make no link of the URL's halves
            state.push(_TOKEN_TYPES.get(mk.kind, "citation_dropped"), "", 0).meta = meta
    state.pos = end
    return True


def _scan(state: StateInline, st: CitationState, opts: PluginOptions, well_formed: bool) -> Mark | None:
    """The marker at ``state.pos`` read by the parse's scanner, or None; a ``well_formed`` one is kept."""
    scanners: dict[int, Scanner] = st.cache("rules.scanner", dict, per_parse=True)
    scanner = scanners.get(0)
    if scanner is None or scanner.text is not state.src:
        scanner = scanners[0] = Scanner(state.src, opts.fmt)
    mk = scanner.at(state.pos, state.posMax)
    if mk is not None and well_formed:
        parsed = opts.parsed_marks
        if len(parsed) >= MAX_PARSED_MARKS:  # a bound: a service sees new ids all day
            parsed.clear()
        parsed[mk.raw] = mk
    return mk


def backslash_rule(opts: PluginOptions) -> Callable[[StateInline, bool], bool]:
    """Inline rule: a backslash before a marker character is literal (the escape rule would swallow it)."""
    triggers = opts.triggers

    def rule(state: StateInline, silent: bool) -> bool:
        pos = state.pos
        if state.src[pos] != "\\" or pos + 1 >= state.posMax or state.src[pos + 1] not in triggers:
            return False
        if not silent:
            state.pending += "\\"
        state.pos = pos + 1
        return True

    return rule

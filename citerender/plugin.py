"""The markdown-it-py plugin: markers become ``citation`` tokens, numbered and grouped.

Rules, in the order they run:

* core ``citerender_escapes`` (after ``normalize``): literal escapes become the characters;
* inline ``citation`` (after ``text``): a marker, read atomically like a code span, becomes a
  ``citation`` token (entities become text, highlight marks become ``citation_highlight_*``);
* core ``citerender`` (after ``text_join``): copy-paste forms in text, markers in code, HTML and
  link attributes are removed and reported; adjacent citations are grouped; sources are
  resolved against the registry and numbered by first citation; placement is checked; the
  bibliography token is appended.

Render rules for the chosen style are added with ``md.add_render_rule``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, Literal
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from .format import DEFAULT_FORMAT, CitationFormat
from .residue import url_has_residue
from .markers import Mark, MarkKind, _Scanner, apply_marks, normalize_escapes, printable, scan
from .sources import Registry, Source
from .state import CitationState, CitingPlace, Reference, RefUse, citation_state

__all__ = ["PluginOptions", "citation_plugin"]

Style = Literal["footnotes", "superscript", "hovercard"]
UnknownPolicy = Literal["keep", "drop", "error"]
STYLES: tuple[str, ...] = ("footnotes", "superscript", "hovercard")
UNKNOWN_POLICIES: tuple[str, ...] = ("keep", "drop", "error")

#: The most markers one answer may hold (see SECURITY.md).
MAX_MARKERS = 100_000
_DEPTH_KINDS = {f"{k}_{e}": k for k in ("em", "strong", "link") for e in ("open", "close")}
_PUNCT_AFTER = tuple(".,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f)")
_PCT_RESERVED = re.compile(r"%EE%88%8[0-6]", re.I)
_TURN_ID_RE = r"turn\d+[a-z]+\d+"
_FENCE_LINE = re.compile(r" {0,3}(?:`{3,}|~{3,})")
_IN_DESTINATION = re.compile(r"\]\([ \t]*<?[^\s()<>\]\[]*\Z")


@dataclass(frozen=True)
class PluginOptions:
    """The plugin's settings, bound to its rules."""

    registry: Registry | None
    families: tuple[str, ...]
    style: str
    unknown: str
    bibliography: bool
    list_all: bool
    fmt: CitationFormat
    theme: Any

    @cached_property
    def triggers(self) -> str:
        """Characters at which the inline rule looks for a marker."""
        return self.fmt.marker_chars + "\u3010"

    @cached_property
    def _trigger_class(self) -> re.Pattern[str]:
        return re.compile(f"[{re.escape(self.triggers)}]")

    def needs_attention(self, text: str) -> bool:
        """Could ``text`` hold anything the core rule handles? (Plain searches: a regex with
        alternatives would test every position and cost more than the whole check.)"""
        return (self._trigger_class.search(text) is not None or "cite" in text or "entity[" in text
                or ("%" in text and "%EE%88%8" in text.upper()))


def citation_plugin(
    md: MarkdownIt,
    *,
    registry: Registry | None = None,
    families: Sequence[str] = ("cite", "filecite"),
    style: Style = "footnotes",
    unknown: UnknownPolicy = "drop",
    bibliography: bool = True,
    list_all: bool = False,
    fmt: CitationFormat | None = None,
    theme: Any = None,
) -> None:
    """Turn citation markers into numbered citations with a bibliography.

    :param registry: the sources an answer may cite; ``env["citerender"]`` may carry a
        per-document one instead (see :func:`citerender.state.citation_state`).
    :param families: marker families that are citations.
    :param style: ``footnotes``, ``superscript`` or ``hovercard``.
    :param unknown: what to do with ids the registry lacks: ``keep`` (shown as unverified),
        ``drop`` (removed, reported) or ``error`` (reported as errors; ``render`` raises).
    :param bibliography: append the bibliography at the end of the document.
    :param list_all: list every registry source in the bibliography, cited or not.
    :param fmt: marker characters and id shape (defaults to the guide's).
    :param theme: a :class:`citerender.themes.Theme` for the bibliography template.

    .. code-block:: python

        md = MarkdownIt("commonmark").use(citation_plugin, registry=load_sources("s.json"))
        html = md.render(answer)
    """
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
    if unknown not in UNKNOWN_POLICIES:
        raise ValueError(f"unknown must be one of {', '.join(UNKNOWN_POLICIES)}, not {unknown!r}")
    base = fmt or DEFAULT_FORMAT
    if tuple(families) != base.families:
        base = CitationFormat(start=base.start, stop=base.stop, delimiter=base.delimiter,
                              families=tuple(families), id_pattern=base.id_pattern, locators=base.locators,
                              highlight_start=base.highlight_start, highlight_stop=base.highlight_stop)
    if theme is None:
        from .themes import load_theme

        theme = load_theme("default")
    opts = PluginOptions(registry, tuple(families), style, unknown, bibliography, list_all, base, theme)

    for ch in sorted(set(base.marker_chars + "\u3010")):
        md.inline.add_terminator_char(ch)
    md.validateLink = partial(_validate_link, md.validateLink, base.marker_chars)  # type: ignore[method-assign]
    md.core.ruler.after("normalize", "citerender_escapes", partial(_escapes_rule, opts=opts))
    md.inline.ruler.after("text", "citation", partial(citation_inline, opts=opts))
    md.inline.ruler.before("escape", "citation_backslash", partial(_backslash_before_marker, opts=opts))
    md.core.ruler.push("citerender", partial(citation_core, opts=opts))

    from .rendering.styles import add_render_rules

    add_render_rules(md, opts)


# --------------------------------------------------------------------------- rules


def _validate_link(validate: Any, marker_chars: str, url: str) -> bool:
    """markdown-it's link check, refusing any URL with marker residue: residue is removed from
    the output afterwards, and removal could make a refused URL (``java%EE%88%80script:``) live,
    so such a URL stays text."""
    if not validate(url):
        return False
    if url_has_residue(url):
        return False
    decoded = unquote(url)
    return not any(c in decoded for c in marker_chars)


def _escapes_rule(state: StateCore, *, opts: PluginOptions) -> None:
    st = citation_state(state.env, opts.registry)
    norm, omap = normalize_escapes(state.src)
    st.begin(state.src, omap)
    state.src = norm


def citation_inline(state: StateInline, silent: bool, *, opts: PluginOptions) -> bool:
    """Inline rule: read the marker starting at ``state.pos`` as one atomic token."""
    src = state.src
    if src[state.pos] not in opts.triggers:
        return False
    st = state.env.get("citerender")
    if st is None:
        st = citation_state(state.env, opts.registry)
    scanner = st.scanner
    if scanner is None or scanner.text is not src:
        scanner = st.scanner = _Scanner(src, opts.fmt)
    mk = scanner.at(state.pos, state.posMax)
    if mk is None:
        return False
    if mk.kind is not MarkKind.DROPPED and _IN_DESTINATION.search(src, max(0, state.pos - 400), state.pos):
        # the would-be link is refused (validate_link): its URL stays text, the marker goes
        mk = Mark(MarkKind.DROPPED, mk.start, mk.end, mk.raw,
                  notes=(("CR311", f"marker {printable(mk.raw)} removed from a link destination; "
                                   "the link is shown as text"),))
    if not silent:
        st.marks += 1
        if st.marks > MAX_MARKERS:
            from .errors import CiterenderError

            raise CiterenderError(f"answer has more than {MAX_MARKERS:,} markers", hint="split the answer")
        if mk.kind is MarkKind.TEXT:  # the text to show, and a token that carries the report
            state.push("text", "", 0).content = mk.text
            state.push("citation_dropped", "", 0).meta = {"mark": mk, "offset": mk.start}
        elif mk.kind is MarkKind.CITATION and mk.text:
            state.push("text", "", 0).content = mk.text
            state.push("citation", "", 0).meta = {"mark": mk, "offset": mk.start}
        else:
            typ = {
                MarkKind.CITATION: "citation",
                MarkKind.HIGHLIGHT_OPEN: "citation_highlight_open",
                MarkKind.HIGHLIGHT_CLOSE: "citation_highlight_close",
            }.get(mk.kind, "citation_dropped")
            state.push(typ, "", 0).meta = {"mark": mk, "offset": mk.start}
    state.pos = mk.end
    return True


def _backslash_before_marker(state: StateInline, silent: bool, *, opts: PluginOptions) -> bool:
    """A backslash before a marker character is literal: the escape rule must not swallow the
    marker (it would turn ``\\`` + U+E200 into text)."""
    pos = state.pos
    if state.src[pos] != "\\" or pos + 1 >= state.posMax or state.src[pos + 1] not in opts.triggers:
        return False
    if not silent:
        state.pending += "\\"
    state.pos = pos + 1
    return True


class _Locator:
    """Finds where a mark sits in the source, for diagnostics."""

    def __init__(self, st: CitationState, src: str) -> None:
        self.st = st
        self.src = src
        starts = [0]
        i = src.find("\n")
        while i != -1:
            starts.append(i + 1)
            i = src.find("\n", i + 1)
        self.starts = starts
        self._prefix: dict[tuple[int, int, bool], int] = {}

    def offset(self, block: Token, content: str, pos: int | None, raw: str, *, header: bool = False) -> int:
        """Offset in ``st.original`` of ``raw`` found at ``pos`` of ``block``'s content
        (``header``: in a fence's info string, on its first line)."""
        return self.span(block, content, pos, raw, header=header)[0]

    def span(self, block: Token, content: str, pos: int | None, raw: str, *,
             header: bool = False) -> tuple[int, int]:
        """Start and end in ``st.original`` of ``raw`` at ``pos`` of ``block``'s content.

        A content line is its source line with a prefix (indentation, ``>``, list markers)
        removed, so the column is the content column plus where that line sits in the source.
        """
        first = block.map[0] if block.map else 0
        if pos is None:
            pos = max(content.find(raw), 0)
        line_start = content.rfind("\n", 0, pos) + 1
        line = first + content.count("\n", 0, line_start)
        if block.type == "fence" and not header:
            line += 1
        line = min(line, len(self.starts) - 1)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.src)
        key = (id(block), line_start, header)
        k = self._prefix.get(key)
        if k is None:
            line_end = content.find("\n", pos)
            cline = content[line_start : line_end if line_end != -1 else len(content)]
            found = self.src.find(cline, start, end) if cline and not header else -1
            k = self._prefix[key] = found - start if found != -1 else -1
        idx = start + k + (pos - line_start) if k != -1 else -1
        if idx == -1 or not self.src.startswith(raw, idx):
            idx = self.src.find(raw, start, end) if raw else -1
        if idx == -1:
            idx = start + (len(self.src[start:end]) - len(self.src[start:end].lstrip()))
        omap = self.st.offsets
        return omap(idx), omap(idx + len(raw))


def citation_core(state: StateCore, *, opts: PluginOptions) -> None:
    """Core rule: clean up, group, resolve, number, check placement, add the bibliography."""
    st = citation_state(state.env, opts.registry)
    if not st.original:
        st.original = state.src
    registry = st.registry
    src = state.src
    loc = _Locator(st, src)
    copy_paste = ("turn" in src and "cite" in src) or "entity[" in src
    blocks: list[tuple[Token, bool, bool]] = []  # (inline token, has text, has citation)

    for tok in state.tokens:
        if tok.type in ("fence", "code_block", "html_block"):
            code = "CR311" if tok.type == "html_block" else "CR302"
            tok.content = _scrub(tok.content, st, loc, tok, code, opts)
            if tok.info:
                tok.info = _scrub(tok.info, st, loc, tok, code, opts, header=True)
        elif tok.type == "inline" and tok.children is not None:
            if not opts.needs_attention(tok.content) and not _verbatim_ids(tok.content, registry):
                blocks.append((tok, bool(tok.content.strip()), False))  # nothing of ours in here
                continue
            has_text, has_cite = _inline(tok, st, loc, opts, copy_paste)
            blocks.append((tok, has_text, has_cite))

    if not st.whole_document:
        return
    _check_grouped_at_end(blocks, st)
    if registry is not None:
        cited = {s.id for r in st.references for s in [r.source, *r.merged]}
        for sid, source in registry.items():
            if sid not in cited:
                st.report("CR308", f"source {sid!r} is never cited", None)
                if opts.list_all:
                    _reference_for(st, source, known=True)
    if opts.bibliography and st.references:
        tok = Token("citerender_bibliography", "", 0)
        tok.block = True
        tok.meta = {"references": st.references}
        state.tokens.append(tok)


# A word that could be a source id written verbatim: letters, then a digit somewhere.
_ID_WORD = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*(?![\w-])")
_TURN_ID = re.compile(_TURN_ID_RE + r"\Z")
_DIGIT = re.compile(r"[0-9]")


def _verbatim_ids(text: str, registry: Registry | None) -> list[re.Match[str]]:
    """Words in ``text`` that are source ids: ``turnNkindN`` or a registry id with a digit."""
    if _DIGIT.search(text) is None or _ID_WORD.search(text) is None:  # the common case: none
        return []
    return [m for m in _ID_WORD.finditer(text)
            if _TURN_ID.match(m.group(0)) or (registry is not None and m.group(0) in registry)]


def _scrub(text: str, st: CitationState, loc: _Locator, block: Token, code: str, opts: PluginOptions,
           *, header: bool = False) -> str:
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


def _inline(block: Token, st: CitationState, loc: _Locator, opts: PluginOptions,
            copy_paste: bool) -> tuple[bool, bool]:
    children = block.children or []
    content = block.content
    out: list[Token] = []
    depth = {"em": 0, "strong": 0, "link": 0}
    has_text = False
    highlights: list[tuple[int, int]] = []  # (index in out, nesting level) of open highlights
    level = 0
    cursor = 0
    line_has_text = False
    line_cites: list[Token] = []
    cite_only_lines: list[Token] = []
    code_cursor = [0]

    def end_line() -> None:
        nonlocal line_has_text
        if line_cites and not line_has_text:
            cite_only_lines.append(line_cites[0])
        line_has_text = False
        line_cites.clear()

    def position(tok: Token) -> None:
        """Note where the mark sits; the source offset is computed only if a report needs it."""
        nonlocal cursor
        meta = tok.meta
        mk: Mark = meta["mark"]
        pos = meta.get("offset")
        if pos is None:
            found = content.find(mk.raw, cursor)
            pos = meta["offset"] = found if found != -1 else cursor
        if pos + len(mk.raw) > cursor:
            cursor = pos + len(mk.raw)
        code_cursor[0] = max(code_cursor[0], cursor)
        meta["locate"] = (loc, block, content)
        if st.spans is not None:
            meta["span"] = loc.span(block, content, pos, mk.raw)
            if tok.type != "citation":
                st.spans.append((*meta["span"], mk.text))
        if mk.notes:
            _report_mark(st, mk, where(tok))
        if st.offsets:
            off = where(tok)
            if st.original[off : off + len(mk.raw)] != mk.raw:
                st.report("CR201", "marker written with literal escapes", off)

    queue = list(children)
    i = 0
    while i < len(queue):
        tok = queue[i]
        i += 1
        t = tok.type
        if t == "text":
            # copy-paste forms, and marker characters markdown-it kept as text (after a backslash)
            if "mark" not in tok.meta and ((copy_paste and ("cite" in tok.content or "entity[" in tok.content))
                                           or opts._trigger_class.search(tok.content) is not None):
                marks = scan(tok.content, fmt=opts.fmt)
                if marks:
                    queue[i:i] = _split_text(tok, marks)
                    continue
            if "mark" not in tok.meta:
                for m in _verbatim_ids(tok.content, st.registry):
                    off = loc.offset(block, content, content.find(m.group(0), cursor), m.group(0))
                    st.report("CR307", f"source id {m.group(0)!r} written outside a marker", off)
            if tok.content.strip():
                has_text = True
                line_has_text = True
                if out and out[-1].type == "citation" and tok.content.lstrip().startswith(_PUNCT_AFTER):
                    ctok = out[-1]
                    st.report("CR303", "citation placed before punctuation", where(ctok))
            out.append(tok)
            continue
        if t in ("softbreak", "hardbreak"):
            end_line()
            out.append(tok)
            continue
        if t == "citation_dropped":
            position(tok)
            continue
        if t in ("citation_highlight_open", "citation_highlight_close"):
            position(tok)
            if t == "citation_highlight_open":
                highlights.append((len(out), level))
                out.append(tok)
            elif highlights and highlights[-1][1] == level:
                highlights.pop()
                out.append(tok)
            continue
        if t == "citation":
            position(tok)
            mk = tok.meta["mark"]
            if depth["em"] or depth["strong"]:
                st.report("CR301", "citation inside bold or italics", where(tok))
            in_link = depth["link"] > 0
            if in_link:
                st.report("CR309", "citation inside link text", where(tok))
            # group with the previous citation when only whitespace separates them
            prev = out[-1] if out else None
            gap = None
            if prev is not None and prev.type == "text" and not prev.content.strip() and len(out) > 1 \
                    and out[-2].type == "citation" and "\n" not in prev.content:
                gap, prev = prev, out[-2]
            if prev is not None and prev.type == "citation" and prev.meta.get("in_link") == in_link:
                if gap is not None:
                    out.pop()
                prev.meta["marks"].append(mk)
                if st.spans is not None:
                    prev.meta["spans"].append(tok.meta["span"])
                _resolve(prev, mk, st, opts)
                line_cites.append(prev)
                continue
            tok.meta["marks"] = [mk]
            tok.meta["spans"] = [tok.meta["span"]] if st.spans is not None else []
            tok.meta["uses"] = []
            tok.meta["in_link"] = in_link
            tok.meta["title"] = mk.citation.title if mk.citation and mk.citation.family in ("navlist", "filenavlist") else None
            st.places += 1
            tok.meta["anchor"] = f"cite-{st.places}"
            _resolve(tok, mk, st, opts)
            out.append(tok)
            line_cites.append(tok)
            continue
        # structure
        nesting = tok.nesting
        if nesting:
            level += nesting
            kind = _DEPTH_KINDS.get(t)
            if kind is not None:
                depth[kind] += nesting
        if t == "code_inline":
            tok.content = _scrub_inline(tok.content, st, loc, block, content, opts.fmt, "CR302", code_cursor)
            line_has_text = line_has_text or bool(tok.content.strip())
            has_text = has_text or bool(tok.content.strip())
        elif t == "html_inline":
            tok.content = _scrub_inline(tok.content, st, loc, block, content, opts.fmt, "CR311", code_cursor)
        elif t in ("link_open", "image"):
            for name in ("href", "src", "title"):
                val = tok.attrs.get(name)
                if isinstance(val, str):
                    clean = _scrub_attr(val, opts.fmt)
                    if clean != val:
                        st.report("CR311", f"marker removed from a link {name}", loc.offset(block, content, None, ""))
                        if name == "title":
                            tok.attrs[name] = clean
                        else:  # validate_link refuses these; never turn a cleaned URL into a link
                            del tok.attrs[name]
            if t == "image" and tok.children:
                sub = Token("inline", "", 0)
                sub.children, sub.content, sub.map = tok.children, tok.content, block.map
                _inline(sub, st, loc, opts, copy_paste)
                tok.children = [c for c in (sub.children or []) if c.type == "text" or c.type == "image"]
                line_has_text = True
                has_text = True
        else:
            line_has_text = line_has_text or t not in ("em_open", "em_close", "strong_open", "strong_close")
        out.append(tok)
    end_line()
    for idx, _lvl in highlights:  # unbalanced opens render as nothing
        out[idx] = Token("citation_dropped", "", 0)
    out = _drop_empty_groups(out, st)
    block.children = out
    cites = [tok for tok in out if tok.type == "citation"]
    if cites:
        if not has_text:
            st.report("CR306", "a paragraph holds nothing but citations", where(cites[0]))
        else:
            for tok in cite_only_lines:
                if tok in cites:
                    st.report("CR306", "a line holds nothing but citations", where(tok))
    return has_text, bool(cites)


def _scrub_inline(text: str, st: CitationState, loc: _Locator, block: Token, content: str,
                  fmt: CitationFormat, code: str, cursor: list[int]) -> str:
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


def _scrub_attr(value: str, fmt: CitationFormat) -> str:
    value = _PCT_RESERVED.sub("", value)
    if any(c in value for c in fmt.marker_chars) or "\\u" in value.lower() or "&#" in value:
        value = apply_marks(value, scan(value, fmt=fmt))
        value = "".join(c for c in value if c not in fmt.marker_chars)
    return value


def _split_text(tok: Token, marks: list[Mark]) -> list[Token]:
    """Split a text token around copy-paste marks into text and citation tokens."""
    out: list[Token] = []
    pos = 0
    text = tok.content
    for mk in marks:
        if mk.start > pos:
            t = Token("text", "", 0)
            t.content = text[pos : mk.start]
            t.meta = {"mark": None}
            out.append(t)
        if mk.kind is MarkKind.TEXT or (mk.kind is MarkKind.CITATION and mk.text):
            t = Token("text", "", 0)
            t.content = mk.text
            t.meta = {"mark": None}
            out.append(t)
            if mk.kind is MarkKind.TEXT:
                d = Token("citation_dropped", "", 0)
                d.meta = {"mark": mk}
                out.append(d)
        if mk.kind is MarkKind.CITATION:
            c = Token("citation", "", 0)
            c.meta = {"mark": mk}
            out.append(c)
        elif mk.kind is MarkKind.DROPPED or mk.kind in (MarkKind.HIGHLIGHT_OPEN, MarkKind.HIGHLIGHT_CLOSE):
            d = Token("citation_dropped", "", 0)
            d.meta = {"mark": mk}
            out.append(d)
        pos = mk.end
    if pos < len(text):
        t = Token("text", "", 0)
        t.content = text[pos:]
        t.meta = {"mark": None}
        out.append(t)
    return out


def where(tok: Token) -> int:
    """Offset in the original text of a citation token (computed once, on demand)."""
    meta = tok.meta
    off = meta.get("offset_abs")
    if off is None:
        loc, block, content = meta["locate"]
        off = meta["offset_abs"] = loc.offset(block, content, meta["offset"], meta["mark"].raw)
    return int(off)


def _report_mark(st: CitationState, mk: Mark, offset: int) -> None:
    for code, detail in mk.notes:
        st.report(code, detail, offset)


def _reference_for(st: CitationState, source: Source, *, known: bool) -> Reference:
    """The reference numbered for ``source``: its own, one sharing its URL, or a new one."""
    ref = st.by_id.get(source.id)
    if ref is not None:
        return ref
    ref = st.by_url.get(source.url) if source.url else None
    if ref is None:
        ref = Reference(len(st.references) + 1, source, known)
        st.references.append(ref)
        if source.url:
            st.by_url[source.url] = ref
    else:
        ref.merged.append(source)
        st.report("CR310", f"sources {ref.source.id!r} and {source.id!r} share a URL and are one reference", None)
    st.by_id[source.id] = ref
    return ref


def _resolve(tok: Token, mk: Mark, st: CitationState, opts: PluginOptions) -> None:
    """Resolve one mark's sources against the registry and number them."""
    cit = mk.citation
    if cit is None:
        return
    registry = st.registry
    for sid in cit.source_ids:
        source = registry.get(sid) if registry is not None else Source(sid)
        known = source is not None
        if source is None:
            st.report("CR101", f"unknown source id {sid!r}", where(tok))
            st.unknown_ids.append(sid)
            if opts.unknown == "drop":
                continue
            source = Source(sid)
        lines = cit.lines
        valid = lines is not None
        if lines is not None:
            if lines.is_reversed:
                st.report("CR103", f"line range {cit.locator} runs backwards", where(tok))
            if known and registry is not None:
                if source.lines is None:
                    st.report("CR110", f"{cit.locator} cites {sid!r}, which has no numbered lines", where(tok))
                    valid = False
                elif not source.has_lines(lines):
                    st.report("CR102", f"{cit.locator} is outside {sid!r} (lines 1-{len(source.lines)})", where(tok))
                    valid = False
        ref = st.by_id.get(sid) or _reference_for(st, source, known=known)
        ref.places.append(CitingPlace(tok.meta["anchor"], lines if valid else None))
        tok.meta["uses"].append(RefUse(ref, source, lines, valid))


def _drop_empty_groups(tokens: list[Token], st: CitationState) -> list[Token]:
    out = []
    for tok in tokens:
        if tok.type == "citation" and not tok.meta.get("uses"):
            if st.spans is not None:
                st.spans.extend((a, b, mk.text) for (a, b), mk in zip(tok.meta["spans"], tok.meta["marks"], strict=False))
            continue
        if tok.type == "citation_dropped":
            continue
        out.append(tok)
    return out


def _check_grouped_at_end(blocks: list[tuple[Token, bool, bool]], st: CitationState) -> None:
    text_blocks = [b for b in blocks if b[1] or b[2]]
    cited = [i for i, b in enumerate(text_blocks) if b[2]]
    if len(text_blocks) < 3 or not cited or cited[0] != len(text_blocks) - 1:
        return
    last = text_blocks[-1][0]
    cites = [c for c in last.children or [] if c.type == "citation"]
    n = sum(len(c.meta["uses"]) for c in cites)
    if n >= 2:
        st.report("CR305", "every citation is in the last paragraph", where(cites[0]))

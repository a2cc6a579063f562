"""ChatGPT's copied forms (:mod:`citerender.syntax.copied`) read where they stand:
``[oai_citation:N‡Title](url)`` and a copy residue object become a ``citation`` of the pages they
name, ``<Cite ref="…"/>`` one of its ids, ``<Link …/>`` and a ``url`` residue pill a link; a residue
object naming no page leaves its ``fallbackMarkdown`` text.

* ``residue_block`` (block, before ``lheading``): a paragraph goes on over the lines a residue
  object spans (its strings may hold blank lines); the text is not changed.
* ``copied_rule`` (inline, before ``link``): a form read atomically. Its pages are the document's
  *carried* sources (:func:`carried_source`), unless a registry source has the same URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

from ..lazy_re import lazy_compile
from ..sources.clean import display_text
from ..sources.model import Registry, Source
from ..syntax.escapes import printable
from ..syntax.types import Citation, Mark, MarkKind
from .dialects import ids_by_url
from .options import PluginOptions
from .rules import count_marks
from .state import CitationState, citation_state

if TYPE_CHECKING:
    from ..syntax.copied import Copied, Page

__all__ = ["CARRIED", "carried_source", "copied_rule", "residue_block"]

CARRIED = "copied.sources"  # the document's carried sources, by id
_KEYS = "copied.keys"  # a page's key (its URL or file) -> the id it is cited by
_FIRST = frozenset("[<{:")
_MD_SPECIAL = lazy_compile(r"([\\`*_{}\[\]<>()#+\-!|~$&])")
_URL_UNSAFE = lazy_compile(r"[\x00-\x20<>\\\x7f]")


def residue_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a paragraph whose residue object runs over a line that would end it."""
    src = state.src
    if silent or "fallbackMarkdown" not in src:
        return False
    old_parent, state.parentType = state.parentType, "paragraph"
    line, last, reach, spans = start, state.lineMax, -1, False
    while line < last:
        inside = reach > state.bMarks[line]  # the line starts inside an open object
        if line > start:
            stops = state.isEmpty(line) or (0 <= state.sCount[line] - state.blkIndent <= 3 and _ends(state, line))
            if stops and not inside:
                break
            spans = spans or stops
        reach = _reach(src, max(state.bMarks[line], reach), state.eMarks[line], reach)
        line += 1
    state.parentType = old_parent
    if not spans:
        return False
    state.line = line
    state.push("paragraph_open", "p", 1).map = [start, line]
    tok = state.push("inline", "", 0)
    tok.content = state.getLines(start, line, state.blkIndent, False).strip()
    tok.map, tok.children = [start, line], []
    state.push("paragraph_close", "p", -1)
    return True


def _ends(state: StateBlock, line: int) -> bool:
    """Would a block starting at ``line`` end a paragraph (a heading, a fence, a list…)?"""
    return any(rule(state, line, state.lineMax, True) for rule in state.md.block.ruler.getRules("paragraph"))


def _reach(src: str, at: int, stop: int, reach: int) -> int:
    """Where the last residue object starting in ``src[at:stop]`` ends (``reach`` if none does)."""
    from ..syntax.copy_residue import pill_spans

    return max([reach, *(end for _, end in pill_spans(src, at, stop))])


def carried_source(st: CitationState, sid: str) -> Source | None:
    """The source a copied form carries under ``sid`` in this document, if any."""
    carried: dict[str, Source] = st.cache(CARRIED, dict)
    found = carried.get(sid)
    if found is None and (ref := st.by_id.get(sid)) is not None:
        found = next((s for s in (ref.source, *ref.merged) if s.id == sid and "copied" in s.meta), None)
    return found


def _may_start(src: str, pos: int) -> bool:
    """Could a copied form start at ``pos`` (its fixed opening: a link or a tag loads no reader)?"""
    ch = src[pos]
    if ch == "[":
        return src.startswith("[oai_citation:", pos)
    if ch == "<":
        return src.startswith(("<Cite", "<Link"), pos)
    if ch == ":":
        return src.startswith(":::{", pos)
    return True


def copied_rule(opts: PluginOptions) -> Callable[[StateInline, bool], bool]:
    """Inline rule (before ``link``): a copied form becomes what it means."""

    def rule(state: StateInline, silent: bool) -> bool:
        pos = state.pos
        # silent: markdown-it measuring a link's text; a form there is read when the text is parsed
        if silent or state.src[pos] not in _FIRST or not _may_start(state.src, pos):
            return False
        from ..syntax.copied import copied_at  # the readers load where a form may start

        form = copied_at(state.src, pos, state.posMax)
        if form is None:
            return False
        st = citation_state(state.env, opts.registry)
        count_marks(st)
        _push(state, st, form, opts)
        state.pos = form.end
        return True

    return rule


def _push(state: StateInline, st: CitationState, form: Copied, opts: PluginOptions) -> None:
    raw = state.src[form.start : form.end]
    kind = form.pill.kind if form.pill is not None else form.kind
    if kind == "tag":
        cit = Citation(raw, opts.fmt.families[0], form.ids, None, form.start, form.end, None, "cite-tag")
        note = ("CR221", f"<Cite> tag read as a citation of {', '.join(form.ids)}")
        _token(state, st, "citation", Mark(MarkKind.CITATION, form.start, form.end, raw, citation=cit, notes=(note,)))
        return
    if kind in ("oai", "cite"):
        _cite(state, st, form, raw, opts)
        return
    if kind == "link" and form.pages:
        _link(state, st, form, raw)
        return
    _fallback(state, st, form, raw)


def _cite(state: StateInline, st: CitationState, form: Copied, raw: str, opts: PluginOptions) -> None:
    """A citation of the form's pages, each carried (or the registry's source of that URL)."""
    notes = [_read_note(form)]
    ids = []
    for page in form.pages:
        ids.append(_carry(st, page))
        notes.extend(_page_notes(page))
    if form.pill is not None and form.pill.unlinked:
        notes.append(("CR223", f"the copied pill names {form.pill.unlinked} page(s) without an address: not shown"))
    dialect = "oai-citation" if form.kind == "oai" else "copy-residue"
    cit = Citation(raw, opts.fmt.families[0], tuple(dict.fromkeys(ids)), None, form.start, form.end, None, dialect)
    mark = Mark(MarkKind.CITATION, form.start, form.end, raw, citation=cit, notes=tuple(notes))
    _token(state, st, "citation", mark)


def _link(state: StateInline, st: CitationState, form: Copied, raw: str) -> None:
    """A page shown as a link (its title, without marker forms) when its address may be followed."""
    page = form.pages[0]
    href = state.md.normalizeLink(page.url) if page.url else ""
    what = "<Link> tag" if form.kind == "link" else "copied url pill"
    title, cleaned = _shown(page.title or page.url or page.file or "", f"the {what}'s title")
    if href and state.md.validateLink(href):
        tok = state.push("link_open", "a", 1)
        tok.attrs = {"href": href}
        state.push("text", "", 0).content = title
        state.push("link_close", "a", -1)
        dest = _URL_UNSAFE.sub(_percent, page.url or "")
        shown = f"[{_md(title)}](<{dest}>)"
        note = ("CR221" if form.kind == "link" else "CR222", f"{what} shown as a link")
    else:
        state.push("text", "", 0).content = title
        shown = _md(title)
        note = ("CR223", f"{what}: {printable(page.url or page.file or page.bad or '', 80)} is not linked")
    mark = Mark(MarkKind.TEXT, form.start, form.end, raw, text=shown, notes=(note, *cleaned))
    _token(state, st, "citation_dropped", mark)


def _fallback(state: StateInline, st: CitationState, form: Copied, raw: str) -> None:
    """A residue object that names no page: its fallback text, or nothing (reported)."""
    text, cleaned = _shown(form.pill.fallback if form.pill is not None else "", "the copy residue's fallback text")
    unlinked = form.pill.unlinked if form.pill is not None else 0
    what = f" ({unlinked} named without one)" if unlinked else ""
    if text:
        state.push("text", "", 0).content = text
        note = ("CR212", f"ChatGPT copy residue names no page with an address{what}: shown as {printable(text, 60)}")
        mark = Mark(MarkKind.TEXT, form.start, form.end, raw, text=_md(text), notes=(note, *cleaned))
    else:
        note = ("CR212", f"ChatGPT copy residue that names no page with an address{what} removed")
        mark = Mark(MarkKind.DROPPED, form.start, form.end, raw, notes=(note,))
    _token(state, st, "citation_dropped", mark)


def _shown(text: str, what: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` a copied form shows without its marker forms, and the note saying so (CR114)."""
    shown, changed = display_text(text)
    return shown, ((("CR114", f"{what} held marker forms: removed"),) if changed else ())


def _token(state: StateInline, st: CitationState, kind: str, mark: Mark) -> None:
    state.push(kind, "", 0).meta = {"mark": st.add_mark(mark), "offset": mark.start}


def _read_note(form: Copied) -> tuple[str, str]:
    if form.kind == "oai":
        return ("CR220", f"ChatGPT's copied citation of {printable(form.pages[0].title, 60)} read")
    what = form.pill.type if form.pill is not None and form.pill.type else "pill"
    count = len({p.key for p in form.pages})
    return ("CR222", f"ChatGPT copy residue ({what}) read as a citation of {count} page{'s' if count > 1 else ''}")


def _page_notes(page: Page) -> list[tuple[str, str]]:
    if page.file is not None:
        what = f"is an uploaded file ({printable(page.file, 60)}): named, not linked"
        return [("CR223", f"{printable(page.title, 60)} {what}")]
    if page.url is None:
        return [("CR223", f"{printable(page.bad or '', 80)} is no web address: {printable(page.title, 60)} not linked")]
    return []


def _carry(st: CitationState, page: Page) -> str:
    """The id ``page`` is cited by: as before, the registry's source with its URL, else a new one carried."""
    keys: dict[str, str] = st.cache(_KEYS, dict)
    known = keys.get(page.key) or _cited_before(st, page)
    if known is not None:
        keys[page.key] = known
        return known
    registry = st.registry
    if page.url and registry is not None:
        by_url: dict[str, str] = registry.derived("copied.urls", lambda: _clean_ids_by_url(registry))
        if page.url in by_url:
            keys[page.key] = by_url[page.url]
            return by_url[page.url]
    carried: dict[str, Source] = st.cache(CARRIED, dict)
    n = len(carried) + 1
    sid = f"copied-{n}"
    while sid in carried or sid in st.by_id or (registry is not None and sid in registry):
        n += 1
        sid = f"copied-{n}"
    title = f"{page.title} (uploaded file)" if page.file else page.title
    carried[sid] = Source(sid, title=title or None, url=page.url, meta={"copied": page.key}).shown()
    keys[page.key] = sid
    return sid


def _cited_before(st: CitationState, page: Page) -> str | None:
    """The id of a source already cited for ``page`` (a stream's earlier block, a rebuilt state)."""
    if page.url:
        ref = st.by_url.get(page.url)
        return ref.source.id if ref is not None else None
    for ref in st.references:  # a file, or a page without an address: a few in any answer
        for s in (ref.source, *ref.merged):
            if s.meta.get("copied") == page.key:
                return s.id
    return None


def _clean_ids_by_url(registry: Registry) -> dict[str, str]:
    from ..syntax.copied import clean_url

    return ids_by_url(registry, clean_url)


def _percent(m: re.Match[str]) -> str:
    return f"%{ord(m.group()):02X}"


def _md(text: str) -> str:
    """``text`` as literal Markdown (for the exports, which rewrite the answer's Markdown)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))

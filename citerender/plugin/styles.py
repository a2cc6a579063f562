"""Render rules for the styles (they read tokens, never write them): footnotes, superscript links,
hover cards, pills and sidenotes. ``citation_label`` (``[1, 3–5]``) is a rule of its own, so a
host can change the label without replacing the style.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..sources.urls import safe_url, text_fragment, with_fragment
from ..syntax.types import line_locator
from .bibliography import (
    EN_DASH,
    NOTE_STYLES,
    SEPARATOR,
    clip,
    lines_html,
    mark_after_long,
    page_html,
    render_bibliography,
    render_consulted,
)
from .card_marks import BAD_MARK, bad_lines, bad_lines_note, nobr_dates, pill_names, shorten
from .labels import group_label
from .options import PluginOptions
from .source_links import VIEWS_OFF, view_href, views_mode
from .state import CitationMeta, Reference, RefUse, citation_meta, citation_state
from .unsupported import card_warning, unsupported_flag, unsupported_reason

__all__ = ["add_render_rules"]


def _by_reference(uses: list[RefUse]) -> list[list[RefUse]]:
    """A group's uses by reference, in visible order: one card item a source, with each passage cited."""
    by: dict[int, list[RefUse]] = {}
    for u in uses:
        same = by.setdefault(u.reference.number, [])
        if all((x.lines, x.lines_valid) != (u.lines, u.lines_valid) for x in same):
            same.append(u)
    return [by[n] for n in sorted(by)]


def _accessible(ref: Reference) -> str:
    """A number link's name: the visible number first (WCAG "label in name"), then the source."""
    return f"{ref.number}: {ref.source.label}" + ("" if ref.known else ", unverified")


def _number_link(use: RefUse, style: str, cache: dict[int, str]) -> str:
    """A number's link, made once per reference unless it depends on the use."""
    if bad_lines(use) or (style == "superscript" and use.lines_valid):
        return _make_number_link(use, style)
    html = cache.get(use.reference.number)
    if html is None:
        html = cache[use.reference.number] = _make_number_link(use, style)
    return html


def _make_number_link(use: RefUse, style: str) -> str:
    ref = use.reference
    bad = bad_lines(use)
    cls = "citerender-num" + ("" if ref.known else " citerender-unverified") + (" citerender-badlines" if bad else "")
    name = _accessible(ref) + (
        f", {use.lines.label(use.source.line_unit)} not in the source" if bad and use.lines else ""
    )
    n = f"{ref.number}{BAD_MARK}" if bad else str(ref.number)
    if style == "superscript":
        href = passage_href(use)
        if href is not None:
            return (
                f'<a class="{cls}" href="{escape(href)}" target="_blank" rel="noopener noreferrer" '
                f'aria-label="{escape(name)}, opens in a new tab">{n}</a>'
            )
    return f'<a class="{cls}" href="#{ref.anchor}" role="doc-noteref" aria-label="{escape(name)}">{n}</a>'


def passage_href(use: RefUse) -> str | None:
    """Where a citation's passage is: its page with the cited lines' text fragment, ``#L3-L5`` for
    a repository file, ``#page=N`` for a PDF whose ``page`` is given, else the page itself."""
    source = use.source
    url = safe_url(source.url)
    if url is None:
        return None
    if source.line_anchors:  # a repository file: GitHub/GitLab line anchors
        lines = use.lines
        return f"{url}#{line_locator(lines.low, lines.high)}" if use.lines_valid and lines is not None else url
    page = source.meta.get("page")
    if isinstance(page, int) and not isinstance(page, bool) and page > 0 and "#" not in url:
        return f"{url}#page={page}"
    frag = text_fragment([t for _, t in source.cited_lines(use.lines)]) if use.lines_valid else None
    return with_fragment(url, frag)


#: labels kept for reuse per document: an answer citing every sentence has thousands of distinct
#: groups (half a megabyte held through the HTML); the ones that repeat come early
MAX_LABELS = 256


def citation_label(
    self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any, *, style: str = "footnotes"
) -> str:
    """The ``[1, 3–5]`` label of a citation group; numbers are links unless inside a link."""
    meta = citation_meta(tokens[idx])
    linked = not meta.get("in_link") and style not in NOTE_STYLES
    st = citation_state(env)
    key = None
    labels: dict[tuple[Any, ...], str] = st.cache("styles.labels", dict)
    if style != "superscript":  # the label depends on the numbers (and lines not there) only: made once per group
        key = (linked, tuple(meta["uses"]))  # the rows (numbers, ids, lines): a group cited alike again
        label = labels.get(key)
        if label is not None:
            return label
    label = _label(st.uses(tokens[idx]), style, linked, st.cache("styles.links", dict))  # number links, by reference
    if key is not None and len(labels) < MAX_LABELS:
        labels[key] = label
    return label


def _label(uses: list[RefUse], style: str, linked: bool, cache: dict[int, str]) -> str:
    by: dict[int, RefUse] = {}
    for u in uses:
        by.setdefault(u.reference.number, u)
    if not linked:
        return group_label(list(by), lambda n: f"{n}{BAD_MARK}" if bad_lines(by[n]) else str(n), EN_DASH)
    return group_label(list(by), lambda n: _number_link(by[n], style, cache), EN_DASH)


def _plain(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any, style: str) -> str:
    meta = citation_meta(tokens[idx])
    label = self.rules["citation_label"](tokens, idx, options, env)
    cls = f"citerender-cite citerender-{style}" + _group_classes(citation_state(env).uses(tokens[idx]))
    return _titled(meta, f'{JOIN}<sup class="{cls}" id="{meta["anchor"]}">{label}</sup>')


def _group_classes(uses: Sequence[RefUse]) -> str:
    """A group's classes: it cites a source not in the registry; it names lines a source lacks."""
    unverified = bad = False
    for u in uses:  # one walk (a render rule of every citation)
        if not u.reference.known:
            unverified = True
        elif bad_lines(u):
            bad = True
    return (" citerender-unverified" if unverified else "") + (" citerender-badlines" if bad else "")


#: the most lines a card quotes; the rest is counted ("… and 480 more lines")
CARD_LINES = 8
#: the most characters of a source's text (a snippet) a card quotes
CARD_CHARS = 320
#: the most bytes (escaped, UTF-8) of one cited line a card quotes (:func:`.bibliography.clip`):
#: a retrieved chunk whole, not a minified file's one line in every card citing it
CARD_LINE_CHARS = 4_000
#: a word joiner before every citation (inside a card style's wrapper: Chromium breaks before a
#: button however joined from outside): a citation never starts a line alone, away from its word
JOIN = "&#8288;"


def _card_item(same: list[RefUse], views: str = VIEWS_OFF) -> str:
    """One source in a card: its title linking to the (first) passage, its domain and date, each
    passage of it the group cites (or its snippet), and a link to its entry under Sources."""
    ref = same[0].reference
    s = ref.source
    href = passage_href(same[0])
    title = f"<bdi>{nobr_dates(escape(s.label))}</bdi>"
    head = (
        f'<a class="citerender-card-title" href="{escape(href)}" target="_blank" rel="noopener noreferrer">{title}</a>'
        if href
        else f'<span class="citerender-card-title">{title}</span>'
    )
    domain = s.domain if s.domain != s.label else None  # a title-less source is named by its site already
    meta_bits = [escape(b) for b in (domain, s.pages, f"updated {s.updated}" if s.updated else None) if b]
    if not ref.known:
        meta_bits.append("unverified source")
    meta = f'<span class="citerender-card-meta">{nobr_dates(SEPARATOR.join(meta_bits))}</span>' if meta_bits else ""
    body = "".join(bad_lines_note(u) if bad_lines(u) else _lines_body(u, views) for u in same)
    if not body and s.text and s.text.strip():  # a snippet (a search result's, a text block): quoted, shortened
        quote = shorten(" ".join(s.text.split()), CARD_CHARS)
        body = (
            '<span class="citerender-card-body"><span class="citerender-card-lines">'
            f'<span class="citerender-ltext">{nobr_dates(escape(quote))}</span></span></span>'
        )
    entry = (
        f'<a class="citerender-card-entry" href="#{ref.anchor}" aria-label="Source {ref.number}, in Sources">'
        f"in Sources</a>"
    )
    return (
        f'<span class="citerender-card-item"><span class="citerender-card-head"><span class="citerender-card-num">'
        f"{ref.number}</span> {head}</span>{meta}{body}{entry}</span>"
    )


def _lines_body(use: RefUse, views: str = VIEWS_OFF) -> str:
    """The lines one use cites (at most :data:`CARD_LINES`; the citation's description quotes them),
    with ``views`` a link to the range in the source's view; empty without valid lines."""
    lines = use.source.cited_lines(use.lines) if use.lines_valid else []
    if not lines:
        return ""
    rows = "".join(
        f'<span class="citerender-line"><span class="citerender-lno">{n}</span> '
        f'<span class="citerender-ltext">{nobr_dates(escape(clip(t, CARD_LINE_CHARS)))}</span>{page_html(use.source, n)}</span>'
        for n, t in lines[:CARD_LINES]
    )
    more = len(lines) - CARD_LINES
    if more > 0:
        rows += f'<span class="citerender-line citerender-more">&#8230; and {more} more {use.source.line_unit}s</span>'
    label = use.lines.label(use.source.line_unit) if use.lines else ""  # the rows show their pages
    href = view_href(use, views)
    passage = (
        f'<a class="citerender-card-passage" href="{escape(href)}">Show {lines_html(label)} in the source</a>'
        if href
        else ""
    )
    return (
        f'<span class="citerender-card-body"><span class="citerender-card-loc">{lines_html(label)}:</span>'
        f'<span class="citerender-card-lines">{rows}</span>{passage}</span>'
    )


def _pill_name(ref: Reference, env: Any) -> str:
    """What a pill shows: :func:`.card_marks.pill_names`, else the domain or title, shortened."""
    reg = citation_state(env).registry
    names = reg.derived("styles.pill_names", lambda: pill_names(reg.shown(k) or reg[k] for k in reg)) if reg else {}
    return names.get(ref.source.id) or shorten(ref.source.domain or ref.source.label)


def _noted_cite(
    self: Any,
    tokens: Sequence[Token],
    idx: int,
    options: Any,
    env: Any,
    style: str,
    note: str | None = None,
    views: str = VIEWS_OFF,
) -> str:
    """A citation whose sources show beside it: in a card it opens (``hovercard``: its numbers;
    ``pills``: a chip naming the first source, ``+N`` for the rest), or in a sidenote. ``note``:
    why its claim is flagged (``mark_unsupported``), said at the top."""
    meta = citation_meta(tokens[idx])
    if meta.get("in_link"):
        return _plain(self, tokens, idx, options, env, style)
    anchor = meta["anchor"]
    label = self.rules["citation_label"](tokens, idx, options, env)
    sources = _by_reference(citation_state(env).uses(tokens[idx]))  # the card in visible order
    items = _card_items(sources, env, note, views)
    classes = _group_classes([u for same in sources for u in same])
    if style == "sidenotes":
        return _titled(meta, _sidenote(anchor, classes, label, items))
    card_id = f"{anchor}-card"
    if style == "pills":
        more = f' <span class="citerender-pill-more">+{len(sources) - 1}</span>' if len(sources) > 1 else ""
        face = f"<bdi>{escape(_pill_name(sources[0][0].reference, env))}</bdi>{more}"
        trigger_cls, printed = (
            "citerender-pill",
            f'<span class="citerender-pill-print" aria-hidden="true">{label}</span>',
        )
    else:
        face, trigger_cls, printed = label, "citerender-hc-trigger", ""
    # hover and keyboard focus show the card (interestfor), a tap shows it (popovertarget), Escape
    # and a tap elsewhere hide it; the name is the visible label, the card is the description
    html = (
        f'<span class="citerender-cite citerender-{style} citerender-has-card{classes}" id="{anchor}">{JOIN}'
        f'<button type="button" class="{trigger_cls}" interestfor="{card_id}" popovertarget="{card_id}" '
        f'popovertargetaction="show" aria-describedby="{card_id}">{face}</button>{printed}'
        f'<span class="citerender-card" id="{card_id}" popover="hint">{items}</span></span>'
    )
    return _titled(meta, html)


def _sidenote(anchor: str, classes: str, label: str, items: str) -> str:
    """Sources in a note in the margin beside the citation's line, following its number (a screen
    reader reads it there); the number is a toggle, a checkbox covering it (one target of 24 px or
    more), that folds the note open under its line on narrow screens, no script. In print the note
    is hidden and the bibliography quotes the lines."""
    return (
        f'<span class="citerender-cite citerender-sidenotes{classes}" id="{anchor}">{JOIN}'
        f'<label class="citerender-sn-num"><input type="checkbox" class="citerender-sn-toggle" id="{anchor}-note">'
        f"{label}</label>"
        f'<span class="citerender-sidenote" role="note">{items}</span></span>'
    )


def _card_items(sources: list[list[RefUse]], env: Any, note: str | None, views: str = VIEWS_OFF) -> str:
    """A card's (or sidenote's) items, each made once per document, the warning first when ``note``."""
    cache: dict[tuple[Any, ...], str] = citation_state(env).cache("styles.cards", dict)
    items = ""
    for same in sources:
        key = (same[0].reference.number, *((u.source.id, u.lines, u.lines_valid) for u in same))
        item = cache.get(key)
        if item is None:
            item = cache[key] = _card_item(same, views)
        items += item
    return items if note is None else card_warning(note) + items


def _titled(meta: CitationMeta, html: str) -> str:
    """A navigation list's citation after its title; any other as it is."""
    title = meta.get("title")
    if not title:
        return html
    return (
        f'<span class="citerender-navlist"><span class="citerender-navlist-title">{escape(title)}</span> {html}</span>'
    )


def _markup(html: str) -> Callable[..., str]:
    """A render rule writing ``html`` whatever the token."""

    def rule(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        return html

    return rule


def add_render_rules(md: MarkdownIt, opts: PluginOptions) -> None:
    """Register the chosen style's rules on ``md``."""
    style = opts.options.style
    views = views_mode(opts.options)  # the cards' passage links: to the source views, when there are any

    def label(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        return citation_label(self, tokens, idx, options, env, style=style)

    md.add_render_rule("citation_label", label)

    def cite(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any, note: str | None = None) -> str:
        if style in NOTE_STYLES:
            return _noted_cite(self, tokens, idx, options, env, style, note, views)
        return _plain(self, tokens, idx, options, env, style)

    if opts.options.mark_unsupported:

        def flagged(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
            reason = unsupported_reason(citation_meta(tokens[idx]), env)
            html = cite(self, tokens, idx, options, env, reason)
            return html if reason is None else unsupported_flag(reason) + html

        md.add_render_rule("citation", flagged)
    else:
        md.add_render_rule("citation", cite)
    md.add_render_rule("citation_dropped", _markup(""))
    md.add_render_rule("citation_highlight_open", _markup('<span class="citerender-highlight">'))
    md.add_render_rule("citation_highlight_close", _markup("</span>"))
    renderer = opts.bibliography_renderer or render_bibliography
    # the built-in markup and the themes' renderer write the class themselves; another renderer's
    # HTML gets it added (a copy of the whole bibliography, which can be a megabyte)
    writes_class = "after_long" in inspect.signature(renderer).parameters

    def bibliography(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        meta = tokens[idx].meta
        long = bool(meta.get("long"))  # themes may start it on a new page in print
        st = citation_state(env)
        consulted = render_consulted([st.reference(n) for n in meta.get("consulted") or ()])
        references = [st.reference(n) for n in meta["references"]]
        if not references:
            return consulted
        if writes_class:
            return renderer(references, style, after_long=long) + consulted  # type: ignore[call-arg]
        html = renderer(references, style)
        return (mark_after_long(html) if long else html) + consulted

    md.add_render_rule("citerender_bibliography", bibliography)

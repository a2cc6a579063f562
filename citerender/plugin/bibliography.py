"""The bibliography: plain entries for templates, and the built-in markup (no Jinja2; the default
theme's ``bibliography.html.j2`` writes the same markup)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache
from html import escape as _escape
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import unquote

from markupsafe import Markup, escape

from ..sources.pages import passage_pages, range_label
from ..sources.urls import safe_url
from ..syntax.types import LineRange
from ..syntax.weight import fit_bytes
from .card_marks import shorten
from .source_links import VIEWS_OFF, has_view, place_source, range_href, view_href_of
from .state import Reference

if TYPE_CHECKING:
    from ..sources.model import Source

__all__ = [
    "AFTER_LONG",
    "CONSULTED_HEADING",
    "EN_DASH",
    "SEPARATOR",
    "Backlink",
    "Entry",
    "bibliography_entries",
    "clip",
    "lines_html",
    "mark_after_long",
    "render_bibliography",
    "render_consulted",
    "views_html",
]


@lru_cache(maxsize=4096)
def _letters(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


#: a reference, as is every non-ASCII character of citerender's own markup: one would make an ASCII page a wider string
EN_DASH = "&#8211;"
#: between the back-links of an entry, and the facts of a card
SEPARATOR = " &#183; "


def page_html(source: Source, n: int) -> str:
    """The page passage ``n`` of ``source`` is on, shown after it, when the provider said."""
    page = passage_pages(source, n, n)
    return f' <span class="citerender-lpage">{_escape(page)}</span>' if page else ""


@lru_cache(maxsize=4096)
def lines_html(text: str) -> str:
    """A locator's words (``lines 3–5``) as HTML."""
    return _escape(text).replace("\u2013", EN_DASH)


class Backlink(NamedTuple):
    """One back-link from a bibliography entry to a citing place."""

    anchor: str
    letter: str
    lines: str | None


class Entry(NamedTuple):
    """One bibliography entry as the templates see it."""

    number: int
    anchor: str
    title: str
    has_title: bool
    url: str | None
    url_text: str | None
    page: str | None  # a title-less source's page past its site (``x.ai/company``): tells two apart
    domain: str | None
    updated: str | None
    id: str
    known: bool
    merged: list[str]
    backlinks: list[Backlink]
    backlinks_html: Any  # Markup: the back-link list, built once in Python for speed
    note: str = ""  # why an entry is unverified
    placeless: str = ""  # why a listed entry has no back-link: cited without a place, or not cited
    quotes_html: Any = ""  # Markup: the cited lines, shown in print for the card styles
    pages: str | None = None  # the pages the passages came from (``Source.pages``)
    views_html: Any = ""  # Markup: a link to each cited range in its source's view, when there are views


def backlinks_html(number: int, backlinks: list[Backlink]) -> Any:
    """``↩ a: line 1 · b: lines 3–5``: one link per citing place, its locator inside it (one place:
    ``↩``), so no range is read as the next letter's; each name begins with its visible text (WCAG's
    label in name), the arrow is decoration."""
    arrow = '<span aria-hidden="true">&#8617;</span>'
    if not backlinks:
        return Markup("")
    if len(backlinks) == 1:
        b = backlinks[0]
        lines = f' <span class="citerender-ref-lines">{lines_html(b.lines)}</span>' if b.lines else ""
        name = f"{lines_html(b.lines)}: back" if b.lines else "Back"
        return Markup(
            f'<span class="citerender-backlinks"><a href="#{escape(b.anchor)}" role="doc-backlink" '
            f'aria-label="{name} to the text citing source {number}">{arrow}{lines}</a></span>'
        )
    links = []
    for b in backlinks:  # str escaping, one Markup at the end: hundreds of places per source
        if b.lines:
            e = lines_html(b.lines)
            lines, where = f': <span class="citerender-ref-lines">{e}</span>', f", {e}"
        else:
            lines = where = ""
        links.append(
            f'<a href="#{_escape(b.anchor)}" role="doc-backlink" '
            f'aria-label="{b.letter}{where}: back to citation {b.letter} of source {number}">{b.letter}{lines}</a>'
        )
    return Markup(f'<span class="citerender-backlinks">{arrow} ' + SEPARATOR.join(links) + "</span>")


#: the most ranges of one source an entry links to its view; the rest are counted, linked through the view
ENTRY_RANGES = 20


def _cited_ranges(ref: Reference) -> Iterator[tuple[int, LineRange]]:
    """``(which, lines)`` for each range the places cite from ``ref``'s sources, once per range."""
    seen: set[tuple[int, int, int]] = set()
    for place in ref.places:
        rng = place.lines
        if rng is not None:
            which = place_source(ref, place)
            if (which, rng.low, rng.high) not in seen:
                seen.add((which, rng.low, rng.high))
                yield which, rng


def views_html(ref: Reference) -> Any:
    """``in the source: lines 8–13 · line 20``: a link to each range cited from ``ref`` in its
    source's view, named by what it opens (a merged source's named first); empty without views."""
    if ref.views == VIEWS_OFF or not has_view(ref):
        return Markup("")
    sources = (ref.source, *ref.merged)
    # (an out-of-range locator has no place in a view)
    ranges = [(which, rng.low, rng.high) for which, rng in _cited_ranges(ref) if sources[which].has_lines(rng)]
    if not ranges:
        return Markup("")
    kept = sorted(ranges, key=lambda r: (r[0], r[1], -r[2]))
    several = bool(ref.merged)  # an entry standing for several sources names each before its links
    groups: dict[int, list[str]] = {}
    for which, low, high in kept[:ENTRY_RANGES]:
        groups.setdefault(which, []).append(_view_link(ref, which, LineRange(low, high), several))
    more = len(kept) - ENTRY_RANGES
    if more > 0:  # counted, and reached through the view that holds them all
        which = kept[ENTRY_RANGES][0]
        groups.setdefault(which, []).append(
            f'<a class="citerender-ref-view" href="{_escape(view_href_of(ref, ref.views, which))}">'
            f"and {more:,} more {'ranges' if more > 1 else 'range'}, in the text of source {ref.number}</a>"
        )
    if several:
        shown = "; ".join(
            f"<bdi>{_escape(sources[k].label)}</bdi>: {SEPARATOR.join(links)}" for k, links in groups.items()
        )
        return Markup(f'<span class="citerender-ref-views">in the sources: {shown}</span>')
    return Markup(f'<span class="citerender-ref-views">in the source: {SEPARATOR.join(*groups.values())}</span>')


def _view_link(ref: Reference, which: int, rng: LineRange, several: bool) -> str:
    """One entry link to a cited range in its source's view, named by what it opens (its visible
    words first: WCAG's label in name)."""
    source = (ref.source, *ref.merged)[which]
    shown = lines_html(rng.label(source.line_unit))
    of = f" of {_escape(source.label)}" if several else ""
    them = "it" if rng.low == rng.high else "them"
    return (
        f'<a class="citerender-ref-view" href="{_escape(range_href(ref, rng, ref.views, which))}" '
        f'aria-label="{shown}{of}: show {them} in the text of source {ref.number}">{shown}</a>'
    )


#: styles whose cards (a popover: ``hovercard``, ``pills``) or notes quote the cited lines (in print
#: the bibliography quotes them instead), with a citation's numbers as plain text and its claim
#: wrapped for highlighting
NOTE_STYLES = frozenset({"hovercard", "pills", "sidenotes"})
_QUOTED_LINES = 8


def cited_quotes(ref: Reference) -> list[tuple[str, str]]:
    """``(locator, text)`` for each range cited from ``ref``: at most eight lines joined (``…`` when
    cut); a merged source's range is quoted from it, its locator naming it."""
    sources = (ref.source, *ref.merged)
    out = []
    for which, rng in _cited_ranges(ref):
        source = sources[which]
        cited = source.cited_lines(rng)
        if cited:
            text = " ".join(t.strip() for _, t in cited[:_QUOTED_LINES]) + (" …" if len(cited) > _QUOTED_LINES else "")
            label = range_label(source, rng)
            out.append((f"{label} of {source.label}" if ref.merged else label, clip(text, PRINTED_QUOTE)))
    return out


#: the most characters of a source's snippet printed under its entry (the card shows it on screen)
PRINTED_SNIPPET = 320
#: the most bytes (escaped, UTF-8) of one cited range printed under its entry: a chunk, not a minified file
PRINTED_QUOTE = 4_000


def clip(text: str, limit: int) -> str:
    """``text``, or its longest start that takes ``limit`` bytes in a page, ending in ``…``."""
    head = fit_bytes(text, limit)
    return text if len(head) == len(text) else head[:-1].rstrip() + "\u2026"


def quotes_html(ref: Reference) -> Any:
    """What the card quotes, for print: the lines each place cites, or a line-less source's snippet."""
    parts = [
        f'<span class="citerender-ref-quote">{lines_html(label)}: &#8220;{escape(text)}&#8221;</span>'
        for label, text in cited_quotes(ref)
    ]
    snippet = ref.source.text
    if not parts and ref.source.lines is None and snippet and snippet.strip():
        quote = shorten(" ".join(snippet.split()), PRINTED_SNIPPET)
        parts.append(f'<span class="citerender-ref-quote">&#8220;{escape(quote)}&#8221;</span>')
    return Markup(f'<span class="citerender-ref-quotes">{"".join(parts)}</span>') if parts else Markup("")


def bibliography_entries(references: Sequence[Reference], *, quotes: bool = False) -> list[Entry]:
    """Plain data for the bibliography template (``quotes``: with the cited lines, for print)."""
    return list(_entries(references, quotes=quotes))


def _entries(references: Sequence[Reference], *, quotes: bool) -> Iterator[Entry]:
    """The entries one at a time: the built-in markup writes each and lets it go."""
    for ref in references:
        s = ref.source
        url = safe_url(s.url)
        backlinks: list[Backlink] = []
        seen: set[tuple[str, str | None]] = set()
        for place in ref.places:
            lines = range_label(s, place.lines) if place.lines else None
            if (place.anchor, lines) in seen:
                continue
            seen.add((place.anchor, lines))
            backlinks.append(Backlink(place.anchor, _letters(len(backlinks)), lines))
        yield (
            Entry(
                number=ref.number,
                anchor=ref.anchor,
                title=s.label,
                has_title=bool(s.title),
                url=url,
                url_text=s.url if s.url and url is None else None,
                page=None if s.title or url is None else _page(url, s.domain),
                domain=s.domain if url else None,
                updated=s.updated,
                id=s.id,
                known=ref.known,
                note="" if ref.known else f"unverified: {ref.unverified}",
                merged=[m.title or m.id for m in ref.merged],
                backlinks=backlinks,
                backlinks_html=backlinks_html(ref.number, backlinks),
                quotes_html=quotes_html(ref) if quotes else Markup(""),
                placeless="" if backlinks else _placeless(ref),
                pages=s.pages,
                views_html=views_html(ref),
            )
        )


def _page(url: str, domain: str | None) -> str | None:
    """A title-less source's URL past its scheme and ``www.``, shortened, when it says more than its site."""
    shown = re.sub(r"^[a-z][a-z0-9+.-]*://(www\.)?", "", url, flags=re.IGNORECASE).rstrip("/")
    readable = unquote(shown)  # XAI_(company), not XAI_%28company%29; no control or bidi character
    if all(unicodedata.category(c)[0] != "C" for c in readable):
        shown = readable
    if not shown or shown == domain:
        return None
    return shown if len(shown) <= 60 else shown[:59] + "\u2026"


def _placeless(ref: Reference) -> str:
    """Why no text cites an entry: cited without a place (``listed: cited``, CR510), or ``list_all``."""
    return "cited without a place in the text" if ref.source.meta.get("listed") == "cited" else "not cited in the text"


#: the class a bibliography after a long answer carries (a theme may start it on a new page)
AFTER_LONG = "citerender-after-long"


def mark_after_long(html: str) -> str:
    """A bibliography's markup given the :data:`AFTER_LONG` class (for markup written without it)."""
    return html.replace('class="citerender-bibliography"', f'class="citerender-bibliography {AFTER_LONG}"', 1)


def _head_html(ref: Reference, e: Entry) -> str:
    """An entry's title (linked), site, shown URL and date, for both lists: made once per source."""
    memo = ref.source.memo
    head = memo.get("bibliography.head")
    if head is not None:
        return str(head)
    title = f"<bdi>{escape(e.title)}</bdi>"  # isolated: a right-to-left title cannot reorder the line
    out = [
        f'<a class="citerender-ref-title" href="{escape(e.url)}">{title}</a>'
        if e.url
        else f'<span class="citerender-ref-title">{title}</span>'
    ]
    if e.domain and e.domain != e.title:  # a source without a title is already named by its site
        out.append(f' <span class="citerender-ref-domain">{escape(e.domain)}</span>')
    if e.page:
        out.append(f' <span class="citerender-ref-url">{escape(e.page)}</span>')
    if e.url_text and e.has_title:
        out.append(f' <span class="citerender-ref-url">{escape(e.url_text)}</span>')
    if e.pages:
        out.append(f' <span class="citerender-ref-pages">{escape(e.pages)}</span>')
    if e.updated:
        u = escape(e.updated)
        out.append(f' <span class="citerender-ref-updated">updated <time datetime="{u}">{u}</time></span>')
    head = memo["bibliography.head"] = "".join(out)
    return head


def render_bibliography(
    references: Sequence[Reference], style: str, heading: str = "Sources", *, after_long: bool = False
) -> str:
    """The bibliography section, the default theme's markup (``after_long``: after a long answer)."""
    h = escape(heading)
    section = f"citerender-bibliography {AFTER_LONG}" if after_long else "citerender-bibliography"
    html = (
        f'<section class="{section}" role="doc-endnotes" aria-label="{h}">\n'
        f'<h2 class="citerender-bibliography-heading">{h}</h2>\n<ol class="citerender-references">\n'
    )
    for ref, e in zip(references, _entries(references, quotes=style in NOTE_STYLES), strict=True):
        cls = "citerender-ref" + ("" if e.known else " citerender-unverified")
        out = [f'<li id="{escape(e.anchor)}" value="{e.number}" class="{cls}">\n', _head_html(ref, e)]
        if not e.known:
            out.append(f' <span class="citerender-ref-note">{escape(e.note)}</span>')
        if e.merged:
            out.append(
                f' <span class="citerender-ref-merged">also cited as {escape(", ").join(Markup("<bdi>%s</bdi>") % m for m in e.merged)}</span>'
            )
        if e.backlinks:
            out.append(f" {e.backlinks_html}")
        elif e.placeless:
            out.append(f' <span class="citerender-ref-note">{e.placeless}</span>')
        if e.views_html:
            out.append(f" {e.views_html}")
        if e.quotes_html:
            out.append(f"{e.quotes_html}")
        out.append("</li>\n")
        html += "".join(out)
    html += "</ol>\n</section>"  # in place: a copy here would double the largest string
    return html


#: the heading of the second list (``RenderOptions.consulted``)
CONSULTED_HEADING = "Consulted, not cited"


def render_consulted(references: Sequence[Reference], heading: str = CONSULTED_HEADING) -> str:
    """The sources consulted but never cited, after the bibliography: an unnumbered list, each
    title linked, with its site and date; empty without any. Their ids are their own
    (``consulted-1``…): a ``ref-N`` could meet a later-numbered placeless source's."""
    if not references:
        return ""
    h = escape(heading)
    out = [
        f'<section class="citerender-consulted" aria-label="{h}">\n'
        f'<h2 class="citerender-bibliography-heading">{h}</h2>\n<ul class="citerender-consulted-list">\n'
    ]
    for k, (ref, e) in enumerate(zip(references, _entries(references, quotes=False), strict=True), 1):
        anchor = escape(f"{ref.prefix}consulted-{k}")
        out.extend((f'<li id="{anchor}" class="citerender-ref">', _head_html(ref, e), "</li>\n"))
    out.append("</ul>\n</section>")
    return "".join(out)

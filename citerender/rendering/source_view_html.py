"""Source views, as HTML: a source's lines one a row, cited lines highlighted, each cited range
opened by a row that is its link target and holds its back-links to every claim citing it.

Pointing at a range (``:target``) emphasises exactly its lines with no script: each range has a
slot no range overlapping it shares; its opening row carries ``citerender-sN-start``, its lines
``citerender-sN``, its last ``citerender-sN-end``, and ``themes/_source-view.css`` has a rule per
slot. A view is written in one sweep (:class:`_Sweep`): its lines plus its ranges, never their product.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from html import escape

from ..plugin.bibliography import EN_DASH, SEPARATOR, lines_html
from ..plugin.source_links import VIEWS_PAGE, range_id, view_id
from ..sources.urls import safe_url
from ..syntax.weight import fit_bytes
from .source_view import CitedRange, Part, SourceView, line_cap

__all__ = ["VIEWS_HEADING", "view_html", "views_section"]

#: the heading of the views on an answer's page
VIEWS_HEADING = "Cited sources, in context"


def views_section(views: list[SourceView], prefix: str = "") -> str:
    """Every view on the answer's page, after the bibliography (``prefix``: the page's id prefix)."""
    if not views:
        return ""
    hid = f"{prefix}source-views"
    inner = "".join(view_html(v, VIEWS_PAGE) for v in views)
    return (
        f'\n<section class="citerender-views" aria-labelledby="{hid}">\n'
        f'<h2 class="citerender-views-heading" id="{hid}">{VIEWS_HEADING}</h2>\n{inner}</section>'
    )


def view_html(view: SourceView, mode: str, back: str = "", *, level: int = 3) -> str:
    """One source's view: a region named by its heading (``Source 1: its title``), its facts, and
    its lines. ``mode``: :data:`VIEWS_PAGE` (on the answer's page, ids ``source-1-L8-L13``) or a
    folder (a page of its own, ids ``L8-L13``); ``back``: the answer page's URL before a ``#``
    (empty on the answer's page); ``level``: the heading's level."""
    ref = view.reference
    s = view.source
    vid = view_id(ref, view.which) if mode == VIEWS_PAGE else "source"
    title = f'<span class="citerender-view-num">Source {ref.number}:</span> <bdi>{escape(s.label)}</bdi>'
    facts = [f"<code>{escape(s.id)}</code>", f"{len(view.lines):,} {s.line_unit}{'s' if len(view.lines) != 1 else ''}"]
    url = safe_url(s.url)
    if url:
        facts.append(f'<a href="{escape(url)}" rel="noopener noreferrer">{escape(s.domain or url)}</a>')
    facts.append(f'<a href="{escape(back)}#{escape(ref.anchor)}">its entry in Sources</a>')
    if not view.whole:
        facts.append(f"{view.shown:,} shown")
    digits = len(str(len(view.lines)))
    return (
        f'<section class="citerender-view" id="{vid}" aria-labelledby="{vid}-title">\n'
        f'<h{level} class="citerender-view-title" id="{vid}-title">{title}</h{level}>\n'
        f'<p class="citerender-view-meta">{SEPARATOR.join(facts)}</p>\n'
        f'<ol class="citerender-view-lines" style="--citerender-vd: {digits + 1}ch">\n'
        f"{''.join(_rows(view, mode, back))}</ol>\n</section>\n"
    )


def _rows(view: SourceView, mode: str, back: str) -> list[str]:
    """Every row of a view: its lines, the opening row of each range before its first line, a
    gap note for each part left out."""
    unit = view.source.line_unit
    starts: dict[int, list[CitedRange]] = {}
    for r in view.ranges:
        starts.setdefault(r.low, []).append(r)
    cap = line_cap(view)
    sweep = _Sweep(view.ranges)
    lines = view.lines
    rows: list[str] = []
    for part in view.parts:
        if not part.shown:
            inside = sweep.at(part.first)
            rows.append(_gap(part, unit, [r for r in inside if r.high > part.last], sweep.cited))
            continue
        for n in range(part.first, part.last + 1):
            rows.extend(_opening(view, r, mode, back) for r in starts.get(n, ()))
            rows.append(_line(n, lines[n - 1], sweep.at(n), sweep.cited, cap))
    return rows


class _Sweep:
    """The ranges covering each line, asked for in increasing order of lines: those holding a
    slot (at most one a slot), in the ranges' order, and whether any range covers it."""

    def __init__(self, ranges: tuple[CitedRange, ...]) -> None:
        self.ranges = ranges  # sorted by first line (the longest first)
        self.highs = sorted(r.high for r in ranges)
        self.started = 0  # ranges whose first line is at or before the line asked for
        self.ended = 0  # last lines before it
        self.slots: dict[int, int] = {}  # slot -> index in ``ranges`` of the range holding it last
        self.cited = False

    def at(self, n: int) -> list[CitedRange]:
        """The slotted ranges covering line ``n`` (``cited``: whether any range does)."""
        ranges = self.ranges
        while self.started < len(ranges) and ranges[self.started].low <= n:
            r = ranges[self.started]
            if r.slot >= 0:
                self.slots[r.slot] = self.started
            self.started += 1
        self.ended = bisect_left(self.highs, n, self.ended)
        self.cited = self.started > self.ended
        if not self.cited:
            return []
        held = sorted(i for i in self.slots.values() if ranges[i].high >= n)
        return [ranges[i] for i in held]


def _gap(part: Part, unit: str, inside: list[CitedRange], cited: bool) -> str:
    """A note saying how many lines a gap leaves out, and which: ``7 lines omitted (lines 1–7)``;
    ``inside``: the slotted ranges it lies inside (a long range shown by its ends), ``cited``:
    whether any range does."""
    n = part.count
    which = f"{unit} {part.first:,}" if n == 1 else f"{unit}s {part.first:,}{EN_DASH}{part.last:,}"
    cls = "citerender-vgap" + "".join(f" citerender-s{r.slot}" for r in inside)
    mark = " citerender-vl-cited" if cited else ""
    return f'<li class="{cls}{mark}">{n:,} {unit}{"" if n == 1 else "s"} omitted ({which})</li>\n'


@lru_cache(maxsize=1024)
def _member(slot: int, end: bool) -> str:
    if slot < 0:
        return ""
    return f" citerender-s{slot}" + (f" citerender-s{slot}-end" if end else "")


def _line(n: int, text: str, covering: list[CitedRange], cited: bool, cap: int | None) -> str:
    """One line: its number (hidden from screen readers, left out of a copy) and at most ``cap``
    bytes of its text, in its own direction; ``covering``: the slotted ranges it is in, ``cited``:
    whether any range covers it."""
    cls = "citerender-vl"
    for r in covering:
        cls += _member(r.slot, n == r.high)
    if cited:
        cls += " citerender-vl-cited"
    shown = text if cap is None else fit_bytes(text, cap)
    tail = ""
    if len(shown) < len(text):
        tail = f'<span class="citerender-vcut"> &#8230; {len(text) - len(shown):,} more characters</span>'
    return (
        f'<li class="{cls}" value="{n}"><span class="citerender-vno" aria-hidden="true">{n}</span>'
        f'<span class="citerender-vt" dir="auto">{escape(shown, quote=False)}{tail}</span></li>\n'
    )


def _opening(view: SourceView, r: CitedRange, mode: str, back: str) -> str:
    """The row opening a cited range: the link target (focusable, so that following a link moves
    the keyboard there), the range's lines in words, and a back-link to each claim citing it."""
    ref = view.reference
    unit = view.source.line_unit
    label = lines_html(r.lines.label(unit))
    rid = range_id(ref, r.lines, mode, view.which)
    arrow = '<span aria-hidden="true">&#8617;</span>'
    if len(r.anchors) == 1:
        links = (
            f'<a class="citerender-vback" href="{escape(back)}#{escape(r.anchors[0])}" '
            f'aria-label="Back to the claim citing {label} of source {ref.number}">{arrow} back to the claim</a>'
        )
    else:
        links = f"{arrow} cited by " + SEPARATOR.join(
            f'<a class="citerender-vback" href="{escape(back)}#{escape(a)}" '
            f'aria-label="claim {k} citing {label} of source {ref.number}">claim {k}</a>'
            for k, a in enumerate(r.anchors, 1)
        )
    start = f" citerender-s{r.slot}-start" if r.slot >= 0 else ""
    return (
        f'<li class="citerender-vrange{start}" id="{escape(rid)}" tabindex="-1">'
        f'<span class="citerender-vrange-label">{label[0].upper()}{label[1:]}</span> {links}</li>\n'
    )

"""Where a cited source's view is, and which sources have one: the names and links the cards
(``#source-1-L8-L13``, ``sources/a/turn0file0.html#L8-L13``) and the source views
(:mod:`citerender.rendering.source_view`) share.

A view shows the numbered lines of a cited, known source; sources merged into one reference each
get their own (``source-1``, ``source-1-2`` …).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..lazy_re import lazy_compile
from ..options import RenderOptions
from ..syntax.types import LineRange, line_locator
from .state import CitingPlace, Reference, RefUse

if TYPE_CHECKING:
    from ..sources.model import Source

__all__ = [
    "VIEWS_OFF",
    "VIEWS_PAGE",
    "has_view",
    "place_source",
    "range_href",
    "range_id",
    "view_file",
    "view_href",
    "view_href_of",
    "view_id",
    "view_sources",
    "views_mode",
]

#: no views: cards link to the source's URL only
VIEWS_OFF = "off"
#: views on the same page, after the bibliography (``render --standalone``)
VIEWS_PAGE = "page"

_SAFE_NAME = lazy_compile(r"[a-z0-9][a-z0-9_-]{0,79}")
#: names Windows refuses for a file, whatever its extension
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})


def views_mode(options: RenderOptions) -> str:
    """What ``options.source_views`` means for this render: :data:`VIEWS_OFF`, :data:`VIEWS_PAGE`,
    or the folder (a relative URL ending in ``/``); ``auto``: views on a standalone page only."""
    mode = options.source_views
    if mode == "auto":
        return VIEWS_PAGE if options.standalone else VIEWS_OFF
    return mode


def place_source(ref: Reference, place: CitingPlace) -> int:
    """Which of ``ref``'s sources ``place`` cites: 0 for its own (or none named, or one it lacks),
    ``k`` for ``ref.merged[k - 1]``."""
    if not ref.merged or not place.source or place.source == ref.source.id:
        return 0
    return _which(ref, place.source, 0)


def _which(ref: Reference, sid: str, missing: int) -> int:
    """The index of ``ref``'s source ``sid`` (0: its own), or ``missing``."""
    if sid == ref.source.id:
        return 0
    return next((k for k, s in enumerate(ref.merged, 1) if s.id == sid), missing)


def _source(ref: Reference, which: int) -> Source:
    return ref.source if which == 0 else ref.merged[which - 1]


def view_sources(ref: Reference) -> list[tuple[int, Source]]:
    """``(which, source)`` for each of ``ref``'s sources that gets a view: cited, with lines."""
    if not ref.places or not ref.known:
        return []
    if not ref.merged:
        return [(0, ref.source)] if ref.source.lines is not None else []
    cited = {place_source(ref, p) for p in ref.places}
    return [(k, s) for k, s in enumerate((ref.source, *ref.merged)) if k in cited and s.lines is not None]


def has_view(ref: Reference) -> bool:
    """Does ``ref`` get a source view (cited, known, one cited source with numbered lines)?"""
    if not ref.merged:  # the common case, without a look at the places
        return bool(ref.places) and ref.known and ref.source.lines is not None
    return bool(view_sources(ref))


def view_id(ref: Reference, which: int = 0) -> str:
    """The HTML id of the view of ``ref``'s source ``which`` (``source-1``; ``source-1-2``)."""
    return f"{ref.prefix}source-{ref.number}" + (f"-{which + 1}" if which else "")


def range_id(ref: Reference, lines: LineRange, mode: str, which: int = 0) -> str:
    """The HTML id of a cited range in a view: ``source-1-L8-L13`` in-page, ``L8-L13`` in a folder's page."""
    loc = line_locator(lines.low, lines.high)
    return f"{view_id(ref, which)}-{loc}" if mode == VIEWS_PAGE else loc


def view_file(ref: Reference, which: int = 0) -> str:
    """The file name of ``ref``'s source ``which``'s page in the views folder: its id when a safe
    name (no dot), else its number and what is safe of the id (``3.doc-1.html``, ``3-2.doc-2.html``).
    Names never meet: a safe id holds no dot and numbers are unique, so neither case nor a file
    system that ignores it makes two sources one file."""
    sid = _source(ref, which).id
    if _SAFE_NAME.fullmatch(sid) and sid not in _RESERVED:
        return f"{sid}.html"
    slug = re.sub(r"[^a-z0-9]+", "-", sid.lower()).strip("-")[:40].rstrip("-")
    number = f"{ref.number}-{which + 1}" if which else str(ref.number)
    return f"{number}.{slug or 'source'}.html"


def view_href_of(ref: Reference, mode: str, which: int = 0) -> str:
    """The link to the view of ``ref``'s source ``which``: in-page, or its page in the folder ``mode``."""
    return f"#{view_id(ref, which)}" if mode == VIEWS_PAGE else f"{mode}{view_file(ref, which)}"


def range_href(ref: Reference, lines: LineRange, mode: str, which: int = 0) -> str:
    """The link to a cited range in the view of ``ref``'s source ``which`` (as :func:`view_href_of`)."""
    if mode == VIEWS_PAGE:
        return f"#{range_id(ref, lines, mode, which)}"
    return f"{mode}{view_file(ref, which)}#{range_id(ref, lines, mode, which)}"


def view_href(use: RefUse, mode: str) -> str | None:
    """Where the card's passage link for ``use`` goes: its range in the view of the source it
    cites, or None (no views, no valid locator, or a source without a view; never clamped)."""
    lines = use.lines
    ref = use.reference
    if mode == VIEWS_OFF or lines is None or not use.lines_valid or not ref.known or not ref.places:
        return None
    which = _which(ref, use.source.id, -1)
    if which < 0 or not _source(ref, which).has_lines(lines):
        return None  # (has_lines: the source has lines, and every one of these)
    return range_href(ref, lines, mode, which)

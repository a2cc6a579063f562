"""Where a cited source's view is, and which sources have one: the names and links the card's
passage link (``#source-1-L8-L13``, ``sources/a/turn0file0.html#L8-L13``) and the source views
(:mod:`citerender.rendering.source_view`) share, so that every link finds its range.

A view shows a source's numbered lines: only a source the answer cites (a reference with a place
in the text), known to the registry, with lines, and standing alone (sources merged into one
reference by a shared URL have places that do not say which of them they cite: they get none).
"""

from __future__ import annotations

import re

from ..lazy_re import lazy_compile
from ..options import RenderOptions
from ..syntax.types import LineRange, line_locator
from .state import Reference, RefUse

__all__ = [
    "VIEWS_OFF",
    "VIEWS_PAGE",
    "has_view",
    "range_id",
    "view_file",
    "view_href",
    "view_id",
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
    or the folder (a relative URL ending in ``/``) holding one page per source. ``auto``: views on
    a standalone page, none in a fragment (whose page may hold no view)."""
    mode = options.source_views
    if mode == "auto":
        return VIEWS_PAGE if options.standalone else VIEWS_OFF
    return mode


def has_view(ref: Reference) -> bool:
    """Does ``ref`` get a source view? Cited in the text, known, with numbered lines, alone."""
    return bool(ref.places) and ref.known and not ref.merged and ref.source.lines is not None


def view_id(ref: Reference) -> str:
    """The HTML id of ``ref``'s view on a page holding the views (``source-1``)."""
    return f"{ref.prefix}source-{ref.number}"


def range_id(ref: Reference, lines: LineRange, mode: str) -> str:
    """The HTML id of a cited range in ``ref``'s view: ``source-1-L8-L13`` on the answer's page,
    ``L8-L13`` on a page of its own (``mode``: a folder)."""
    loc = line_locator(lines.low, lines.high)
    return f"{view_id(ref)}-{loc}" if mode == VIEWS_PAGE else loc


def view_file(ref: Reference) -> str:
    """The file name of ``ref``'s page in its answer's views folder: the source id when it is a
    safe name (lower case letters, digits, ``-``, ``_``), else its number and what is safe of the
    id (``3.doc-1.html``). Names never meet: a safe id holds no dot, and numbers are unique, so
    neither case nor a file system that ignores it can make two sources one file."""
    sid = ref.source.id
    if _SAFE_NAME.fullmatch(sid) and sid not in _RESERVED:
        return f"{sid}.html"
    slug = re.sub(r"[^a-z0-9]+", "-", sid.lower()).strip("-")[:40].rstrip("-")
    return f"{ref.number}.{slug or 'source'}.html"


def view_href(use: RefUse, mode: str) -> str | None:
    """Where the card's passage link for ``use`` goes: its range in the source's view, or None
    (no views, no valid locator, or a source without a view). An out-of-range locator is never
    clamped: it has no range, so no link."""
    lines = use.lines
    ref = use.reference
    if mode == VIEWS_OFF or lines is None or not use.lines_valid or not has_view(ref):
        return None
    if use.source.id != ref.source.id or not ref.source.has_lines(lines):
        return None
    if mode == VIEWS_PAGE:
        return f"#{range_id(ref, lines, mode)}"
    return f"{mode}{view_file(ref)}#{range_id(ref, lines, mode)}"

"""Small things a reader must see on a citation or in its card: a pill's name that tells apart two
sources of one site, a date never broken over two lines, lines a source does not have. All of it
comes from the registry, never from what the document cites later (a stream equals ``render()``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape

from ..sources.model import Source
from .state import RefUse

__all__ = ["BAD_MARK", "PILL_CHARS", "bad_lines", "bad_lines_note", "nobr_dates", "pill_names", "shorten"]

PILL_CHARS = 24  # a pill names its source in at most this many characters
#: what follows the number of a citation whose lines are not in its source (its name says why)
BAD_MARK = '<span class="citerender-badlines-mark" aria-hidden="true">?</span>'
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def shorten(text: str, most: int = PILL_CHARS) -> str:
    return text if len(text) <= most else text[: most - 1].rstrip() + "\u2026"


def nobr_dates(html: str) -> str:
    """``html`` (escaped text) with every YYYY-MM-DD date kept on one line."""
    return _DATE.sub(r'<span class="citerender-nobr">\g<0></span>', html)


def bad_lines(use: RefUse) -> bool:
    """Does this use name lines its (known) source does not have (``L40`` of a four-line file)?"""
    return use.lines is not None and not use.lines_valid and use.reference.known


def bad_lines_note(use: RefUse) -> str:
    """The card's line saying so: which lines were named, and how many the source has."""
    assert use.lines is not None
    unit = use.source.line_unit
    count = use.source.line_count
    has = f"it has {count} {unit}{'' if count == 1 else 's'}" if count is not None else f"it has no numbered {unit}s"
    return (
        f'<span class="citerender-card-badlines">{escape(use.lines.label(unit))} named, not in this source '
        f"({has})</span>"
    )


def pill_names(sources: Iterable[Source]) -> dict[str, str]:
    """Each source's pill name, by id: its domain, shortened; for sources sharing a domain, their
    titles (then with their ends, then numbered) until they read differently."""
    by_domain: dict[str, list[Source]] = {}
    for s in sources:
        if s.domain:
            by_domain.setdefault(s.domain, []).append(s)
    names: dict[str, str] = {}
    for group in by_domain.values():
        if len({s.id for s in group}) < 2:
            continue
        titles = [(s.title or s.url or s.id).strip() for s in group]
        shown = [shorten(t) for t in titles]
        if len(set(shown)) < len(shown):
            half = PILL_CHARS // 2
            shown = [
                t if len(t) <= PILL_CHARS else f"{t[: half - 1].rstrip()}\u2026{t[-half:].lstrip()}" for t in titles
            ]
        if len(set(shown)) < len(shown):
            shown = [f"{shorten(t, PILL_CHARS - 4)} ({k})" for k, t in enumerate(titles, 1)]
        names.update({s.id: name for s, name in zip(group, shown, strict=True)})
    return names

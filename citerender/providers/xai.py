"""xAI's inline citations (documentation of 2026-06): ``[[1]](url)`` links in the answer. Where no
``url_citation`` names a link (xAI's chat API, a response without positions) the link is cited
here, in place, so a page is cited once, where the model cited it; a link in code stays code."""

from __future__ import annotations

import re
from collections.abc import Callable

from .offsets import Spans
from .zones import Zones

__all__ = ["XAI_LINK", "cite_in_place", "inline_links"]

_STOPS = ".,;:!?\u3002\uff0c\uff1b\uff1a\uff01\uff1f"  # what ends a clause: a citation follows it

#: ``[[1]](https://…)``: xAI's inline citation (a double-bracketed number linking a web page)
XAI_LINK = re.compile(r"[ \t]*\[\[\d{1,4}\]\]\(\s*<?(https?://[^()\s<>]+)>?\s*\)", re.IGNORECASE)


def cite_in_place(text: str, start: int, end: int, marker: str) -> list[tuple[int, int, str]]:
    """Edits replacing the citation number ``text[start:end]`` (``[[1]](url)``) by ``marker``, after
    the punctuation that follows it (``2023 [[1]](url).`` reads ``2023.[1]``)."""
    after = end
    while after < len(text) and text[after] in _STOPS:
        after += 1
    return [(start, end, marker)] if after == end else [(start, end, ""), (after, after, marker)]


def inline_links(
    text: str, edits: list[tuple[int, int, str]], cite: Callable[[str], str]
) -> list[tuple[int, int, str]]:
    """Edits citing each ``[[1]](url)`` link none of ``edits`` touches in place, by ``cite(url)``."""
    if "]](" not in text:
        return []
    zones: Zones | None = None
    out: list[tuple[int, int, str]] = []
    placed = Spans([(s, e) for s, e, _ in edits])
    for m in XAI_LINK.finditer(text):
        start, end = m.span()
        if placed.overlaps(start, end):
            continue  # an annotation placed this link's citation already
        zones = zones or Zones(text)
        first = start + len(m.group(0)) - len(m.group(0).lstrip(" \t"))
        if zones.zone_at(first) is not None:
            continue  # in code (or another link): left as written
        out.extend(cite_in_place(text, start, end, cite(m.group(1))))
    return out

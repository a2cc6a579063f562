"""Stretches of comrak's HTML the splice pass need not read tag by tag (``engine="fast"``).

Right after a closing ``</p>``, ``</li>``, ``</hN>``, ``</td>`` or ``</th>``, and after a code
block outside any list item, the pass is at rest: no code, emphasis, link, block or pending
citation is open (comrak's HTML is well formed when raw HTML is escaped). From such a point up to the last one before the next placeholder, nothing a
citation check reads can happen, so the stretch is copied whole — unless it holds what the pass
rewrites (an image shown as text) or a source id written outside a marker (CR307), which are read
tag by tag as before. On a sparse answer that is most of the page.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ..plugin.placement import verbatim_offsets
from ..sources.model import Registry

__all__ = ["Quiet"]

_POINTS = re.compile(r"</(?:p|li|h[1-6]|td|th|pre)>|<li[\s>]")


class Quiet:
    """The points at rest of one page of HTML, and what stops a copy (found once for the page)."""

    __slots__ = ("_at", "_holds", "_markup", "ids_possible")

    def __init__(self, markup: str, registry: Registry | None, *, images_as_text: bool) -> None:
        self._markup = markup
        self._at = _points_at_rest(markup)
        holds = verbatim_offsets(markup, registry)
        #: any source id written as a word on the page (a superset: tags and attributes too)
        self.ids_possible = bool(holds)
        if images_as_text:
            holds.extend(_found(markup, "<img"))
        self._holds = sorted(holds)

    def reach(self, pos: int) -> int:
        """The furthest point at rest that ``markup[pos:]`` can be copied to whole (``pos`` if none)."""
        nxt = self._markup.find("\ue0f0", pos)
        limit = len(self._markup) if nxt == -1 else nxt
        i = bisect_left(self._holds, pos)
        if i < len(self._holds) and self._holds[i] < limit:
            limit = self._holds[i]
        i = bisect_right(self._at, limit) - 1
        return self._at[i] if i >= 0 and self._at[i] > pos else pos


def _points_at_rest(markup: str) -> list[int]:
    """After each closing paragraph, item, heading or cell, and each code block outside any list
    item (inside one, the item's text may go on), in order: one pass, counting open items."""
    at: list[int] = []
    depth = 0
    for m in _POINTS.finditer(markup):
        tag = m.group()
        if tag == "</pre>":
            if not depth:
                at.append(m.end())
        elif tag[1] == "l":  # ``<li`` opens an item
            depth += 1
        else:
            depth -= tag == "</li>"
            at.append(m.end())
    return at


def _found(markup: str, what: str) -> list[int]:
    out = []
    at = markup.find(what)
    while at != -1:
        out.append(at)
        at = markup.find(what, at + 1)
    return out

"""Source views, as data: for each cited source whose lines the registry holds, the ranges its
citing places name (each with every place citing it) and the parts of its text a view shows,
read from the references as the plugin decided them, never from the answer. A locator outside
the source (CR102) gets no range: nothing is clamped to the last line. A long source shows each
range with context and counts its gaps (:func:`parts_of`); sizes are bytes of the escaped text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..plugin.source_links import place_source, view_sources
from ..plugin.state import Reference
from ..sources.model import Source
from ..syntax.types import LineRange
from ..syntax.weight import text_bytes

__all__ = [
    "MAX_SHOWN",
    "PAGE_WHOLE_LINES",
    "SHOWN_BYTES",
    "SLOTS",
    "WHOLE_BYTES",
    "WHOLE_LINES",
    "CitedRange",
    "Part",
    "SourceView",
    "line_cap",
    "parts_of",
    "source_views",
]

#: a source this short (in lines, and in bytes of its text as the page holds it) is shown whole
WHOLE_LINES = 300
WHOLE_BYTES = 100_000
#: the most lines a bounded view shows (each range keeps at least its first and last line)
MAX_SHOWN = 300
#: the most lines the views of one page show whole, together: past them a source, however short,
#: shows its ranges with context (an answer citing a hundred 200-line chunks is not a 20,000-line page)
PAGE_WHOLE_LINES = 2_000
#: the bytes of text (UTF-8, escaped) the bounded views of a page show at most, shared by their
#: lines: a page citing a source of thousands of long lines stays under 250 KB
SHOWN_BYTES = 64_000
#: the bytes of text a line of a bounded view shows, at least and at most
LINE_BYTES = (160, 4_000)
#: ranges of one source that may overlap at a line and each be emphasised alone when pointed at
#: (the stylesheet has a rule per slot); a range past them is highlighted, not emphasised
SLOTS = 8
#: (lines of context either side, lines kept at each end of a long range), tried in turn until a
#: bounded view shows at most :data:`MAX_SHOWN` lines
_TIGHTER = ((3, 40), (2, 12), (1, 4), (1, 1))
#: the lines a bounded view of a source cited without a locator shows from its start
_OPENING = 20


@dataclass(frozen=True, slots=True)
class CitedRange:
    """A range of lines some places cite: its bounds, the anchors of the places citing it (in the
    order they cite), and its slot (see :data:`SLOTS`; -1 past them)."""

    low: int
    high: int
    anchors: tuple[str, ...]
    slot: int

    @property
    def lines(self) -> LineRange:
        return LineRange(self.low, self.high)


@dataclass(frozen=True, slots=True)
class Part:
    """Lines ``first``–``last`` of a source: shown, or left out (a gap the view counts)."""

    first: int
    last: int
    shown: bool

    @property
    def count(self) -> int:
        return self.last - self.first + 1


@dataclass(frozen=True, slots=True)
class SourceView:
    """One cited source's view: its reference, the ranges cited, the parts shown, and which of
    the reference's sources it shows (0: its own; ``k``: ``reference.merged[k - 1]``)."""

    reference: Reference
    ranges: tuple[CitedRange, ...]
    parts: tuple[Part, ...]
    source: Source
    which: int = 0
    #: the bytes of text this view's lines show when bounded (its share of :data:`SHOWN_BYTES`)
    share: int = SHOWN_BYTES
    #: the source's text is too heavy to show whole (past :data:`WHOLE_BYTES`, or the page's share
    #: spent): bounded, its lines cut to their share, even where the ranges cover every line
    heavy: bool = False

    @property
    def lines(self) -> tuple[str, ...]:
        lines = self.source.lines
        assert lines is not None  # view_sources
        return lines

    @property
    def whole(self) -> bool:
        return not self.heavy and len(self.parts) == 1 and self.parts[0].shown

    @property
    def shown(self) -> int:
        """How many of the source's lines the view shows."""
        return sum(p.count for p in self.parts if p.shown)


def source_views(references: Iterable[Reference]) -> list[SourceView]:
    """The view of every cited source that has one, in the bibliography's order; the bounded ones
    share :data:`SHOWN_BYTES` (two long sources on a page show the text one would alone)."""
    out = []
    whole = 0  # the lines shown whole so far
    for ref in references:
        for which, source in view_sources(ref):
            ranges = cited_ranges(ref, which)
            lines = source.lines
            assert lines is not None
            size = _size(lines) if len(lines) <= WHOLE_LINES else WHOLE_BYTES + 1
            if whole + len(lines) > PAGE_WHOLE_LINES:
                size = WHOLE_BYTES + 1  # the page's share is spent: bounded
            parts = tuple(parts_of(len(lines), ranges, size))
            view = SourceView(ref, ranges, parts, source, which, heavy=size > WHOLE_BYTES)
            whole += len(lines) if view.whole else 0
            out.append(view)
    bounded = sum(not v.whole for v in out)
    return [v if v.whole else replace(v, share=SHOWN_BYTES // bounded) for v in out]


def _size(lines: Sequence[str]) -> int:
    """The bytes of ``lines`` in a page (:func:`text_bytes`), counted up to just past
    :data:`WHOLE_BYTES` (a line longer than what is left is not escaped to learn it is too long)."""
    total = 0
    for line in lines:
        if len(line) > WHOLE_BYTES - total:  # a character takes a byte at least
            return WHOLE_BYTES + 1
        total += text_bytes(line)
    return total


def cited_ranges(ref: Reference, which: int = 0) -> tuple[CitedRange, ...]:
    """The distinct ranges ``ref``'s places cite of its source ``which`` that the source has,
    each with every place citing it (once), sorted by first line (the longest first), each given
    a slot no range overlapping it has."""
    source = ref.source if which == 0 else ref.merged[which - 1]
    anchors: dict[tuple[int, int], dict[str, None]] = {}  # (a dict: ordered, one look-up a place)
    for place in ref.places:
        rng = place.lines
        if rng is None or not source.has_lines(rng) or (ref.merged and place_source(ref, place) != which):
            continue  # no locator, or one outside the source (CR102): nothing to point at, never clamped
        anchors.setdefault((rng.low, rng.high), {})[place.anchor] = None
    ends: list[int] = []  # per slot, the last line of the range that holds it last
    out = []
    for low, high in sorted(anchors, key=lambda r: (r[0], -r[1])):
        slot = next((s for s, end in enumerate(ends) if end < low), len(ends))
        if slot == len(ends) and slot < SLOTS:
            ends.append(high)
        elif slot < len(ends):
            ends[slot] = high
        out.append(CitedRange(low, high, tuple(anchors[low, high]), slot if slot < SLOTS else -1))
    return tuple(out)


def parts_of(count: int, ranges: Sequence[CitedRange], size: int = 0) -> list[Part]:
    """The parts of a source of ``count`` lines (``size``: bytes of text) a view shows and leaves
    out, covering lines 1 to ``count`` once: all of it when short; else each range with as much
    context as keeps the view within :data:`MAX_SHOWN` lines (a long range by its two ends)."""
    if count <= 0:
        return []
    if count <= WHOLE_LINES and size <= WHOLE_BYTES:
        return [Part(1, count, True)]
    spans: list[tuple[int, int]] = []
    for context, keep in _TIGHTER:
        spans = _merged(_spans(count, ranges, context, keep))
        if sum(b - a + 1 for a, b in spans) <= MAX_SHOWN:
            break
    parts: list[Part] = []
    at = 1
    for a, b in spans:
        if a > at:
            parts.append(Part(at, a - 1, False))
        parts.append(Part(a, b, True))
        at = b + 1
    if at <= count:
        parts.append(Part(at, count, False))
    return parts


def _spans(count: int, ranges: Sequence[CitedRange], context: int, keep: int) -> list[tuple[int, int]]:
    """The line spans to show: each range with ``context`` lines either side, a range longer than
    ``2 × keep`` lines by ``keep`` lines at each end; the source's opening without ranges."""
    if not ranges:
        return [(1, min(count, _OPENING))]
    out = []
    for r in ranges:
        if r.high - r.low + 1 <= 2 * keep:
            out.append((max(1, r.low - context), min(count, r.high + context)))
        else:
            out.append((max(1, r.low - context), r.low + keep - 1))
            out.append((r.high - keep + 1, min(count, r.high + context)))
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans sorted and joined where they overlap, touch, or leave one line between them (a note
    saying "1 line omitted" takes the room of that line)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 2:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def line_cap(view: SourceView) -> int | None:
    """The most bytes of text (see :func:`text_bytes`) a line of ``view`` shows (None: every line
    whole, in a whole view)."""
    if view.whole:
        return None
    low, high = LINE_BYTES
    return max(low, min(high, view.share // max(1, view.shown)))

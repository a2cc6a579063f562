"""One parse of an answer shared by every export: same numbering, grouping, unknown-id policy and
diagnostics as ``render``. Markdown and JSON rewrite the answer's own text, so everything that
is not a marker stays as the model wrote it."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import accumulate
from typing import Any

from markdown_it.token import Token

from ...options import RenderOptions
from ...plugin.state import Reference
from ...sources.model import Registry
from ...sources.pages import range_label
from ...syntax.format import RESERVED_CHARS, RESERVED_RE
from ...syntax.marks import ZWSP, tidy_seam
from ...syntax.residue import RESIDUE, has_residue, remove_residue
from ..pipeline import Parsed, pipeline

__all__ = ["Parsed", "date_parts", "finish", "lines_label", "parse_answer", "rewrite"]


def parse_answer(
    text: str, registry: Registry | None = None, options: RenderOptions | None = None, **kwargs: Any
) -> Parsed:
    """Parse ``text`` and record where every mark sits in it (``options`` or keyword arguments
    as for :func:`citerender.render`; the style and theme do not change a parse). Under
    ``unknown="error"`` unknown ids are kept, as ``keep`` does: an export is written whole and
    its caller decides from ``state.unknown_ids`` (the command line exits 1)."""
    asked = RenderOptions.build(options, **kwargs)
    unknown = "keep" if asked.unknown == "error" else asked.unknown
    parsing = replace(asked, style="footnotes", bibliography=False, html=False, unknown=unknown)
    parsed = pipeline(parsing).parse(text, registry, spans=True)
    parsed.allow_html = asked.html
    return parsed


def finish(p: Parsed, body: str, notes: str = "") -> str:
    """``body`` (the answer, already clean: its code keeps the author's visible text) and
    ``notes`` (from source metadata: titles, URLs, lines) with no marker character in any form
    in the notes and no reserved character anywhere."""
    clean_notes = remove_residue(notes)
    clean_body = RESERVED_RE.sub("", body)
    if clean_notes != notes or clean_body != body:
        p.state.report("CR109", "marker characters in source metadata removed from the output", None)
    return clean_body + clean_notes


def _clean(src: str, start: int, end: int, code: Sequence[tuple[int, int]], ends: Sequence[int]) -> str:
    """``src[start:end]`` with residue removed outside code and reserved characters inside it
    (``code``: sorted, disjoint ranges; ``ends``: their ends, to start at the first that matters)."""
    chunk = src[start:end]
    if not has_residue(chunk):
        return chunk
    out: list[str] = []
    pos = start
    for a, b in code[bisect_right(ends, start) :]:
        if a >= end:
            break
        out.append(_prose_cleaned(src, pos, a) if a > pos else "")
        out.append(_code_cleaned(src, max(a, pos), min(b, end)))
        pos = min(b, end)
    out.append(_prose_cleaned(src, pos, end))
    return "".join(out)


def _inside(at: int, code: Sequence[tuple[int, int]], ends: Sequence[int]) -> bool:
    """Is offset ``at`` inside one of the sorted, disjoint ``code`` ranges?"""
    k = bisect_right(ends, at)
    return k < len(code) and code[k][0] <= at


def _prose_cleaned(src: str, a: int, b: int) -> str:
    """``src[a:b]`` without residue; residue between two backticks becomes a zero-width space, so
    the backticks stay two runs (a code span's end stays where it was)."""
    text = src[a:b]
    if not has_residue(text):
        return text

    def removed(m: re.Match[str]) -> str:
        return ZWSP if _between_backticks(src, a + m.start(), a + m.end()) else ""

    return RESIDUE.sub(removed, text)


#: what opens a block at a line's start (a fence, a heading, a list item, a quote, a break, HTML, a
#: table row), or nothing (a blank line). A removal that leaves one there would end the paragraph
#: (and a code span running over lines with it); a zero-width space in its place keeps the line what
#: it was (found by the deep fuzz run)
_BLOCK_START = re.compile(
    r"[ \t]*(?:[`~]{3}|#{1,6}(?:[ \t]|$)|>|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[-_*=]{3}|<|\||$)", re.M
)
_OPENER = re.compile(f"(?:(?<=\n)|^)([ \t]*)[{RESERVED_CHARS}]+(?={_BLOCK_START.pattern})", re.M)


def _between_backticks(src: str, a: int, b: int) -> bool:
    """Is ``src[a:b]`` between two backticks once everything removable beside it (marker
    characters, residue in any form) is gone? Removing it would join two backtick runs into one,
    moving where a code span ends. One check for both removals (marks and residue)."""
    i, j = a, b
    while i > 0:
        if src[i - 1] in RESERVED_CHARS:
            i -= 1
        elif (k := next((n for n in (9, 6) if i >= n and RESIDUE.fullmatch(src, i - n, i)), 0)) != 0:
            i -= k  # percent-encoded (9) or escaped (6) residue
        else:
            break
    while j < len(src) and (m := RESIDUE.match(src, j)) is not None:
        j = m.end()
    return i > 0 and j < len(src) and src[i - 1] == "`" and src[j] == "`"


def _keeps_line(src: str, a: int, b: int) -> bool:
    """Would removing ``src[a:b]`` leave a block opener at the start of its line, or join two
    backtick runs into one (which changes where code spans end)? Only the blanks before ``a`` are
    read (never the whole line: a run of markers on one line stays linear)."""
    if _between_backticks(src, a, b):
        return True
    i = a
    while i > 0 and src[i - 1] in " \t":
        i -= 1
    return (i == 0 or src[i - 1] == "\n") and _BLOCK_START.match(src, b) is not None


class _Pieces:
    """The pieces of a rewritten text, and a stack of the ones that are not empty: the seam of a
    removal is tidied against the last of them without walking back over the empty pieces a run
    of adjacent removals leaves (which made a run of n markers cost n² steps)."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.filled: list[int] = []

    def add(self, piece: str, *, seam: bool = False) -> None:
        """Add ``piece``; after a removal (``seam``), tidied against the last non-empty piece
        (changed in place), as :func:`citerender.syntax.marks.tidy_into` does."""
        if seam:
            while self.filled and not self.out[self.filled[-1]]:
                self.filled.pop()
            last = self.filled[-1] if self.filled else None
            left, piece = tidy_seam(self.out[last] if last is not None else "", piece)
            if last is not None:
                self.out[last] = left
        if piece:
            self.filled.append(len(self.out))
        self.out.append(piece)


def _code_cleaned(src: str, a: int, b: int) -> str:
    """Code with its reserved characters removed; those opening a line whose rest would open a
    block become a zero-width space instead, so the line stays code."""
    text = src[a:b]
    lead = "" if a == 0 or src[a - 1] == "\n" else "x"  # a stand-in: ``^`` is not a line's start here
    return RESERVED_RE.sub("", _OPENER.sub(lambda m: m.group(1) + ZWSP, lead + text))[len(lead) :]


def rewrite(
    p: Parsed,
    replace: Callable[[Token], str],
    *,
    tight: bool = False,
    positions: dict[int, int] | None = None,
) -> str:
    """The answer's text with every mark replaced: groups by ``replace(group)``, other marks by
    what they mean; a removal leaves no stray space (:func:`citerender.syntax.marks.tidy_seam`).
    ``positions`` maps ``id(group)`` to the group's offset in the result."""
    edits = _edits(p, replace)
    src = p.state.original
    code = sorted(p.state.code)
    ends = [b for _, b in code]
    pieces = _Pieces()
    at: list[tuple[int, int]] = []  # (id(group), index in out where its replacement goes)
    seam = False
    pos = 0
    for a, b, text, group in edits:
        if a < pos:
            continue
        chunk = _clean(src, pos, a, code, ends)
        if tight and group is not None:
            chunk = chunk.rstrip(" \t")
        pieces.add(chunk, seam=seam)
        if group is not None:
            at.append((id(group), len(pieces.out)))
        if not text and _keeps_line(src, a, b):
            text = ZWSP
        pieces.add(text)
        seam = not text and not _inside(a, code, ends)  # code keeps its spaces as written
        pos = b
    pieces.add(_clean(src, pos, len(src), code, ends), seam=seam)
    if positions is not None:
        starts = list(accumulate(map(len, pieces.out), initial=0))
        positions.update((gid, starts[k]) for gid, k in at)
    return "".join(pieces.out)


def _edits(p: Parsed, replace: Callable[[Token], str]) -> list[tuple[int, int, str, Token | None]]:
    """What replaces each mark's span, in order of the text: a group's first span takes
    ``replace(group)`` (and names the group, whose place the result records), its other spans
    nothing; any other mark what the parse recorded for it."""
    edits: list[tuple[int, int, str, Token | None]] = [(a, b, t, None) for a, b, t in p.state.spans or []]
    for g in p.groups:
        for i, (a, b) in enumerate(g.meta["spans"]):
            edits.append((a, b, replace(g) if i == 0 else "", g if i == 0 else None))
    edits.sort(key=lambda e: (e[0], e[1]))
    return edits


def lines_label(ref: Reference) -> str | None:
    labels = list(dict.fromkeys(range_label(ref.source, p.lines) for p in ref.places if p.lines is not None))
    return "; ".join(labels) if labels else None


_DATE = re.compile(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")


def date_parts(value: str | None) -> list[str]:
    """The year, month and day a date (``2024-05-01``, ``2024-05``) starts with; none without a year."""
    m = _DATE.match(value or "")
    return [x for x in m.groups() if x] if m else []

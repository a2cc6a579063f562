"""Where marks sit in the source: offsets and spans for diagnostics and exports."""

from __future__ import annotations

from array import array
from bisect import bisect_left

from markdown_it.token import Token

from ..lazy_re import lazy_compile
from ..syntax.lines import line_starts
from .state import CitationState

__all__ = ["Locator", "Place", "image_end", "locator", "place", "where"]

#: where a block starts: its first source line, and whether it is a fence (its content starts a line later)
Place = tuple[int, bool]


def place(block: Token) -> Place:
    """A block's :data:`Place`: plain data, kept in token meta instead of the block itself."""
    return (block.map[0] if block.map else 0), block.type == "fence"


def locator(st: CitationState, src: str) -> Locator:
    """The parse's locator (made on first use; a new parse gets a new one)."""
    return st.cache("locate", lambda: Locator(st, src), per_parse=True)


_NEWLINE = lazy_compile("\n")


class Locator:
    """Finds where a mark sits in the source, for diagnostics."""

    def __init__(self, st: CitationState, src: str) -> None:
        self.offsets = st.offsets  # the parse's (not the state: the state's cache holds this locator)
        self.src = src
        self._starts: array[int] | None = None  # built on the first report: most answers need none
        self._prefix: dict[tuple[str, int, int, bool], int] = {}
        self._newlines: dict[str, list[int]] = {}

    def offset(self, at: Token | Place, content: str, pos: int | None, raw: str, *, header: bool = False) -> int:
        """Offset in ``st.original`` of ``raw`` at ``pos`` of a block's content (see :meth:`span`)."""
        return self.span(at, content, pos, raw, header=header)[0]

    @property
    def starts(self) -> array[int]:
        if self._starts is None:
            self._starts = line_starts(self.src)
        return self._starts

    def _breaks(self, content: str) -> list[int]:
        """Positions of the newlines of ``content``, found once per content."""
        breaks = self._newlines.get(content)  # keyed by the string: its hash is computed once
        if breaks is None:
            breaks = self._newlines[content] = [m.start() for m in _NEWLINE.finditer(content)]
        return breaks

    def span(
        self, at: Token | Place, content: str, pos: int | None, raw: str, *, header: bool = False
    ) -> tuple[int, int]:
        """Start and end in ``st.original`` of ``raw`` at ``pos`` of a block's content (a content
        line is its source line less a prefix: indentation, ``>``, list markers)."""
        first, fence = place(at) if isinstance(at, Token) else at
        if pos is None:
            pos = max(content.find(raw), 0)
        breaks = self._breaks(content)
        k_line = bisect_left(breaks, pos)  # newlines before pos: the content line of pos
        line_start = breaks[k_line - 1] + 1 if k_line else 0
        line = first + k_line
        if fence and not header:
            line += 1
        starts = self.starts
        line = min(line, len(starts) - 1)
        start = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(self.src)
        key = (content, first, line_start, header)  # a table row's cells share a line: the content tells
        k = self._prefix.get(key)
        if k is None:
            line_end = content.find("\n", pos)
            cline = content[line_start : line_end if line_end != -1 else len(content)]
            found = self.src.find(cline, start, end) if cline and not header else -1
            k = self._prefix[key] = found - start if found != -1 else -1
        idx = start + k + (pos - line_start) if k != -1 else -1
        if idx == -1 or not self.src.startswith(raw, idx):  # the n-th ``raw`` of the line, as in the content
            idx = self._nth(raw, content.count(raw, line_start, pos), start, end) if raw else -1
        if idx == -1:
            idx = start + (len(self.src[start:end]) - len(self.src[start:end].lstrip()))
        omap = self.offsets
        return omap(idx), omap(idx + len(raw))

    def _nth(self, raw: str, n: int, start: int, end: int) -> int:
        """Where the ``n``-th (from 0) ``raw`` of ``src[start:end]`` starts; the last one if fewer."""
        idx = found = self.src.find(raw, start, end)
        while n and found != -1:
            found = self.src.find(raw, found + 1, end)
            if found != -1:
                idx, n = found, n - 1
        return idx


def where(tok: Token, st: CitationState) -> int:
    """Offset in the original text of a citation token (computed once, on demand, from its meta)."""
    meta = tok.meta
    off = meta.get("offset_abs")
    if off is None:
        loc = locator(st, st.original)
        off = meta["offset_abs"] = loc.offset(meta["place"], meta["content"], meta["offset"], st.mark(tok).raw)
    return int(off)


def image_end(src: str, at: int) -> int | None:
    """Where the image whose alt text holds offset ``at`` of ``src`` ends: past its ``](dest
    "title")``, its ``][label]`` or its ``]``, read as CommonMark reads them; None when no end is found."""
    close = _closing(src, at)
    if close is None:
        return None
    after = close + 1
    if src.startswith("[", after):
        label = _closing(src, after + 1)
        return None if label is None else label + 1
    if not src.startswith("(", after):
        return after
    return _destination_end(src, after + 1)


def _closing(src: str, at: int) -> int | None:
    """The index of the ``]`` that closes a ``[`` before ``at`` (escapes skipped)."""
    depth, i, limit = 1, at, min(len(src), at + 4096)
    while i < limit:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _destination_end(src: str, at: int) -> int | None:
    """Past the ``)`` that ends a link's ``(destination "title")`` opened before ``at``."""
    i, depth, quote, limit = at, 1, "", min(len(src), at + 4096)
    while i < limit:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'" and i > at and src[i - 1] in " \t\n":
            quote = c
        elif c == "<" and i == at:
            end = src.find(">", i)
            i = end if end != -1 else i
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None

"""Where a stream's text is code, decided as markdown-it decides it, for both sinks.

* :class:`Fences`: fenced code blocks, line by line (a line's fence is read from its head);
* :class:`CodeSpans`: code spans of the paragraph being written. A backtick run opens a span that
  the next run of the same length closes; a run that the paragraph's end leaves unclosed is
  literal text. So text after an unclosed run is undecided until a closing run or the
  paragraph's end arrives, and waits — the old count of backticks (odd: inside a span) guessed
  wrong for ````` `` `x` `` ````` and for a run never closed.
"""

from __future__ import annotations

import re
from bisect import bisect_left

__all__ = ["FENCE", "CodeSpans", "Fences", "may_open_fence"]

FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_START = re.compile(r" {0,3}(?:`*|~*)")  # all a line may hold so far and still open a fence
_RUN = re.compile(r"`+")


class Fences:
    """Is a line-by-line reader inside a fenced code block?"""

    def __init__(self) -> None:
        self.open: str | None = None  # the opening run, while inside

    def line(self, head: str, rest_blank: bool = True) -> str:
        """Read one complete line (``head``: its start; ``rest_blank``: the rest, if cut off, is
        blank): ``open``, ``close``, ``inside`` a fence, or ``text``."""
        m = FENCE.match(head)
        if self.open is None:
            if m and not (m.group(1)[0] == "`" and "`" in head[m.end() :]):  # a backtick fence's info has none
                self.open = m.group(1)
                return "open"
            return "text"
        run = m.group(1) if m else ""
        if m and run[0] == self.open[0] and len(run) >= len(self.open) and rest_blank and not head[m.end() :].strip():
            self.open = None
            return "close"
        return "inside"


def may_open_fence(head: str) -> bool:
    """May a line starting with ``head`` (all that has arrived of it) open a fence? Such a line
    is decided at its end (a backtick fence's info string holds no backtick)."""
    return _FENCE_START.fullmatch(head) is not None or FENCE.match(head) is not None


class CodeSpans:
    """The code spans of one paragraph as its text arrives: :meth:`feed` text, get what is decided
    and where its spans are. Linear in the paragraph: held text is kept in pieces and searched
    only where it is new, and a paragraph's end decides every run left open from one index of its
    runs, as markdown-it does."""

    def __init__(self) -> None:
        self._held: list[str] = []  # undecided text: an opening run and what followed it
        self._open = 0  # that run's length (0: nothing held, or only a run still growing)
        self._trail = 0  # backticks at the very end of what is held (a run that may go on)

    @property
    def holding(self) -> bool:
        """Is text of earlier pieces still undecided?"""
        return bool(self._held)

    def feed(self, text: str, *, paragraph_end: bool = False) -> tuple[str, list[tuple[int, int]]]:
        """Add ``text``; return the decided text and its code spans (offsets into it). At a
        paragraph's end everything is decided: a run left unclosed is literal."""
        if not self._held and "`" not in text and not text.endswith("\\"):
            return text, []  # most text: nothing open, no run
        if not paragraph_end and self._held and not self._open and not text.strip("`"):
            self._held.append(text)  # a run still growing, one backtick at a time
            return "", []
        if self._open and not paragraph_end:
            close = self._closer(text)
            if close is None:
                self._held.append(text)
                return "", []
            span = "".join(self._held) + text[:close]
            self._held, self._open, self._trail = [], 0, 0
            rest, spans = self.feed(text[close:])
            return span + rest, [(0, len(span)), *((a + len(span), b + len(span)) for a, b in spans)]
        held = "".join(self._held) + text
        self._held, self._open, self._trail = [], 0, 0
        return self._decide(held, paragraph_end)

    def _closer(self, text: str) -> int | None:
        """Where a run of exactly the open run's length ends in ``text`` (it may begin in what is
        held: ``_trail`` backticks ended it), or None. Inside a span a backslash escapes nothing."""
        if self._trail and text[:1] != "`":
            if self._trail == self._open:
                return 0  # the run that ended what was held is complete: it closes
            self._trail = 0
        pos = 0
        while (i := text.find("`", pos)) != -1:
            m = _RUN.match(text, i)
            assert m is not None
            length = m.end() - i + (self._trail if i == 0 else 0)
            if m.end() == len(text):
                self._trail = length  # it may go on in the next piece
                return None
            if length == self._open:
                return m.end()
            pos = m.end()
        if text and text[-1] != "`":
            self._trail = 0
        return None

    def _decide(self, text: str, paragraph_end: bool) -> tuple[str, list[tuple[int, int]]]:
        """The runs of ``text`` matched as markdown-it matches them: an opener (not backslash
        escaped) and the next run of its length (escapes do not count inside a span)."""
        spans: list[tuple[int, int]] = []
        runs = [(m.start(), m.end()) for m in _RUN.finditer(text)]
        starts: dict[int, list[int]] = {}  # run length -> start of each run of that length
        index: dict[int, list[int]] = {}  # and its index in ``runs``
        for k, (a, b) in enumerate(runs):
            starts.setdefault(b - a, []).append(a)
            index.setdefault(b - a, []).append(k)
        k = 0
        while k < len(runs):
            a, b = runs[k]
            if _escaped(text, a):
                a += 1  # the escaped backtick is text; the rest of its run is a run
                if a == b:
                    k += 1
                    continue
            if b == len(text) and not paragraph_end:
                return self._hold(text, a, 0, spans)  # the run may grow with the next backtick
            n = b - a
            at = bisect_left(starts.get(n, []), b)
            closer = index[n][at] if at < len(starts.get(n, [])) else None
            if closer is not None and (runs[closer][1] < len(text) or paragraph_end):
                spans.append((a, runs[closer][1]))
                k = closer + 1
            elif not paragraph_end:
                return self._hold(text, a, n, spans)
            else:
                k += 1  # never closed: the run is text
        tail = len(text) - len(text.rstrip("\\")) if not paragraph_end and text.endswith("\\") else 0
        if tail:  # a backslash may escape the backtick that comes next
            self._held = [text[len(text) - tail :]]
            return text[: len(text) - tail], spans
        return text, spans

    def _hold(self, text: str, start: int, n: int, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
        held = text[start:]
        self._held, self._open = [held], n
        self._trail = len(held) - len(held.rstrip("`")) if n else 0
        return text[:start], spans


def _escaped(text: str, i: int) -> bool:
    """Is the character at ``i`` after an odd number of backslashes?"""
    slashes = 0
    while i - slashes > 0 and text[i - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1

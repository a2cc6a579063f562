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
    """The code spans of one paragraph as its text arrives: :meth:`add` text, :meth:`decide`
    how much is decided and where its spans are. Linear: the search for an open run's closing run
    goes on from where it stopped."""

    def __init__(self) -> None:
        self.text = ""  # the undecided text: it starts with an unclosed run (or is empty)
        self._resume = 0  # where the search for that run's closing run stopped

    def add(self, text: str) -> None:
        self.text += text

    def decide(self, *, paragraph_end: bool) -> tuple[str, list[tuple[int, int]]]:
        """The decided text (taken off :attr:`text`) and its code spans (offsets into it). At a
        paragraph's end everything is decided: a run left unclosed is literal."""
        text = self.text
        spans: list[tuple[int, int]] = []
        pos = 0
        while (run := _next_run(text, pos)) is not None:
            start, end = run
            if end == len(text) and not paragraph_end:
                return self._hold(text, start, end, spans)  # the run may grow with the next backtick
            resume = self._resume if start == 0 and self._resume > end else end
            close, stopped = _closing(text, resume, end - start, paragraph_end)
            if close is not None:
                spans.append((start, close))
                pos, self._resume = close, 0
            elif paragraph_end:
                pos = end  # never closed: the run is text
            else:
                return self._hold(text, start, stopped, spans)
        tail = len(text) - len(text.rstrip("\\")) if not paragraph_end and text.endswith("\\") else 0
        if tail:  # a backslash may escape the backtick that comes next
            cut = len(text) - tail
            self.text, self._resume = text[cut:], 0
            return text[:cut], spans
        self.text, self._resume = "", 0
        return text, spans

    def _hold(
        self, text: str, start: int, stopped: int, spans: list[tuple[int, int]]
    ) -> tuple[str, list[tuple[int, int]]]:
        self.text, self._resume = text[start:], stopped - start
        return text[:start], spans

    def reset(self) -> str:
        """The paragraph ended inside a fence or a heading: what was undecided, as text."""
        text, self.text, self._resume = self.text, "", 0
        return text


def _next_run(text: str, pos: int) -> tuple[int, int] | None:
    """The next backtick run at or after ``pos`` that is not backslash-escaped."""
    while (i := text.find("`", pos)) != -1:
        slashes = 0
        while i - slashes > 0 and text[i - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2:  # an escaped backtick is text; the rest of its run is a run of its own
            pos = i + 1
            continue
        m = _RUN.match(text, i)
        assert m is not None
        return i, m.end()
    return None


def _closing(text: str, at: int, n: int, paragraph_end: bool) -> tuple[int | None, int]:
    """The end of the next run of exactly ``n`` backticks from ``at`` (inside a span a backslash
    escapes nothing), and where the search stopped when there is none yet."""
    while (i := text.find("`", at)) != -1:
        m = _RUN.match(text, i)
        assert m is not None
        if m.end() == len(text) and not paragraph_end:
            return None, i  # a run at the end may still grow: looked at again
        if len(m.group(0)) == n:
            return m.end(), m.end()
        at = m.end()
    return None, len(text)

"""The HTML sink's block splitter: committed lines gathered into complete top-level blocks.

A block ends at a blank line outside a fence once the next non-blank line starts a new block (not
an indented line or a list item continuing a list). Fences are read by the one fence rule both
sinks share (:class:`citerender.stream.code.Fences`)."""

from __future__ import annotations

import re

from .code import Fences

__all__ = ["BlockSplitter"]

_LIST_ITEM = re.compile(r"\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


class BlockSplitter:
    """:meth:`feed` committed text, get the blocks it completed; :meth:`close` gives the last."""

    def __init__(self) -> None:
        self._lines: list[str] = []  # complete lines of the block being built
        #: the partial line, in pieces (one long line stays linear); the stream appends a chunk
        #: that completes nothing here itself, without a call to :meth:`feed`
        self.partial: list[str] = []
        #: a blank line after text: the block may end there (while None, a chunk without a line
        #: break completes no block)
        self.blank_at: int | None = None
        self._fences = Fences()

    def feed(self, text: str) -> list[str]:
        if self.blank_at is None and "\n" not in text:  # inside a line of a block: most chunks
            if text:
                self.partial.append(text)
            return []
        blocks: list[str] = []
        if "\n" in text:  # the partial line is joined only when it ends
            first, *more = text.split("\n")
            complete = ["".join(self.partial) + first, *more[:-1]]
            self.partial[:] = [more[-1]] if more[-1] else []
            for line in complete:
                self._take_line(line + "\n", blocks)
        elif text:
            self.partial.append(text)
        if self.blank_at is not None and self._fences.open is None:
            # the next block has started: decide as soon as its first characters tell (a head of
            # blanks decides nothing: such a line continues the block or is blank)
            head = self._cur_head(16)
            decidable = (
                head[:1] in (" ", "\t")
                or head[:1] not in "-*+0123456789"
                or len(head) > 11
                or _LIST_ITEM.match(head) is not None
            )
            if head.strip() and decidable and not self._continues(head):
                blocks.append("".join(self._lines))
                self._lines = []
                self.blank_at = None
        return blocks

    def close(self) -> list[str]:
        """The last blocks: everything not yet given out."""
        blocks: list[str] = []
        if self.partial:
            self._take_line("".join(self.partial), blocks)
            self.partial.clear()
        rest = "".join(self._lines)
        self._lines = []
        return [*blocks, rest] if rest.strip() else blocks

    def _cur_head(self, n: int) -> str:
        head = ""
        for part in self.partial:
            head += part
            if len(head) >= n:
                break
        return head[:n]

    def _take_line(self, line: str, blocks: list[str]) -> None:
        blank = not line.strip()
        if self.blank_at is not None and not blank and self._fences.open is None:
            if not self._continues(line):
                blocks.append("".join(self._lines))
                self._lines = []
            self.blank_at = None
        self._lines.append(line)
        was_open = self._fences.open is not None
        kind = self._fences.line(line.rstrip("\n"))
        if not was_open and kind == "text" and blank and "".join(self._lines[:-1]).strip() and self.blank_at is None:
            self.blank_at = len(self._lines) - 1

    def _continues(self, line: str) -> bool:
        """Does a line after a blank line continue the block (indented, or the list goes on)?"""
        return line[:1] in (" ", "\t") or (
            _LIST_ITEM.match(line) is not None and bool(self._lines) and _LIST_ITEM.match(self._lines[0]) is not None
        )

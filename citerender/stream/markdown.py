"""The Markdown sink: each decided block parsed with the pipeline into one document state
(:mod:`.sink`) and written by the Markdown export (:func:`~citerender.rendering.exports.markdown.to_markdown`),
so that what a stream writes is ``citerender render --to markdown`` of the whole answer, for any
chunking: the same note labels and separators, code and residue handling, guarding of unsafe
links; the note definitions (and the lists of sources without a place) come with ``close``.

The export writes its block's lines; its note labels wait for what the answer will show. A
citation's label depends on whether the answer has footnotes of its own (``[^s1]`` then, never
meeting a model's ``[^1]``; else ``[^1]``): blocks that cite wait until the answer shows ``[^``, or
until the end. A model's note definition that cites waits for the end too (its citations are
numbered after every other, as the export numbers them). Blank lines between blocks are written
with the next block (the export ends its text with one line break).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from markdown_it.rules_core import StateCore

from ..plugin.state import CitationState
from ..rendering.exports.markdown import to_markdown
from ..rendering.exports.parsed import Parsed
from ..rendering.pipeline import Pipeline
from .sink import Sink

__all__ = ["MarkdownSink"]

#: a note definition the export writes: ``[^1]:``, ``[^s2-L3]:``, ``[^1-L2-L4]:`` (its sort key read back)
_DEFINITION = re.compile(r"\[\^s?(\d+)(?:-L(\d+)(?:-L(\d+))?)?\]: ")


class MarkdownSink(Sink):
    """:meth:`write` text holding a line break, get the Markdown of the blocks it decided."""

    def __init__(self, pipeline: Pipeline, env: dict[str, Any], state: CitationState, allow_html: bool) -> None:
        super().__init__(pipeline, env, state)
        self.allow_html = allow_html
        self.series: str | None = None  # "s": the answer has footnotes of its own; "": it has none
        self._waiting: list[tuple[str, str]] = []  # blocks that cite, in both series, until it is known
        self._breaks = ""  # the line breaks after the last block written, written with the next one
        self._definitions: dict[str, dict[tuple[int, int, int], str]] = {"": {}, "[^": {}}

    def holds(self, state: StateCore, text: str) -> bool:
        """A model's note definition that may cite: its citations are numbered last."""
        inside = False
        for tok in state.tokens:
            inside = (inside or tok.type == "footnote_reference_open") and tok.type != "footnote_reference_close"
            if inside and tok.type == "inline" and _may_cite(tok.content):
                self.until_close = True
                return True
        return False

    def emit(self, state: StateCore, text: str) -> str:
        if self.series is None and "[^" in text:
            self.series = "s"
        parsed = self._parsed(self.chain.finish(self._fresh(state), self.notes, self.note_sources), text)
        lead = self._lead(text)
        if self.series is None and (parsed.groups or self._waiting):  # in order, behind one that waits
            self._waiting.append((lead + self._lines(parsed, text, ""), lead + self._lines(parsed, text, "[^")))
            return ""
        out = lead + self._lines(parsed, text, "[^" if self.series else "")
        return self._flush() + out if self._waiting else out

    def finish(self, state: StateCore) -> str:
        text = state.src
        if self.series is None:
            self.series = "s" if "[^" in text else ""
        parsed = self._parsed(self.chain.notes(self._fresh(state), self.notes, self.note_sources), text)
        lead = self._lead(text)
        return self._flush() + lead + self._lines(parsed, text, "[^" if self.series else "") + self._ending()

    # ------------------------------------------------------------------ the export's text

    def _fresh(self, state: StateCore) -> StateCore:
        """The document state, ready for a block's positions (the export rewrites one block)."""
        self.state.spans = []
        self.state.code = []
        return state

    def _parsed(self, tokens: list[Any], text: str) -> Parsed:
        return Parsed(text, tokens, self.state, self.env, self.allow_html)

    def _lead(self, text: str) -> str:
        """The line breaks to write before ``text``'s lines (those after it wait for the next)."""
        body = text.rstrip("\n")
        if not body:
            self._breaks += text
            return ""
        lead, self._breaks = self._breaks, text[len(body) :]
        return lead

    def _lines(self, parsed: Parsed, text: str, series: str) -> str:
        """The export's lines of one block, without the line breaks after them (its notes'
        definitions kept for the end). ``series``: ``[^`` if the answer has footnotes of its own."""
        lines = to_markdown(replace(parsed, input=series)).split("\n")
        body = text.rstrip("\n")
        count = body.count("\n") + 1 if body else 0
        found = self._definitions[series]
        for line in lines[count:]:
            m = _DEFINITION.match(line)
            if m is not None:
                low = int(m.group(2) or 0)
                found.setdefault((int(m.group(1)), low, int(m.group(3) or low)), line)
        return "\n".join(lines[:count])

    def _flush(self) -> str:
        """The blocks waiting for the series, in the one now known."""
        waiting, self._waiting = self._waiting, []
        return "".join(s if self.series else plain for plain, s in waiting)

    def _ending(self) -> str:
        """The export's end: one line break, the note definitions, the sources listed apart."""
        empty = self._fresh(self.chain.inline("", self.env))  # (the state's text is the last block's)
        tail = to_markdown(self._parsed(empty.tokens, "")).lstrip("\n")
        found = self._definitions["[^" if self.series else ""]
        if not found:
            return "\n" + ("\n" + tail if tail else "")
        notes = "\n".join(found[k] for k in sorted(found))
        return "\n\n" + notes + "\n" + ("\n" + tail if tail else "")


def _may_cite(text: str) -> bool:
    """Could ``text`` hold a marker, in any form (a quick, generous test)?"""
    return not text.isascii() or "cite" in text or "\\" in text or "&#" in text or "%" in text

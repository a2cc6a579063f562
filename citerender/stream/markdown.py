"""The Markdown sink: each decided block parsed with the pipeline into one document state
(:mod:`.sink`) and written by the Markdown export (:func:`~citerender.rendering.exports.markdown.to_markdown`),
so that what a stream writes is ``citerender render --to markdown`` of the whole answer, for any
chunking: the same note labels and separators, code and residue handling, guarding of unsafe links.

The blocks before the first one that may cite are written as they are decided. A citation's
label depends on the whole answer — ``[^s1]`` if the answer has footnotes of its own anywhere (so
it never meets a model's ``[^1]``), else ``[^1]`` — and the export numbers the citations in the
model's note definitions after every other, so from the first block that may cite, the rest is
written by ``close``, as the export writes it, with the note definitions and the sources listed
apart. Blank lines after a block are written with the next one (the export ends its text with one
line break).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from markdown_it.rules_core import StateCore

from ..plugin.numbering import report_uncited
from ..plugin.state import CitationState
from ..rendering.exports.markdown import to_markdown
from ..rendering.exports.parsed import Parsed
from ..rendering.pipeline import Pipeline
from .sink import Sink

__all__ = ["MarkdownSink"]

#: what a marker, an escaped one, copy-paste forms and residue are written with (a generous test)
_MAY_CITE = re.compile(
    "[\ue200-\ue206\u3010\\\\&%]|cite|entity|contentReference|oai_citation|<Cite|<Link|fallbackMarkdown"
)  # ChatGPT's copied forms (``citerender.syntax.copied``) cite too


class MarkdownSink(Sink):
    """:meth:`write` text holding a line break, get the Markdown of the blocks it decided."""

    def __init__(
        self, pipeline: Pipeline, env: dict[str, Any], state: CitationState, *, allow_html: bool, consulted: bool
    ) -> None:
        super().__init__(pipeline, env, state)
        self.allow_html, self.consulted = allow_html, consulted
        self._notes_seen = False  # the answer writes ``[^``: it may have footnotes of its own
        self._breaks = ""  # the line breaks after the last block written, written with the next one

    def holds(self, state: StateCore, text: str) -> bool:
        """From the first block that may cite, everything waits for ``close``."""
        if any(tok.type == "inline" and _MAY_CITE.search(tok.content) for tok in state.tokens):
            self.until_close = True
        return self.until_close

    def emit(self, state: StateCore, text: str) -> str:
        self._notes_seen = self._notes_seen or "[^" in text
        parsed = self._parsed(self.chain.finish(self._fresh(state), self.notes, self.note_sources), text)
        body = text.rstrip("\n")
        if not body:
            self._breaks += text
            return ""
        lines = to_markdown(replace(parsed, input="")).split("\n")
        lead, self._breaks = self._breaks, text[len(body) :]
        return lead + "\n".join(lines[: body.count("\n") + 1])

    def finish(self, rest: str) -> str:
        # after text shown, the rest is read after a line break, as the export reads it (a mark
        # removed at its start keeps the spaces after it there, at the start of a text it does not)
        lead = "\n" if self.shown else ""
        state = self.chain.inline(lead + rest, self.env)
        text = state.src
        self._notes_seen = self._notes_seen or "[^" in text
        # the notes' own text is not read again: the export rewrites this text only (a note that
        # may cite was held, so is in it)
        parsed = self._parsed(self.chain.notes(self._fresh(state), self.notes, ()), text)
        report_uncited(self.state, consulted=self.consulted)
        out = to_markdown(replace(parsed, input="[^" if self._notes_seen else ""))
        if not text.strip("\n"):
            return out
        return self._breaks + out[len(lead) :]

    def _fresh(self, state: StateCore) -> StateCore:
        """The document state, ready for a block's positions (the export rewrites one block)."""
        self.state.spans = []
        self.state.code = []
        return state

    def _parsed(self, tokens: list[Any], text: str) -> Parsed:
        return Parsed(text, tokens, self.state, self.env, self.allow_html)

"""The HTML sink: each decided block parsed and rendered with the pipeline into one document
state (:mod:`.sink`), so that what a stream shows is ``render()``'s page, for any chunking. The
model's note definitions are kept aside: ``close`` writes their section after the last block,
where ``render()`` puts it.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..syntax.residue import clean_html
from .sink import Sink

__all__ = ["HtmlSink"]


class HtmlSink(Sink):
    """:meth:`write` text holding a line break, get the HTML of the blocks it decided."""

    def emit(self, state: StateCore, text: str) -> str:
        return self._html(self.chain.finish(state, self.notes, self.note_sources))

    def finish(self, rest: str) -> str:
        if not rest and not self.notes:
            return ""
        return self._html(self.chain.notes(self.chain.inline(rest, self.env), self.notes, self.note_sources))

    def _html(self, tokens: list[Token]) -> str:
        md = self.pipeline.md
        html, removed = clean_html(str(md.renderer.render(tokens, md.options, self.env)))
        if removed:
            self.state.report("CR109", "marker residue removed from the output", None)
        return html

"""The HTML sink: committed text gathered into complete top-level blocks (:mod:`.blocks`), each
parsed and rendered by the one pipeline into the stream's one document state — so numbering,
labels, heading ids and every check are ``render()``'s own."""

from __future__ import annotations

from typing import Any

from ..plugin.state import CitationState
from ..rendering.pipeline import Pipeline
from ..syntax.residue import clean_html
from .blocks import BlockSplitter

__all__ = ["HtmlSink"]


class HtmlSink:
    """:meth:`write` committed text, get the HTML of the blocks it completed."""

    def __init__(self, pipeline: Pipeline, env: dict[str, Any], state: CitationState) -> None:
        self.pipeline, self.env, self.state = pipeline, env, state
        self.blocks = BlockSplitter()  # the stream adds a chunk that completes nothing itself

    def write(self, text: str, *, plain: bool = False) -> str:
        blocks = self.blocks.feed(text)  # most chunks complete no block
        return "".join([self._render(b) for b in blocks]) if blocks else ""

    def close(self) -> str:
        return "".join(self._render(b) for b in self.blocks.close())

    def _render(self, block: str) -> str:
        p = self.pipeline
        html, removed = clean_html(p.html(p.parse_in(block, self.env)))
        if removed:
            self.state.report("CR109", "marker residue removed from the output", None)
        return html

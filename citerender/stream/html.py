"""The HTML sink: text parsed and rendered block by block with the pipeline, into one document
state, so that what a stream shows is ``render()``'s page, for any chunking.

A block is rendered once it is decided (:mod:`.blocks`: the parser has closed it and started
another) and nothing it reads can change any more. What can change a decided block is a label it
looked up that is not defined yet: ``[text][ref]``, ``[text][]``, ``[ref]``, ``[^note]`` (and a
dialect's ``[1]``) read as text until a definition below makes them a link or a note. Such a block,
and every block after it (the output only grows, in order), is held until the labels it missed
are defined, or until :meth:`HtmlSink.close`. The model's note definitions are kept aside and
their section is written by ``close``, after the last block, where ``render()`` puts it.
"""

from __future__ import annotations

from typing import Any

from markdown_it.token import Token

from ..plugin.state import CitationState
from ..rendering.pipeline import Pipeline
from ..syntax.residue import clean_html
from .blocks import decided_end
from .chain import Chain, label_env

__all__ = ["HtmlSink"]


class HtmlSink:
    """:meth:`write` text holding a line break, get the HTML of the blocks it decided; the
    stream appends a chunk without one to :attr:`partial` itself."""

    def __init__(self, pipeline: Pipeline, env: dict[str, Any], state: CitationState) -> None:
        self.pipeline, self.env, self.state = pipeline, env, state
        self.chain = Chain(pipeline.md)
        self.labels, self.note_labels = label_env(env)
        #: the line being received, in pieces (one long line stays linear)
        self.partial: list[str] = []
        self._open: list[str] = []  # complete lines not decided yet: the last block, growing
        self._held: list[str] = []  # decided text held back: it missed a label
        self._missed: set[str] = set()
        self._notes: list[Token] = []  # the model's note definitions, for the notes section

    def write(self, text: str) -> str:
        head, _, rest = text.rpartition("\n")
        self._open.append(_lines("".join(self.partial) + head + "\n"))
        self.partial[:] = [rest] if rest else []
        lines = "".join(self._open)
        cut = decided_end(lines, self.chain.blocks(lines, self.pipeline.new_env(self.state.registry)))
        self._open = [lines[cut:]] if cut < len(lines) else []
        return self._decided(lines[:cut]) if cut else ""

    def close(self) -> str:
        rest = "".join(self._held) + "".join(self._open) + _lines("".join(self.partial))
        self._held, self._open, self.partial[:] = [], [], []
        if not rest and not self._notes:
            return ""
        return self._html(self.chain.notes(self.chain.inline(rest, self.env), self._notes))

    def _decided(self, text: str) -> str:
        self._held.append(text)
        if self._missed and not self._defines_missed(text):
            return ""
        return self._held_blocks()

    def _held_blocks(self) -> str:
        """The held blocks' HTML, if they miss no label now; else they stay held."""
        text = "".join(self._held)
        notes = self.env["footnotes"]
        saved = dict(notes["refs"]), {k: dict(v) for k, v in notes["list"].items()}
        self.labels.missed.clear()
        self.note_labels.missed.clear()
        state = self.chain.inline(text, self.env)
        missed = self.labels.missed | self.note_labels.missed
        if missed:  # put the note numbers back: the blocks are parsed again when released
            dict.clear(notes["refs"])
            dict.update(notes["refs"], saved[0])
            notes["list"].clear()
            notes["list"].update(saved[1])
            self._missed = missed
            return ""
        self._held, self._missed = [], set()
        return self._html(self.chain.finish(state, self._notes))

    def _defines_missed(self, text: str) -> bool:
        """Does ``text`` define a label the held blocks missed (worth parsing them again)?"""
        env = self.pipeline.new_env(self.state.registry)
        refs, notes = label_env(env)
        self.chain.blocks(text, env)
        defined = set(dict.keys(refs)) | set(dict.keys(notes))
        defined |= {"^" + k[1:].upper() for k in dict.keys(notes)}  # ``[^x]`` read as a link first
        return bool(defined & self._missed)

    def _html(self, tokens: list[Token]) -> str:
        md = self.pipeline.md
        html, removed = clean_html(str(md.renderer.render(tokens, md.options, self.env)))
        if removed:
            self.state.report("CR109", "marker residue removed from the output", None)
        return html


def _lines(text: str) -> str:
    """Line ends as the parser reads them (``\\r\\n`` and ``\\r`` are ``\\n``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

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

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..plugin.state import CitationState
from ..rendering.pipeline import Pipeline
from ..syntax.residue import clean_html
from .blocks import decided_end
from .chain import Chain, define, label_env

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
        self._note_sources: list[str] = []  # the text they were read from
        self._scratch = pipeline.new_env(state.registry)  # the block rules' own (definitions too)
        self._after_blank = True  # the last complete line was blank (or there is none)
        self._open_text = False  # the lines not decided hold text
        self._saved: tuple[dict[str, int], dict[int, Any]] = ({}, {})  # note numbers after the last block shown

    def write(self, text: str) -> str:
        head, _, rest = text.rpartition("\n")
        new = _lines("".join(self.partial) + head + "\n")
        self._open.append(new)
        self.partial[:] = [rest] if rest else []
        may_close = self._may_close(new)
        self._after_blank = not new[:-1].rpartition("\n")[2].strip()
        if not may_close:
            self._open_text = self._open_text or bool(new.strip())
            return ""
        lines = "".join(self._open)
        scratch = self._scratch
        scratch.pop("references", None)
        scratch.pop("footnotes", None)
        tokens = self.chain.blocks(lines, scratch)
        cut, line, count = decided_end(lines, tokens)
        self._open = [lines[cut:]] if cut < len(lines) else []
        self._open_text = cut < len(lines) and bool(lines[cut:].strip())
        if not cut:
            return ""
        if self._held:  # behind blocks held back: parsed with them
            return self._decided(lines[:cut])
        define(self.env, scratch, line, tokens[:count])
        return self._render(self.chain.inline_blocks(lines[:cut], self.env, tokens[:count]), lines[:cut])

    def _may_close(self, new: str) -> bool:
        """May the lines ``new`` close a block (else the parser is not asked yet)? A line starting
        with a letter neither closes itself nor, after a line of text, what it continues; after a
        blank line it may close what was open before. A blank line, or one that may open a
        block, may close one. (Only when a block is shown depends on this, never what it shows.)"""
        after_blank, text = self._after_blank, self._open_text
        for line in new.split("\n")[:-1]:
            if not line[:1].isalpha() or (after_blank and text):
                return True
            after_blank, text = False, True
        return False

    def close(self) -> str:
        rest = "".join(self._held) + "".join(self._open) + _lines("".join(self.partial))
        self._held, self._open, self.partial[:] = [], [], []
        if not rest and not self._notes:
            return ""
        return self._html(self.chain.notes(self.chain.inline(rest, self.env), self._notes, self._note_sources))

    def _decided(self, text: str) -> str:
        self._held.append(text)
        if self._missed and not self._defines_missed(text):
            return ""
        return self._held_blocks()

    def _held_blocks(self) -> str:
        """The held blocks' HTML, if they miss no label now; else they stay held."""
        text = "".join(self._held)
        self._held = []
        return self._render(self.chain.inline(text, self.env), text)

    def _render(self, state: StateCore, text: str) -> str:
        """The HTML of decided ``text`` parsed up to its inline tokens (``state``), unless it
        missed a label: then it is held, and the note numbers it took are given back."""
        notes = self.env["footnotes"]
        missed = self.labels.missed | self.note_labels.missed
        self.labels.missed.clear()
        self.note_labels.missed.clear()
        if missed:
            dict.clear(notes["refs"])
            dict.update(notes["refs"], self._saved[0])
            notes["list"].clear()
            notes["list"].update(self._saved[1])
            self._held, self._missed = [text], missed
            return ""
        self._missed = set()
        html = self._html(self.chain.finish(state, self._notes, self._note_sources))
        self._save_notes()
        return html

    def _save_notes(self) -> None:
        """Note the model's note numbers given so far (a block that is held gives its own back)."""
        notes = self.env["footnotes"]
        self._saved = dict(notes["refs"]), {k: dict(v) for k, v in notes["list"].items()}

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

"""What both sinks share: text in, decided blocks out, parsed by the pipeline into one document.

A :class:`Sink` gathers complete lines, asks the pipeline's block rules which blocks are decided
(:mod:`.blocks`), and parses those with the pipeline up to their inline tokens (:mod:`.chain`).
A block that looked up a link or note label not yet defined (``[text][ref]``, ``[ref]``,
``[^note]``, a dialect's ``[1]``) may read differently once a definition below arrives, so it and
every block after it (the output only grows, in order) are held until the labels it missed are
defined, or until :meth:`Sink.close`. A sink says how a parsed block is written (:meth:`Sink.emit`)
and may hold one for reasons of its own (:meth:`Sink.holds`).
"""

from __future__ import annotations

from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..plugin.state import CitationState
from ..rendering.pipeline import Pipeline
from .blocks import decided_end
from .chain import Chain, define, label_env

__all__ = ["Sink"]

_LONG = 1024


class Sink:
    """:meth:`write` text holding a line break, get the output of the blocks it decided; the
    stream appends a chunk without one to :attr:`partial` itself."""

    def __init__(self, pipeline: Pipeline, env: dict[str, Any], state: CitationState) -> None:
        self.pipeline, self.env, self.state = pipeline, env, state
        self.chain = Chain(pipeline.md)
        self.labels, self.note_labels = label_env(env)
        #: the line being received, in pieces (one long line stays linear)
        self.partial: list[str] = []
        self._open: list[str] = []  # complete lines not decided yet: the last block, growing
        self._held: list[str] = []  # decided text held back
        self._missed: set[str] = set()  # the labels it missed
        #: what is held waits for the end (the sink's own reason, :meth:`holds`)
        self.until_close = False
        self.notes: list[Token] = []  # the model's note definitions, for the notes section
        self.note_sources: list[str] = []  # the text they were read from
        self._scratch = pipeline.new_env(state.registry)  # the block rules' own (definitions too)
        self._after_blank = True  # the last complete line was blank (or there is none)
        self._open_text = False  # the lines not decided hold text
        self._next_read = 0  # the length the open lines must reach before they are read again
        self.shown = 0  # characters of the answer shown (their blocks written)
        self._saved: tuple[dict[str, int], dict[int, Any]] = ({}, {})  # note numbers after the last block shown

    # ------------------------------------------------------------------ what a sink says

    def emit(self, state: StateCore, text: str) -> str:
        """The output of decided ``text``, parsed up to its inline tokens (``state``)."""
        raise NotImplementedError

    def holds(self, state: StateCore, text: str) -> bool:
        """Must decided ``text`` (parsed as ``state``) wait, for a reason of this sink's own?"""
        return False

    def finish(self, rest: str) -> str:
        """The output of the stream's last text, ``rest`` (parse it with :meth:`Chain.inline`)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ text in

    def write(self, text: str) -> str:
        head, _, rest = text.rpartition("\n")
        new = _lines("".join(self.partial) + head + "\n")
        self._open.append(new)
        self.partial[:] = [rest] if rest else []
        if self.until_close:  # everything waits for the end: nothing to decide
            return ""
        may_close = self._may_close(new)
        self._after_blank = not new[:-1].rpartition("\n")[2].strip()
        if not may_close:
            self._open_text = self._open_text or bool(new.strip())
            return ""
        lines = "".join(self._open)
        if len(lines) < self._next_read:  # a long block still open: read again once it has grown
            self._open = [lines]
            return ""
        # text that looks up no label and defines none is parsed where it goes; else its blocks
        # are read apart first (a definition not decided yet must not be seen)
        direct = not self._held and "[" not in lines
        env = self.env if direct else self._scratch
        if not direct:
            env.pop("references", None)
            env.pop("footnotes", None)
        state = self.chain.block_state(lines, env)
        tokens = state.tokens
        cut, line, count = decided_end(lines, tokens)
        self._open = [lines[cut:]] if cut < len(lines) else []
        self._open_text = cut < len(lines) and bool(lines[cut:].strip())
        # past _LONG characters, a block is read again only once it has grown by a quarter: the
        # reading of a long list, table or fence stays linear, its end shown a little later
        self._next_read = 0 if cut or len(lines) < _LONG else len(lines) + len(lines) // 4
        if not cut:
            return ""
        decided = lines[:cut]
        if self._held:  # behind blocks held back: parsed with them
            self._held.append(decided)
            if self.until_close or not self._defines_missed(decided):
                return ""
            decided, self._held = "".join(self._held), []
            return self._take(self.chain.inline(decided, self.env), decided)
        if direct and cut == len(lines):
            return self._take(self.chain.go_on(state), decided)
        define(self.env, env, line, tokens[:count])
        return self._take(self.chain.go_on(self.chain.block_state(decided, self.env, tokens[:count])), decided)

    def close(self) -> str:
        rest = "".join(self._held) + "".join(self._open) + _lines("".join(self.partial))
        self._held, self._open, self.partial[:] = [], [], []
        return self.finish(rest)

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

    # ------------------------------------------------------------------ holding back

    def _take(self, state: StateCore, text: str) -> str:
        """The output of decided ``text`` parsed up to its inline tokens (``state``), unless it
        missed a label or the sink holds it: then it waits, and gives back the note numbers it took."""
        missed = self.labels.missed | self.note_labels.missed
        self.labels.missed.clear()
        self.note_labels.missed.clear()
        if missed or self.holds(state, text):
            notes = self.env["footnotes"]
            dict.clear(notes["refs"])
            dict.update(notes["refs"], self._saved[0])
            notes["list"].clear()
            notes["list"].update(self._saved[1])
            self._held, self._missed = [text], missed
            return ""
        self._missed = set()
        self.shown += len(text)
        out = self.emit(state, text)
        notes = self.env["footnotes"]
        self._saved = dict(notes["refs"]), {k: dict(v) for k, v in notes["list"].items()}
        return out

    def _defines_missed(self, text: str) -> bool:
        """Does ``text`` define a label the held blocks missed (worth parsing them again)?"""
        env = self.pipeline.new_env(self.state.registry)
        refs, notes = label_env(env)
        self.chain.block_state(text, env)
        defined = set(dict.keys(refs)) | set(dict.keys(notes))
        defined |= {"^" + k[1:].upper() for k in dict.keys(notes)}  # ``[^x]`` read as a link first
        return bool(defined & self._missed)


def _lines(text: str) -> str:
    """Line ends as the parser reads them (``\\r\\n`` and ``\\r`` are ``\\n``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
